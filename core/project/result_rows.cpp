// A run's detail row mappers (result_rows.h): phases, bands, pairs, clusters.
#include "result_rows.h"

#include <string>
#include <tuple>

#include "clustering.h"
#include "row_fields.h"
#include "row_inserter.h"

namespace neardup::store_rows {

// ---- run_phases, worker_phases ------------------------------------------------------------

namespace {

// run_phases' columns after its key (run_id, ordinal), and a phase's fields in their order.
constexpr const char* kPhaseColumns = "phase, seconds, items, bytes, reused";

template <typename Phase>
auto phaseFields(Phase& ph) {
    return std::tie(ph.name, ph.seconds, ph.items, ph.bytes, ph.reused);
}

// The phase in the current row's columns from `first` on.
PhaseTiming readPhase(const sql::Statement& st, int first) {
    PhaseTiming ph;
    sql::readFields(st, first, phaseFields(ph));
    return ph;
}

}  // namespace

void insertPhases(sql::Database& db, int64_t runId, const std::vector<PhaseTiming>& phases) {
    sql::insertOrdered(db, "run_phases", "run_id", runId, kPhaseColumns, phases,
                       [](const PhaseTiming& ph) { return phaseFields(ph); });
}

std::vector<PhaseTiming> loadPhases(const sql::Database& db, int64_t runId) {
    auto st = sql::selectOrdered(db, "run_phases", "run_id", runId, kPhaseColumns);
    std::vector<PhaseTiming> out;
    while (st.step())
        out.push_back(readPhase(st, 0));
    return out;
}

void loadAllPhases(const sql::Database& db, std::vector<RunSummary>& runs) {
    auto st = db.prepare(std::string("SELECT run_id, ") + kPhaseColumns +
                         " FROM run_phases ORDER BY run_id, ordinal");
    std::size_t k = 0;
    while (st.step()) {
        const int64_t runId = st.int64(0);
        while (k < runs.size() && runs[k].runId < runId)
            ++k;
        if (k == runs.size()) break;
        if (runs[k].runId != runId) continue;
        runs[k].phases.push_back(readPhase(st, 1));
    }
}

namespace {

// worker_phases' columns after run_id, and a worker's timing's fields in their order.
constexpr const char* kWorkerColumns = "worker, phase, label, seconds, items, bytes";

template <typename Timing>
auto workerFields(Timing& t) {
    return std::tie(t.worker, t.phase, t.label, t.seconds, t.items, t.bytes);
}

}  // namespace

void insertWorkerPhases(sql::Database& db, int64_t runId, const std::vector<WorkerTiming>& w) {
    auto st = db.prepare(std::string("INSERT INTO worker_phases(run_id, ") + kWorkerColumns +
                         ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    st.bind(1, runId);
    for (const WorkerTiming& t : w)
        sql::bindFields(st, 2, workerFields(t)).run();
}

std::vector<WorkerTiming> loadWorkerPhases(const sql::Database& db, int64_t runId) {
    auto st = db.prepare(
        std::string("SELECT ") + kWorkerColumns +
        " FROM worker_phases WHERE run_id = ?1 ORDER BY CASE phase WHEN 'signatures' THEN 0 "
        "WHEN 'buckets' THEN 1 WHEN 'compare' THEN 2 ELSE 3 END, phase, worker");
    st.bind(1, runId);
    std::vector<WorkerTiming> out;
    while (st.step())
        sql::readFields(st, 0, workerFields(out.emplace_back()));
    return out;
}

// ---- band_stats, band_histogram, outlier_buckets ------------------------------------------

namespace {

// band_stats' columns after run_id, and a band's fields in their order.
constexpr const char* kBandColumns =
    "band, buckets, multi_buckets, mean_size, stddev_size, max_size, comparisons, outlier_count";

template <typename Band>
auto bandFields(Band& b) {
    return std::tie(b.band, b.buckets, b.multiBuckets, b.meanSize, b.stddevSize, b.maxSize,
                    b.comparisons, b.outlierCount);
}

}  // namespace

void insertBands(sql::Database& db, int64_t runId, const std::vector<BandStats>& bands) {
    auto band = db.prepare(std::string("INSERT INTO band_stats(run_id, ") + kBandColumns +
                           ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    auto hist = db.prepare(
        "INSERT INTO band_histogram(run_id, band, bin, size_min, size_max, count) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    auto outlier = db.prepare(
        "INSERT INTO outlier_buckets(run_id, band, rank, key, size, comparisons) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    band.bind(1, runId);
    hist.bind(1, runId);
    outlier.bind(1, runId);
    for (const BandStats& b : bands) {
        sql::bindFields(band, 2, bandFields(b)).run();
        hist.bind(2, int64_t{b.band});
        for (std::size_t bin = 0; bin < b.histogram.size(); ++bin) {
            // Bin i counts sizes in [2^i, 2^(i+1)); bins past 62 would overflow INTEGER.
            const uint64_t lo = bin < 63 ? uint64_t{1} << bin : 0;
            const uint64_t hi = bin < 62 ? (uint64_t{1} << (bin + 1)) - 1 : 0;
            hist.bindU64(3, bin).bindU64(4, lo).bindU64(5, hi).bindU64(6, b.histogram[bin]);
            hist.run();
        }
        outlier.bind(2, int64_t{b.band});
        for (std::size_t k = 0; k < b.outliers.size(); ++k) {
            const OutlierBucket& o = b.outliers[k];
            outlier.bindU64(3, k)
                .bindU64(4, o.key)
                .bindU64(5, o.size)
                .bindU64(6, o.comparisons)
                .run();
        }
    }
}

std::vector<BandStats> loadBands(const sql::Database& db, int64_t runId) {
    std::vector<BandStats> bands;
    {
        auto st = db.prepare(std::string("SELECT ") + kBandColumns +
                             " FROM band_stats WHERE run_id = ?1 ORDER BY band");
        st.bind(1, runId);
        while (st.step()) {
            BandStats b;
            sql::readFields(st, 0, bandFields(b));
            bands.push_back(std::move(b));
        }
    }
    // Bands come back ordered by band number; children are matched by a merge walk.
    auto findBand = [&bands](std::size_t& k, int64_t band) -> BandStats* {
        while (k < bands.size() && bands[k].band < band)
            ++k;
        return k < bands.size() && bands[k].band == band ? &bands[k] : nullptr;
    };
    auto hist = db.prepare(
        "SELECT band, bin, count FROM band_histogram WHERE run_id = ?1 ORDER BY band, bin");
    hist.bind(1, runId);
    std::size_t k = 0;
    while (hist.step()) {
        BandStats* b = findBand(k, hist.int64(0));
        if (b == nullptr) continue;
        const auto bin = static_cast<std::size_t>(hist.int64(1));
        if (bin >= 64)  // log2 bins of a 64-bit size
            throw StoreError("project store: run " + std::to_string(runId) +
                             " has a damaged histogram");
        if (b->histogram.size() <= bin) b->histogram.resize(bin + 1, 0);
        b->histogram[bin] = hist.u64(2);
    }
    auto outl = db.prepare(
        "SELECT band, key, size, comparisons FROM outlier_buckets WHERE run_id = ?1 "
        "ORDER BY band, rank");
    outl.bind(1, runId);
    k = 0;
    while (outl.step()) {
        BandStats* b = findBand(k, outl.int64(0));
        if (b == nullptr) continue;
        b->outliers.push_back({outl.u64(1), outl.u64(2), outl.u64(3)});
    }
    return bands;
}

// ---- pairs --------------------------------------------------------------------------------

void insertPairs(sql::Database& db, int64_t runId, const std::vector<ScoredPair>& pairs,
                 const SortedPairBlocks* aside) {
    sql::RowInserter<ScoredPair> rows(db, "INSERT INTO pairs(run_id, a, b, matches, exact)", 5,
                                      [runId](sql::Statement& st, int first, const ScoredPair& p) {
                                          st.bind(first, runId)
                                              .bind(first + 1, int64_t{p.a})
                                              .bind(first + 2, int64_t{p.b})
                                              .bind(first + 3, int64_t{p.matches});
                                          if (p.exact < 0) {
                                              st.bindNull(first + 4);
                                          } else {
                                              st.bind(first + 4, double{p.exact});
                                          }
                                      });
    auto next = pairs.begin();
    if (aside != nullptr)
        aside->forEachBlock([&](std::span<const ScoredPair> block) {
            for (const ScoredPair& p : block) {
                for (; next != pairs.end() && *next < p; ++next)
                    rows.add(*next);
                rows.add(p);
            }
        });
    for (; next != pairs.end(); ++next)
        rows.add(*next);
    rows.finish();
}

void forEachPair(const sql::Database& db, int64_t runId,
                 const std::function<void(const ScoredPair&)>& visit) {
    auto st = db.prepare("SELECT a, b, matches, exact FROM pairs WHERE run_id = ?1 ORDER BY a, b");
    st.bind(1, runId);
    while (st.step()) {
        ScoredPair p;
        p.a = st.u32(0);
        p.b = st.u32(1);
        p.matches = st.u32(2);
        p.exact = st.isNull(3) ? -1.0f : static_cast<float>(st.real(3));
        visit(p);
    }
}

std::vector<ScoredPair> loadPairs(const sql::Database& db, int64_t runId) {
    std::vector<ScoredPair> pairs;
    forEachPair(db, runId, [&pairs](const ScoredPair& p) { pairs.push_back(p); });
    return pairs;
}

std::vector<ScoredPair> lookUpPairs(const sql::Database& db, int64_t runId,
                                    const std::vector<uint64_t>& keys) {
    std::vector<ScoredPair> pairs;
    auto st =
        db.prepare("SELECT matches, exact FROM pairs WHERE run_id = ?1 AND a = ?2 AND b = ?3");
    st.bind(1, runId);
    for (const uint64_t key : keys) {
        ScoredPair p;
        p.a = static_cast<uint32_t>(key >> 32);
        p.b = static_cast<uint32_t>(key);
        st.reset();
        st.bind(2, int64_t{p.a}).bind(3, int64_t{p.b});
        if (!st.step()) continue;
        p.matches = st.u32(0);
        p.exact = st.isNull(1) ? -1.0f : static_cast<float>(st.real(1));
        pairs.push_back(p);
    }
    return pairs;
}

std::vector<ScoredPair> loadDuplicatePairs(const sql::Database& db, int64_t runId, int hashes,
                                           double threshold) {
    std::vector<ScoredPair> pairs;
    forEachPair(db, runId, [&](const ScoredPair& p) {
        if (isDuplicate(p, hashes, threshold)) pairs.push_back(p);
    });
    return pairs;
}

// ---- clusters, cluster_members ------------------------------------------------------------

void insertClusters(sql::Database& db, const RunResult& run) {
    const int64_t id = run.runId;
    const std::size_t clusterCount = run.representative.size();
    std::vector<uint64_t> sizes(clusterCount, 0);
    for (uint32_t c : run.clusterOf) {
        if (c == RunResult::kNoCluster) continue;
        if (c >= clusterCount)
            throw StoreError("project store: cluster index " + std::to_string(c) +
                             " out of range in run " + std::to_string(id));
        ++sizes[c];
    }
    auto cl = db.prepare(
        "INSERT INTO clusters(run_id, cluster, representative, size) "
        "VALUES(?1, ?2, ?3, ?4)");
    cl.bind(1, id);
    for (std::size_t c = 0; c < clusterCount; ++c)
        cl.bindU64(2, c).bind(3, int64_t{run.representative[c]}).bindU64(4, sizes[c]).run();
    sql::RowInserter<std::size_t> members(
        db, "INSERT INTO cluster_members(run_id, cluster, doc_index, removed_for, copy_of)", 5,
        [&run, id](sql::Statement& mem, int first, const std::size_t& doc) {
            const uint32_t c = run.clusterOf[doc];
            mem.bind(first, id).bind(first + 1, int64_t{c}).bindU64(first + 2, doc);
            const uint32_t keptBy =
                run.removedFor.empty()
                    ? (run.removed(doc) ? run.representative[c] : RunResult::kNoDocument)
                    : run.removedFor[doc];
            if (keptBy == RunResult::kNoDocument)
                mem.bindNull(first + 3);
            else
                mem.bind(first + 3, int64_t{keptBy});
            const uint32_t copy = run.copyOf.empty() ? RunResult::kNoDocument : run.copyOf[doc];
            if (copy == RunResult::kNoDocument)
                mem.bindNull(first + 4);
            else
                mem.bind(first + 4, int64_t{copy});
        });
    for (std::size_t doc = 0; doc < run.clusterOf.size(); ++doc)
        if (run.clusterOf[doc] != RunResult::kNoCluster) members.add(doc);
    members.finish();
}

void loadClusters(const sql::Database& db, int64_t runId, uint64_t documents, RunResult& run) {
    auto damaged = [runId](const char* what) {
        return StoreError("project store: run " + std::to_string(runId) + " is damaged (" + what +
                          " out of range)");
    };
    {
        auto st = db.prepare(
            "SELECT cluster, representative FROM clusters WHERE run_id = ?1 ORDER BY cluster");
        st.bind(1, runId);
        while (st.step()) {
            const uint64_t c = st.u64(0), representative = st.u64(1);
            if (c >= documents || representative >= documents) throw damaged("cluster");
            if (run.representative.size() <= c)
                run.representative.resize(static_cast<std::size_t>(c) + 1, 0);
            run.representative[static_cast<std::size_t>(c)] = static_cast<uint32_t>(representative);
        }
    }
    run.clusterOf.assign(static_cast<std::size_t>(documents), RunResult::kNoCluster);
    run.removedFor.assign(static_cast<std::size_t>(documents), RunResult::kNoDocument);
    auto st = db.prepare(
        "SELECT doc_index, cluster, removed_for, copy_of FROM cluster_members "
        "WHERE run_id = ?1");
    st.bind(1, runId);
    while (st.step()) {
        const uint64_t doc = st.u64(0);
        if (doc >= documents)
            throw StoreError("project store: run " + std::to_string(runId) + " clusters document " +
                             std::to_string(doc) + " of " + std::to_string(documents));
        if (st.u64(1) >= run.representative.size()) throw damaged("cluster member");
        run.clusterOf[static_cast<std::size_t>(doc)] = st.u32(1);
        if (!st.isNull(2)) {
            if (st.u64(2) >= documents) throw damaged("witness");
            run.removedFor[static_cast<std::size_t>(doc)] = st.u32(2);
        }
        if (!st.isNull(3)) {
            if (st.u64(3) >= documents) throw damaged("copy");
            if (run.copyOf.empty())
                run.copyOf.assign(static_cast<std::size_t>(documents), RunResult::kNoDocument);
            run.copyOf[static_cast<std::size_t>(doc)] = st.u32(3);
        }
    }
}

}  // namespace neardup::store_rows
