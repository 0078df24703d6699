// The row mappers of a run's details: `run_phases`, `worker_phases`, `band_stats` with its
// `band_histogram` and `outlier_buckets`, `pairs`, `clusters` and `cluster_members`. The store
// writes a finished run and loads it back through them, one named step per table.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "project_store.h"
#include "run_result.h"
#include "sorted_pair_blocks.h"
#include "sqlite_handle.h"
#include "store_rows.h"

namespace neardup::store_rows {

// ---- run_phases, worker_phases ------------------------------------------------------------
void insertPhases(sql::Database& db, int64_t runId, const std::vector<PhaseTiming>& phases);
std::vector<PhaseTiming> loadPhases(const sql::Database& db, int64_t runId);
// Every run's phases, appended to the summary of the same run (`runs` ordered by id).
void loadAllPhases(const sql::Database& db, std::vector<RunSummary>& runs);
void insertWorkerPhases(sql::Database& db, int64_t runId, const std::vector<WorkerTiming>& w);
// By phase (in pipeline order) then worker.
std::vector<WorkerTiming> loadWorkerPhases(const sql::Database& db, int64_t runId);

// ---- band_stats, band_histogram, outlier_buckets ------------------------------------------
void insertBands(sql::Database& db, int64_t runId, const std::vector<BandStats>& bands);
// Bands in band order, each with its histogram and outliers.
std::vector<BandStats> loadBands(const sql::Database& db, int64_t runId);

// ---- pairs --------------------------------------------------------------------------------
// `pairs` and, when given, the pairs of `aside` (both in (a, b) order, no pair in both), written
// in (a, b) order: the table's key order, in which each row goes in at the end of its tree.
void insertPairs(sql::Database& db, int64_t runId, const std::vector<ScoredPair>& pairs,
                 const SortedPairBlocks* aside = nullptr);
// In (a, b) order; an unverified pair's exact similarity reads as -1.
std::vector<ScoredPair> loadPairs(const sql::Database& db, int64_t runId);
// Those that are duplicates at `threshold` (clustering.h: isDuplicate), picked out as they are
// read: what clustering at that threshold reads, without the run's other stored pairs.
std::vector<ScoredPair> loadDuplicatePairs(const sql::Database& db, int64_t runId, int hashes,
                                           double threshold);
// The stored pairs among `keys` (a << 32 | b, ascending), each found by the table's key: for a
// few pairs of a run that stored many, without reading the others. In (a, b) order.
std::vector<ScoredPair> lookUpPairs(const sql::Database& db, int64_t runId,
                                    const std::vector<uint64_t>& keys);
// The same pairs handed to `visit` one at a time.
void forEachPair(const sql::Database& db, int64_t runId,
                 const std::function<void(const ScoredPair&)>& visit);

// ---- clusters, cluster_members ------------------------------------------------------------
// The run's clustering (representative, clusterOf, removedFor, copyOf) with cluster sizes.
void insertClusters(sql::Database& db, const RunResult& run);
// Reads the clustering into `run` (sized for `documents`), every index checked against the
// dataset; StoreError naming the damage otherwise.
void loadClusters(const sql::Database& db, int64_t runId, uint64_t documents, RunResult& run);

}  // namespace neardup::store_rows
