// ProjectStore, second half: compared pairs, runs and their details, run listings. Writing and
// loading a run are sequences of named steps, one per table (run_rows.h, result_rows.h).
#include <memory>
#include <stdexcept>
#include <string_view>

#include "clustering.h"
#include "dataset_rows.h"
#include "decision_rows.h"
#include "pair_verifier.h"
#include "project_store.h"
#include "project_store_impl.h"
#include "recluster_at.h"
#include "result_rows.h"
#include "run_rows.h"

namespace neardup {

namespace {

// The run's details that are final once it is clustered (writeRunDetails), one table at a time.
void insertClusteredDetails(sql::Database& db, const RunResult& run,
                            const SortedPairBlocks* pairsAside) {
    store_rows::insertBands(db, run.runId, run.bands);
    store_rows::insertPairs(db, run.runId, run.pairs, pairsAside);
    store_rows::insertClusters(db, run);
}

// Finishing twice replaces the details instead of failing on duplicate keys. Children come
// before their parents and are named: the details are written without foreign-key checks
// (Impl::RunDetailsWrite), so ON DELETE CASCADE does not fire.
void deleteRunDetails(sql::Database& db, int64_t runId) {
    for (const char* table : {"run_phases", "worker_phases", "band_histogram", "outlier_buckets",
                              "band_stats", "pairs", "cluster_members", "clusters"}) {
        auto del = db.prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
        del.bind(1, runId).run();
    }
}

// Indices read back must stay inside the dataset: exports, verification and the workbench
// index documents and clusters with them.
void checkPairs(const RunResult& run, uint64_t documents) {
    for (const ScoredPair& p : run.pairs)
        if (p.a >= p.b || p.b >= documents)
            throw StoreError("project store: run " + std::to_string(run.runId) +
                             " is damaged (pair out of range)");
}

// The run's stored pairs that its outputs name (clustering.h: witnessPairKeys), looked up or
// picked out of the pairs as they are read in key order; the others are never held.
void loadWitnessPairs(const sql::Database& db, RunResult& run) {
    const std::vector<uint64_t> keys = witnessPairKeys(run);
    // A key's lookup (a B-tree descent, in loadRun's snapshot) costs about as much as reading a
    // dozen rows in order: few witnesses among many stored pairs are looked up; otherwise the
    // pairs are read through.
    constexpr uint64_t kRowsPerLookup = 16;
    if (keys.size() * kRowsPerLookup < run.counts.storedPairs) {
        run.pairs = store_rows::lookUpPairs(db, run.runId, keys);
        return;
    }
    run.pairs.clear();
    run.pairs.reserve(keys.size());
    std::size_t next = 0;
    store_rows::forEachPair(db, run.runId, [&](const ScoredPair& p) {
        const uint64_t key = uint64_t{p.a} << 32 | p.b;
        while (next < keys.size() && keys[next] < key)
            ++next;
        if (next < keys.size() && keys[next] == key) run.pairs.push_back(p);
    });
}

// The documents as clustering a loaded run reads them: only the keep policy looks at them
// (their lengths or keep values); for --keep first, their count.
DocumentTable keepInputs(const sql::Database& db, const RunResult& run) {
    const std::size_t n = run.clusterOf.size();
    DocumentTable docs;
    if (run.params.keep != KeepPolicy::First)
        docs = store_rows::loadKeepInputs(db, run.datasetId, n);
    else
        docs.file.assign(n, 0);
    // The reference first and never removed, as the run decided (clustering.h).
    docs.referenceDocuments = static_cast<uint32_t>(run.counts.referenceDocuments);
    return docs;
}

}  // namespace

std::optional<int64_t> ProjectStore::findReusablePairs(int64_t datasetId, const RunParams& params,
                                                       uint64_t resolvedBuckets) const {
    // The newest source with the run's own bands and rows: its pairs are the run's.
    for (const PairsSource& source : pairSourcesAnyBandsRows(datasetId, params, resolvedBuckets))
        if (source.bands == params.lsh.bands && source.rows == params.lsh.rows) return source.runId;
    return std::nullopt;
}

std::vector<ProjectStore::PairsSource> ProjectStore::pairSourcesAnyBandsRows(
    int64_t datasetId, const RunParams& params, uint64_t resolvedBuckets) const {
    const std::string key = signatureCacheKey(params.signature, params.reader);
    auto st = impl_->db.prepare(
        "SELECT id, bands, rows FROM runs WHERE dataset_id = ?1 AND status = 'ok' AND "
        "signature_key = ?2 AND bucket_key = ?3 AND resolved_buckets = ?4 AND store_floor <= ?5 "
        "ORDER BY id DESC");
    st.bind(1, datasetId)
        .bind(2, std::string_view(key))
        .bind(3, std::string_view(toString(params.lsh.scheme)))
        .bindU64(4, resolvedBuckets)
        .bind(5, highestServingStoreFloor(params) + 1e-12);
    std::vector<PairsSource> sources;
    while (st.step())
        sources.push_back(
            {st.int64(0), static_cast<int>(st.int64(1)), static_cast<int>(st.int64(2))});
    return sources;
}

std::vector<ScoredPair> ProjectStore::loadPairs(int64_t runId) const {
    return store_rows::loadPairs(impl_->db, runId);
}

void ProjectStore::forEachPair(int64_t runId,
                               const std::function<void(const ScoredPair&)>& visit) const {
    const auto& db = impl_->db;
    const uint64_t documents = store_rows::datasetDocuments(db, runRow(runId).run.datasetId);
    store_rows::forEachPair(db, runId, [&](const ScoredPair& p) {
        if (p.a >= p.b || p.b >= documents)
            throw StoreError("project store: run " + std::to_string(runId) +
                             " is damaged (pair out of range)");
        visit(p);
    });
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

void ProjectStore::writeRunDetails(const RunResult& run, const SortedPairBlocks* pairsAside) {
    auto& db = impl_->db;
    if (impl_->runDetails)
        throw std::logic_error("project store: a run's details are already being written");
    auto write = std::make_unique<Impl::RunDetailsWrite>(db);
    deleteRunDetails(db, run.runId);
    insertClusteredDetails(db, run, pairsAside);
    impl_->runDetails = std::move(write);
    impl_->runDetailsOf = run.runId;
}

void ProjectStore::abandonRunDetails() {
    impl_->runDetails.reset();  // rolled back
}

void ProjectStore::finishRun(const RunResult& run, const SortedPairBlocks* pairsAside) {
    auto& db = impl_->db;
    // Taken out of the store first: whatever happens below, the transaction ends here.
    std::unique_ptr<Impl::RunDetailsWrite> write = std::move(impl_->runDetails);
    if (write && impl_->runDetailsOf != run.runId)
        throw std::logic_error("project store: finishing run " + std::to_string(run.runId) +
                               " while run " + std::to_string(impl_->runDetailsOf) +
                               "'s details were being written");
    if (!write) {
        write = std::make_unique<Impl::RunDetailsWrite>(db);
        deleteRunDetails(db, run.runId);
        insertClusteredDetails(db, run, pairsAside);
    }
    {
        auto st = db.prepare(store_rows::updateRunSql());
        st.bind(store_rows::updateRunIdParameter(), run.runId);
        store_rows::writeRun(st, run);
        if (db.changes() != 1)
            throw StoreError("project store: no run " + std::to_string(run.runId));
    }
    // The phases end with the export, which the details may have been written beside.
    store_rows::insertPhases(db, run.runId, run.phases);
    store_rows::insertWorkerPhases(db, run.runId, run.workerPhases);
    write->tx.commit();
}

void ProjectStore::markRun(int64_t runId, const std::string& status, const std::string& error) {
    auto st = impl_->db.prepare(std::string("UPDATE runs SET status = ?2, error = ?3, "
                                            "finished_at = coalesce(finished_at, ") +
                                store_rows::kNow + ") WHERE id = ?1");
    st.bind(1, runId).bind(2, std::string_view(status)).bind(3, std::string_view(error)).run();
    if (impl_->db.changes() != 1)
        throw StoreError("project store: no run " + std::to_string(runId));
}

std::vector<ProjectStore::RunState> ProjectStore::runStates() const {
    auto st = impl_->db.prepare("SELECT id, status, started_at FROM runs ORDER BY id");
    std::vector<RunState> out;
    while (st.step())
        out.push_back({st.int64(0), st.string(1), st.string(2)});
    return out;
}

void ProjectStore::setInterruptCheck(std::function<void()> check) {
    impl_->interruptCheck = std::move(check);
}

std::vector<RunSummary> ProjectStore::listRuns() const {
    const auto& db = impl_->db;
    std::vector<RunSummary> out;
    {
        auto st = db.prepare(store_rows::selectRunSql("ORDER BY id"));
        while (st.step()) {
            RunRow row = store_rows::readRun(st);
            const RunResult& r = row.run;
            RunSummary s;
            s.runId = r.runId;
            s.datasetId = r.datasetId;
            s.startedAt = r.startedAt;
            s.finishedAt = r.finishedAt;
            s.status = r.status;
            s.backend = r.backend;
            s.threads = r.threads;
            s.paramsJson = std::move(row.paramsJson);
            s.counts = r.counts;
            out.push_back(std::move(s));
        }
    }
    store_rows::loadAllPhases(db, out);
    return out;
}

std::optional<int64_t> ProjectStore::latestRun(const std::string& status) const {
    auto st = impl_->db.prepare("SELECT id FROM runs WHERE status = ?1 ORDER BY id DESC LIMIT 1");
    st.bind(1, std::string_view(status));
    if (!st.step()) return std::nullopt;
    return st.int64(0);
}

std::vector<WorkerTiming> ProjectStore::loadWorkerPhases(int64_t runId) const {
    return store_rows::loadWorkerPhases(impl_->db, runId);
}

RunRow ProjectStore::runRow(int64_t runId) const {
    auto st = impl_->db.prepare(store_rows::selectRunSql("WHERE id = ?1"));
    st.bind(1, runId);
    if (!st.step()) throw NoSuchRun(impl_->path, runId);
    return store_rows::readRun(st);
}

RunResult ProjectStore::loadRunOutline(int64_t runId) const {
    const auto& db = impl_->db;
    RunResult run = runRow(runId).run;
    run.phases = store_rows::loadPhases(db, runId);
    run.bands = store_rows::loadBands(db, runId);
    return run;
}

RunResult ProjectStore::loadRun(int64_t runId, StoredPairs pairs) const {
    // One snapshot for all of the run's rows: they agree with one another, and the file's
    // shared lock is taken once, not by each statement (a witness lookup apiece).
    sql::Savepoint snapshot(impl_->db, "load_run");
    RunResult run = loadRunRows(runId, pairs);
    snapshot.release();
    return run;
}

RunResult ProjectStore::loadRunRows(int64_t runId, std::optional<StoredPairs> pairs) const {
    const auto& db = impl_->db;
    RunResult run = runRow(runId).run;
    run.phases = store_rows::loadPhases(db, runId);
    run.workerPhases = store_rows::loadWorkerPhases(db, runId);
    run.rejections = store_rows::loadRejections(db, run.datasetId);
    run.bands = store_rows::loadBands(db, runId);
    const uint64_t documents = store_rows::datasetDocuments(db, run.datasetId);
    store_rows::loadClusters(db, runId, documents, run);
    if (!pairs) return run;
    // The dataset's audit decisions (decisions.h) cluster the run again, and clustering reads
    // only the pairs that are duplicates at the run's threshold (clustering.h): those are
    // loaded, not the run's other stored pairs (millions, for a run stored for low
    // thresholds). The witnesses are then picked out of every stored pair.
    const std::vector<Decision> decisions = store_rows::loadDecisions(db, run.datasetId);
    if (pairs == StoredPairs::All)
        run.pairs = store_rows::loadPairs(db, runId);
    else if (pairs == StoredPairs::Duplicates || !decisions.empty())
        run.pairs = store_rows::loadDuplicatePairs(db, runId, run.params.signature.hashes,
                                                   run.params.compare.threshold);
    checkPairs(run, documents);
    if (!decisions.empty()) applyDecisions(decisions, keepInputs(db, run), run);
    if (pairs == StoredPairs::Witnesses) {
        loadWitnessPairs(db, run);
        checkPairs(run, documents);
    }
    return run;
}

RunResult ProjectStore::loadRunAt(int64_t runId, double threshold) const {
    const auto& db = impl_->db;
    sql::Savepoint snapshot(impl_->db, "load_run_at");
    RunResult run = loadRunRows(runId, std::nullopt);  // clustered again below
    const uint64_t documents = run.clusterOf.size();
    run.pairs = store_rows::loadDuplicatePairs(db, runId, run.params.signature.hashes, threshold);
    checkPairs(run, documents);
    reclusterAt(threshold, store_rows::loadDecisions(db, run.datasetId), keepInputs(db, run), run);
    loadWitnessPairs(db, run);
    checkPairs(run, documents);
    snapshot.release();
    return run;
}

}  // namespace neardup
