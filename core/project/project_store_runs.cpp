// ProjectStore, second half: compared pairs, runs and their details, run listings.
#include "project_store.h"
#include "project_store_impl.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <string_view>

#include "decisions.h"
#include "project_schema.h"
#include "rejected_lines.h"
#include "run_lock.h"
#include "signature_file.h"
#include "sqlite_handle.h"
#include "store_rows.h"

namespace neardup {

std::optional<int64_t> ProjectStore::findReusablePairs(int64_t datasetId, const RunParams& params,
                                                       uint64_t resolvedBuckets) {
    const std::string key = signatureCacheKey(params.signature, params.reader);
    auto st = impl_->db.prepare(
        "SELECT id FROM runs WHERE dataset_id = ?1 AND status = 'ok' AND signature_key = ?2 "
        "AND bands = ?3 AND rows = ?4 AND bucket_key = ?5 AND resolved_buckets = ?6 "
        "AND store_floor <= ?7 ORDER BY id DESC LIMIT 1");
    st.bind(1, datasetId)
        .bind(2, std::string_view(key))
        .bind(3, int64_t{params.lsh.bands})
        .bind(4, int64_t{params.lsh.rows})
        .bind(5, std::string_view(toString(params.lsh.scheme)))
        .bindU64(6, resolvedBuckets)
        .bind(7, params.compare.threshold);
    if (!st.step()) return std::nullopt;
    return st.int64(0);
}

std::vector<ScoredPair> ProjectStore::loadPairs(int64_t runId) {
    auto st =
        impl_->db.prepare("SELECT a, b, matches, exact FROM pairs WHERE run_id = ?1 ORDER BY a, b");
    st.bind(1, runId);
    std::vector<ScoredPair> pairs;
    while (st.step()) {
        ScoredPair p;
        p.a = static_cast<uint32_t>(st.int64(0));
        p.b = static_cast<uint32_t>(st.int64(1));
        p.matches = static_cast<uint32_t>(st.int64(2));
        p.exact = st.isNull(3) ? -1.0f : static_cast<float>(st.real(3));
        pairs.push_back(p);
    }
    return pairs;
}

int64_t ProjectStore::beginRun(const RunResult& run) {
    auto& db = impl_->db;
    sql::Transaction tx(db);
    RunResult started = run;
    started.status = "running";
    auto st = db.prepare(store_rows::insertRunSql());
    store_rows::writeRun(st, started);
    const int64_t id = db.lastInsertRowId();
    tx.commit();
    return id;
}

void ProjectStore::Impl::insertRunDetails(const RunResult& run) {
    const int64_t id = run.runId;
    {
        auto st = db.prepare(
            "INSERT INTO run_phases(run_id, ordinal, phase, seconds, items, bytes, reused) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        st.bind(1, id);
        for (std::size_t i = 0; i < run.phases.size(); ++i) {
            const PhaseTiming& ph = run.phases[i];
            st.bindU64(2, i)
                .bind(3, std::string_view(ph.name))
                .bind(4, ph.seconds)
                .bindU64(5, ph.items)
                .bindU64(6, ph.bytes)
                .bindBool(7, ph.reused)
                .run();
        }
    }
    {
        auto st = db.prepare(
            "INSERT INTO worker_phases(run_id, worker, phase, label, seconds, items, bytes) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        st.bind(1, id);
        for (const WorkerTiming& w : run.workerPhases)
            st.bind(2, int64_t{w.worker})
                .bind(3, std::string_view(w.phase))
                .bind(4, std::string_view(w.label))
                .bind(5, w.seconds)
                .bindU64(6, w.items)
                .bindU64(7, w.bytes)
                .run();
    }
    {
        auto band = db.prepare(
            "INSERT INTO band_stats(run_id, band, buckets, multi_buckets, mean_size, "
            "stddev_size, max_size, comparisons, outlier_count) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        auto hist = db.prepare(
            "INSERT INTO band_histogram(run_id, band, bin, size_min, size_max, count) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
        auto outlier = db.prepare(
            "INSERT INTO outlier_buckets(run_id, band, rank, key, size, comparisons) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
        band.bind(1, id);
        hist.bind(1, id);
        outlier.bind(1, id);
        for (const BandStats& b : run.bands) {
            band.bind(2, int64_t{b.band})
                .bindU64(3, b.buckets)
                .bindU64(4, b.multiBuckets)
                .bind(5, b.meanSize)
                .bind(6, b.stddevSize)
                .bindU64(7, b.maxSize)
                .bindU64(8, b.comparisons)
                .bindU64(9, b.outlierCount)
                .run();
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
    {
        auto st = db.prepare(
            "INSERT INTO pairs(run_id, a, b, matches, exact) VALUES(?1, ?2, ?3, ?4, ?5)");
        st.bind(1, id);
        for (const ScoredPair& p : run.pairs) {
            st.bind(2, int64_t{p.a}).bind(3, int64_t{p.b}).bind(4, int64_t{p.matches});
            if (p.exact < 0) {
                st.bindNull(5);
            } else {
                st.bind(5, double{p.exact});
            }
            st.run();
        }
    }
    {
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
        auto mem = db.prepare(
            "INSERT INTO cluster_members(run_id, cluster, doc_index, removed_for, copy_of) "
            "VALUES(?1, ?2, ?3, ?4, ?5)");
        mem.bind(1, id);
        for (std::size_t doc = 0; doc < run.clusterOf.size(); ++doc) {
            const uint32_t c = run.clusterOf[doc];
            if (c == RunResult::kNoCluster) continue;
            mem.bind(2, int64_t{c}).bindU64(3, doc);
            const uint32_t keptBy =
                run.removedFor.empty()
                    ? (run.removed(doc) ? run.representative[c] : RunResult::kNoDocument)
                    : run.removedFor[doc];
            if (keptBy == RunResult::kNoDocument)
                mem.bindNull(4);
            else
                mem.bind(4, int64_t{keptBy});
            const uint32_t copy = run.copyOf.empty() ? RunResult::kNoDocument : run.copyOf[doc];
            if (copy == RunResult::kNoDocument)
                mem.bindNull(5);
            else
                mem.bind(5, int64_t{copy});
            mem.run();
        }
    }
}

void ProjectStore::finishRun(const RunResult& run) {
    auto& db = impl_->db;
    sql::Transaction tx(db);
    {
        auto st = db.prepare(store_rows::updateRunSql());
        st.bind(store_rows::updateRunIdParameter(), run.runId);
        store_rows::writeRun(st, run);
        if (db.changes() != 1)
            throw StoreError("project store: no run " + std::to_string(run.runId));
    }
    // Finishing twice replaces the details instead of failing on duplicate keys. Histograms,
    // outliers and members go with their parents (ON DELETE CASCADE).
    for (const char* table : {"run_phases", "worker_phases", "band_stats", "pairs", "clusters"}) {
        auto del = db.prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
        del.bind(1, run.runId).run();
    }
    impl_->insertRunDetails(run);
    tx.commit();
}

void ProjectStore::markRun(int64_t runId, const std::string& status, const std::string& error) {
    auto st = impl_->db.prepare(std::string("UPDATE runs SET status = ?2, error = ?3, "
                                            "finished_at = coalesce(finished_at, ") +
                                kNow + ") WHERE id = ?1");
    st.bind(1, runId).bind(2, std::string_view(status)).bind(3, std::string_view(error)).run();
    if (impl_->db.changes() != 1)
        throw StoreError("project store: no run " + std::to_string(runId));
}

std::vector<ProjectStore::RunState> ProjectStore::runStates() {
    auto st = impl_->db.prepare("SELECT id, status, started_at FROM runs ORDER BY id");
    std::vector<RunState> out;
    while (st.step())
        out.push_back({st.int64(0), st.string(1), st.string(2)});
    return out;
}

std::vector<std::string> ProjectStore::signatureCacheFiles() {
    auto st = impl_->db.prepare("SELECT path FROM signature_caches WHERE path IS NOT NULL");
    std::vector<std::string> out;
    while (st.step())
        out.push_back(st.string(0));
    return out;
}

void ProjectStore::setInterruptCheck(std::function<void()> check) {
    impl_->interruptCheck = std::move(check);
}

std::vector<RunSummary> ProjectStore::listRuns() {
    recoverStaleRuns(*this);
    auto& db = impl_->db;
    std::vector<RunSummary> out;
    {
        auto st = db.prepare(store_rows::selectRunSql("ORDER BY id"));
        RunResult r;
        while (st.step()) {
            store_rows::readRun(st, r);
            RunSummary s;
            s.runId = r.runId;
            s.datasetId = r.datasetId;
            s.startedAt = r.startedAt;
            s.finishedAt = r.finishedAt;
            s.status = r.status;
            s.backend = r.backend;
            s.threads = r.threads;
            s.paramsJson = st.string(store_rows::kParamsJsonColumn);
            s.counts = r.counts;
            out.push_back(std::move(s));
        }
    }
    auto st = db.prepare(
        "SELECT run_id, phase, seconds, items, bytes, reused FROM run_phases "
        "ORDER BY run_id, ordinal");
    std::size_t k = 0;
    while (st.step()) {
        const int64_t runId = st.int64(0);
        while (k < out.size() && out[k].runId < runId)
            ++k;
        if (k == out.size()) break;
        if (out[k].runId != runId) continue;
        PhaseTiming ph;
        ph.name = st.string(1);
        ph.seconds = st.real(2);
        ph.items = st.u64(3);
        ph.bytes = st.u64(4);
        ph.reused = st.int64(5) != 0;
        out[k].phases.push_back(std::move(ph));
    }
    return out;
}

std::optional<int64_t> ProjectStore::latestRun(const std::string& status) {
    auto st = impl_->db.prepare("SELECT id FROM runs WHERE status = ?1 ORDER BY id DESC LIMIT 1");
    st.bind(1, std::string_view(status));
    if (!st.step()) return std::nullopt;
    return st.int64(0);
}

std::vector<WorkerTiming> ProjectStore::loadWorkerPhases(int64_t runId) {
    auto st = impl_->db.prepare(
        "SELECT worker, phase, label, seconds, items, bytes FROM worker_phases "
        "WHERE run_id = ?1 ORDER BY CASE phase WHEN 'signatures' THEN 0 WHEN 'buckets' THEN 1 "
        "WHEN 'compare' THEN 2 ELSE 3 END, phase, worker");
    st.bind(1, runId);
    std::vector<WorkerTiming> out;
    while (st.step())
        out.push_back({static_cast<int>(st.int64(0)), st.string(1), st.string(2), st.real(3),
                       st.u64(4), st.u64(5)});
    return out;
}

RunResult ProjectStore::loadRun(int64_t runId) {
    recoverStaleRuns(*this);
    auto& db = impl_->db;
    RunResult run;
    {
        auto st = db.prepare(store_rows::selectRunSql("WHERE id = ?1"));
        st.bind(1, runId);
        if (!st.step()) throw StoreError("project store: no run " + std::to_string(runId));
        store_rows::readRun(st, run);
    }
    {
        auto st = db.prepare(
            "SELECT phase, seconds, items, bytes, reused FROM run_phases WHERE run_id = ?1 "
            "ORDER BY ordinal");
        st.bind(1, runId);
        while (st.step()) {
            PhaseTiming ph;
            ph.name = st.string(0);
            ph.seconds = st.real(1);
            ph.items = st.u64(2);
            ph.bytes = st.u64(3);
            ph.reused = st.int64(4) != 0;
            run.phases.push_back(std::move(ph));
        }
    }
    run.workerPhases = loadWorkerPhases(runId);
    run.rejections = impl_->loadRejections(run.datasetId);
    {
        auto st = db.prepare(
            "SELECT band, buckets, multi_buckets, mean_size, stddev_size, max_size, "
            "comparisons, outlier_count FROM band_stats WHERE run_id = ?1 ORDER BY band");
        st.bind(1, runId);
        while (st.step()) {
            BandStats b;
            b.band = static_cast<int>(st.int64(0));
            b.buckets = st.u64(1);
            b.multiBuckets = st.u64(2);
            b.meanSize = st.real(3);
            b.stddevSize = st.real(4);
            b.maxSize = st.u64(5);
            b.comparisons = st.u64(6);
            b.outlierCount = st.u64(7);
            run.bands.push_back(std::move(b));
        }
        // Bands come back ordered by band number; children are matched by a merge walk.
        auto findBand = [&run](std::size_t& k, int64_t band) -> BandStats* {
            while (k < run.bands.size() && run.bands[k].band < band)
                ++k;
            return k < run.bands.size() && run.bands[k].band == band ? &run.bands[k] : nullptr;
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
    }
    run.pairs = loadPairs(runId);
    // Indices read back must stay inside the dataset: exports, verification and the workbench
    // index documents and clusters with them.
    const uint64_t datasetSize = impl_->datasetDocuments(run.datasetId);
    auto damaged = [runId](const char* what) {
        return StoreError("project store: run " + std::to_string(runId) + " is damaged (" + what +
                          " out of range)");
    };
    for (const ScoredPair& p : run.pairs)
        if (p.a >= p.b || p.b >= datasetSize) throw damaged("pair");
    {
        auto st = db.prepare(
            "SELECT cluster, representative FROM clusters WHERE run_id = ?1 ORDER BY cluster");
        st.bind(1, runId);
        while (st.step()) {
            const uint64_t c = st.u64(0), representative = st.u64(1);
            if (c >= datasetSize || representative >= datasetSize) throw damaged("cluster");
            if (run.representative.size() <= c)
                run.representative.resize(static_cast<std::size_t>(c) + 1, 0);
            run.representative[static_cast<std::size_t>(c)] = static_cast<uint32_t>(representative);
        }
    }
    {
        const uint64_t documents = impl_->datasetDocuments(run.datasetId);
        run.clusterOf.assign(static_cast<std::size_t>(documents), RunResult::kNoCluster);
        run.removedFor.assign(static_cast<std::size_t>(documents), RunResult::kNoDocument);
        auto st = db.prepare(
            "SELECT doc_index, cluster, removed_for, copy_of FROM cluster_members "
            "WHERE run_id = ?1");
        st.bind(1, runId);
        while (st.step()) {
            const uint64_t doc = st.u64(0);
            if (doc >= documents)
                throw StoreError("project store: run " + std::to_string(runId) +
                                 " clusters document " + std::to_string(doc) + " of " +
                                 std::to_string(documents));
            if (st.u64(1) >= run.representative.size()) throw damaged("cluster member");
            run.clusterOf[static_cast<std::size_t>(doc)] = static_cast<uint32_t>(st.int64(1));
            if (!st.isNull(2)) {
                if (st.u64(2) >= documents) throw damaged("witness");
                run.removedFor[static_cast<std::size_t>(doc)] = static_cast<uint32_t>(st.int64(2));
            }
            if (!st.isNull(3)) {
                if (st.u64(3) >= documents) throw damaged("copy");
                if (run.copyOf.empty())
                    run.copyOf.assign(static_cast<std::size_t>(documents), RunResult::kNoDocument);
                run.copyOf[static_cast<std::size_t>(doc)] = static_cast<uint32_t>(st.int64(3));
            }
        }
    }
    applyRecordedDecisions(*this, run);
    return run;
}

}  // namespace neardup
