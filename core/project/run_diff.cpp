#include "run_diff.h"

#include <sqlite3.h>

#include <stdexcept>

#include "decisions.h"
#include "project_store.h"

namespace neardup {

namespace {

class Db {
  public:
    explicit Db(const std::string& path) {
        const int rc = sqlite3_open_v2(path.c_str(), &db_,
                                       SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr);
        if (rc != SQLITE_OK) {
            const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw std::runtime_error("cannot open " + path + ": " + msg);
        }
        sqlite3_busy_timeout(db_, 5000);
    }
    ~Db() { sqlite3_close(db_); }
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    sqlite3* get() const { return db_; }

  private:
    sqlite3* db_ = nullptr;
};

class Stmt {
  public:
    Stmt(sqlite3* db, const char* sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("run diff: ") + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt& bind(int i, int64_t v) {
        sqlite3_bind_int64(s_, i, v);
        return *this;
    }
    bool step() {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        throw std::runtime_error(std::string("run diff: ") + sqlite3_errmsg(db_));
    }
    bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
    std::string text(int c) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
                 : std::string();
    }

  private:
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
};

struct RunRow {
    int64_t dataset = 0;
    uint64_t documents = 0;
};

RunRow runRow(sqlite3* db, int64_t runId) {
    Stmt s(db, "SELECT dataset_id, status, documents FROM runs WHERE id = ?1");
    s.bind(1, runId);
    if (!s.step()) throw std::runtime_error("no run " + std::to_string(runId) + " in the project");
    if (s.text(1) != "ok")
        throw std::runtime_error("run " + std::to_string(runId) + " is " + s.text(1) +
                                 ": only finished runs can be compared");
    return {s.i64(0), static_cast<uint64_t>(s.i64(2))};
}

uint64_t removedCount(sqlite3* db, int64_t runId) {
    Stmt s(db,
           "SELECT count(*) FROM cluster_members"
           " WHERE run_id = ?1 AND removed_for IS NOT NULL");
    s.bind(1, runId);
    s.step();
    return static_cast<uint64_t>(s.i64(0));
}

// Documents removed by `removing` (members removed for a kept document: their witness, or
// under the components rule their cluster's representative) and kept by `keeping` (in no
// cluster there, or kept in it): one walk over the removing run's members in document order,
// each checked with primary-key look-ups.
std::vector<RunDiffRow> removedOnlyBy(sqlite3* db, int64_t removing, int64_t keeping,
                                      int64_t dataset, bool removingIsB) {
    Stmt s(db,
           "SELECT mr.doc_index, d.doc_id, mr.cluster, mk.cluster, mr.removed_for, rd.doc_id"
           " FROM cluster_members mr"
           " LEFT JOIN cluster_members mk ON mk.run_id = ?2 AND mk.doc_index = mr.doc_index"
           " JOIN documents d ON d.dataset_id = ?3 AND d.doc_index = mr.doc_index"
           " JOIN documents rd ON rd.dataset_id = ?3 AND rd.doc_index = mr.removed_for"
           " WHERE mr.run_id = ?1 AND mr.removed_for IS NOT NULL AND mk.removed_for IS NULL"
           " ORDER BY mr.doc_index");
    s.bind(1, removing).bind(2, keeping).bind(3, dataset);
    std::vector<RunDiffRow> rows;
    while (s.step()) {
        RunDiffRow r;
        r.docIndex = static_cast<uint32_t>(s.i64(0));
        r.docId = s.text(1);
        const int64_t inRemoving = s.i64(2);
        const int64_t inKeeping = s.null(3) ? -1 : s.i64(3);
        r.clusterA = removingIsB ? inKeeping : inRemoving;
        r.clusterB = removingIsB ? inRemoving : inKeeping;
        r.representative = static_cast<uint32_t>(s.i64(4));
        r.representativeId = s.text(5);
        rows.push_back(std::move(r));
    }
    return rows;
}

// Audit decisions recorded for the dataset (the table is missing in a version-1 project
// opened read-only: none then).
bool hasDecisions(sqlite3* db, int64_t dataset) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM decisions WHERE dataset_id = ?1 LIMIT 1", -1, &st,
                           nullptr) != SQLITE_OK) {
        sqlite3_finalize(st);
        return false;
    }
    sqlite3_bind_int64(st, 1, dataset);
    const bool any = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return any;
}

