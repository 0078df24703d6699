// The workbench's clusters re-clustered with decisions or at another threshold, as its queries
// keep them in the temp schema (temp.adj_members, temp.adj_clusters: project_queries.cpp
// creates them): one writer for a stored cluster cut into pieces and for a whole run.
#pragma once

#include <cstdint>
#include <vector>

#include "run_result.h"
#include "sqlite_handle.h"

namespace neardup {

// Inserts the clusters of `r` for run `runId`: member i of `r` is document `docOf[i]` (empty:
// i), its cluster k is numbered `clusterId[k]` (empty: k) and marked `clusterMarks[k]` (empty:
// none), a removed member is removed for its witness or else its representative.
void insertAdjustedClusters(sql::Database& db, int64_t runId, const RunResult& r,
                            const std::vector<uint8_t>& clusterMarks,
                            const std::vector<uint32_t>& docOf,
                            const std::vector<int64_t>& clusterId);

}  // namespace neardup