// The same comparison over two loaded outcomes (decisions applied), in one pass in document
// order.
void diffOutcomes(const RunResult& a, const RunResult& b, const DocumentTable& docs, RunDiff& d) {
    auto cluster = [](const RunResult& r, std::size_t i) -> int64_t {
        return r.clusterOf[i] == RunResult::kNoCluster ? -1 : int64_t(r.clusterOf[i]);
    };
    auto row = [&](std::size_t i, const RunResult& removing) {
        RunDiffRow r;
        r.docIndex = static_cast<uint32_t>(i);
        r.docId = std::string(docs.id(i));
        r.clusterA = cluster(a, i);
        r.clusterB = cluster(b, i);
        r.representative = removing.removedFor.empty()
                               ? removing.representative[removing.clusterOf[i]]
                               : removing.removedFor[i];
        r.representativeId = std::string(docs.id(r.representative));
        return r;
    };
    const std::size_t n = docs.size();
    for (std::size_t i = 0; i < n; ++i) {
        const bool ra = a.removed(i), rb = b.removed(i);
        d.removedA += ra ? 1 : 0;
        d.removedB += rb ? 1 : 0;
        if (rb && !ra) d.newlyRemoved.push_back(row(i, b));
        if (ra && !rb) d.noLongerRemoved.push_back(row(i, a));
    }
}

}  // namespace

RunDiff diffRuns(const std::string& projectPath, int64_t runA, int64_t runB) {
    Db db(projectPath);
    const RunRow a = runRow(db.get(), runA);
    const RunRow b = runRow(db.get(), runB);
    if (a.dataset != b.dataset)
        throw std::runtime_error("runs " + std::to_string(runA) + " and " + std::to_string(runB) +
                                 " read different datasets (" + std::to_string(a.dataset) +
                                 " and " + std::to_string(b.dataset) +
                                 "): their documents cannot be matched");
    RunDiff d;
    d.runA = runA;
    d.runB = runB;
    d.datasetId = a.dataset;
    d.documents = a.documents;
    if (hasDecisions(db.get(), d.datasetId)) {
        // Decisions are applied when a run is loaded, not stored in its clusters: compare the
        // outcomes an export would write.
        ProjectStore store(projectPath);
        const RunResult outA = store.loadRun(runA), outB = store.loadRun(runB);
        DocumentTable docs;
        store.loadDataset(d.datasetId, &docs);
        if (outA.clusterOf.size() != docs.size() || outB.clusterOf.size() != docs.size())
            throw std::runtime_error("runs " + std::to_string(runA) + " and " +
                                     std::to_string(runB) + " do not cover the dataset");
        diffOutcomes(outA, outB, docs, d);
        d.removedBoth = d.removedA - d.noLongerRemoved.size();
        return d;
    }
    // One read transaction, so both directions see the same state of the file.
    sqlite3_exec(db.get(), "BEGIN", nullptr, nullptr, nullptr);
    try {
        d.removedA = removedCount(db.get(), runA);
        d.removedB = removedCount(db.get(), runB);
        d.newlyRemoved = removedOnlyBy(db.get(), runB, runA, d.datasetId, true);
        d.noLongerRemoved = removedOnlyBy(db.get(), runA, runB, d.datasetId, false);
    } catch (...) {
        sqlite3_exec(db.get(), "COMMIT", nullptr, nullptr, nullptr);
        throw;
    }
    sqlite3_exec(db.get(), "COMMIT", nullptr, nullptr, nullptr);
    d.removedBoth = d.removedA - d.noLongerRemoved.size();
    return d;
}

}  // namespace neardup
