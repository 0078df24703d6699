#include "project_queries.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string_view>

#include "clustering.h"

namespace neardup {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

[[noreturn]] void fail(sqlite3* db, std::string_view what) {
    throw QueryError(std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

// A prepared statement that finalizes itself; errors throw QueryError with SQLite's message.
class Stmt {
  public:
    Stmt(sqlite3* db, std::string_view sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s_, nullptr) !=
            SQLITE_OK)
            fail(db, "cannot prepare query");
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, int64_t v) {
        check(sqlite3_bind_int64(s_, i, v));
        return *this;
    }
    Stmt& bind(int i, double v) {
        check(sqlite3_bind_double(s_, i, v));
        return *this;
    }
    Stmt& bind(int i, const std::string& v) {
        check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
        return *this;
    }
    Stmt& bindNull(int i) {
        check(sqlite3_bind_null(s_, i));
        return *this;
    }
    void reset() { sqlite3_reset(s_); }
    bool step() {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail(db_, "query failed");
    }
    bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
    uint64_t u64(int c) const { return static_cast<uint64_t>(i64(c)); }
    uint32_t u32(int c) const { return static_cast<uint32_t>(i64(c)); }
    int i32(int c) const { return static_cast<int>(i64(c)); }
    double real(int c) const { return null(c) ? kNaN : sqlite3_column_double(s_, c); }
    std::string text(int c) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
                 : std::string();
    }

  private:
    void check(int rc) const {
        if (rc != SQLITE_OK) fail(db_, "cannot bind a query parameter");
    }
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, sql);
}

const char* sortColumn(ClusterSort s) {
    switch (s) {
        case ClusterSort::Cluster:
            return "cluster";
        case ClusterSort::Size:
            return "size";
        case ClusterSort::Representative:
            return "rep_id";
        case ClusterSort::MinEstimated:
            return "min_est";
        case ClusterSort::MeanEstimated:
            return "mean_est";
        case ClusterSort::MinExact:
            return "min_exact";
        case ClusterSort::Decision:
            return "decision";
    }
    return "cluster";
}

// LIKE pattern matching `needle` anywhere, with LIKE's wildcards escaped.
std::string containsPattern(const std::string& needle) {
    std::string p = "%";
    for (const char c : needle) {
        if (c == '%' || c == '_' || c == '\\') p += '\\';
        p += c;
    }
    return p + "%";
}

// Where a cluster is read from: the stored tables, or the audited pieces in temp.
struct Tables {
    const char* clusters;
    const char* members;
};

Tables tablesFor(bool adjusted) {
    return adjusted ? Tables{"temp.adj_clusters", "temp.adj_members"}
                    : Tables{"main.clusters", "main.cluster_members"};
}

// Clusters with a member matching `memberCond` (over m, and d when `withDocs`): stored clusters
// not replaced by audited pieces, and the pieces.
std::string memberMatch(const std::string& memberCond, bool withDocs) {
    const std::string docs =
        withDocs ? " JOIN documents d ON d.dataset_id = ?2 AND d.doc_index = m.doc_index" : "";
    return " AND cluster IN (SELECT m.cluster FROM main.cluster_members m" + docs +
           " WHERE m.run_id = ?1 AND " + memberCond +
           " AND m.cluster NOT IN (SELECT cluster FROM temp.touched WHERE run_id = ?1)"
           " UNION SELECT m.cluster FROM temp.adj_members m" +
           docs + " WHERE m.run_id = ?1 AND " + memberCond + ")";
}

// WHERE clause over temp.cluster_summary; ?1 = run, ?2 = dataset, ?3 = pattern, ?4 = min size.
std::string clusterWhere(const ClusterFilter& f) {
    std::string w = " WHERE run_id = ?1";
    if (f.minSize > 0) w += " AND size >= ?4";
    if (f.decidedOnly) w += " AND decision != 0";
    if (!f.idSearch.empty()) w += memberMatch("d.doc_id LIKE ?3 ESCAPE '\\'", true);
    if (f.documents)
        w += memberMatch("m.doc_index IN (SELECT doc_index FROM temp.filter_docs)", false);
    return w;
}

std::string inList(const std::set<int64_t>& ids) {
    std::string s = "(";
    for (const int64_t id : ids) {
        if (s.size() > 1) s += ',';
        s += std::to_string(id);
    }
    return s + ")";
}

void bindFilter(Stmt& s, int64_t runId, int64_t datasetId, const ClusterFilter& f) {
    s.bind(1, runId);
    if (!f.idSearch.empty()) s.bind(2, datasetId).bind(3, containsPattern(f.idSearch));
    if (f.minSize > 0) s.bind(4, static_cast<int64_t>(f.minSize));
}

InputFile::Compression compressionFromName(const std::string& s) {
    if (s == "gzip") return InputFile::Compression::Gzip;
    if (s == "zstd") return InputFile::Compression::Zstd;
    return InputFile::Compression::None;
}

}  // namespace

ProjectQueries::ProjectQueries(const std::string& path) : path_(path) {
    const int rc =
        sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw QueryError("cannot open " + path + ": " + msg);
    }
    // A pipeline may be committing a run from another connection; wait for it.
    sqlite3_busy_timeout(db_, 5000);
    try {
        Stmt s(db_, "SELECT value FROM meta WHERE key = 'format'");
        if (!s.step() || s.text(0) != "neardup-project")
            throw QueryError(path + " is not a NearDup project");
        // The summary lives in this connection's temp schema, so it never touches the file.
        exec(db_, "PRAGMA temp_store = MEMORY");
        exec(db_,
             "CREATE TEMP TABLE cluster_summary (run_id INTEGER, cluster INTEGER, size INTEGER,"
             " representative INTEGER, rep_id TEXT, pairs INTEGER, min_est REAL, mean_est REAL,"
             " min_exact REAL, mean_exact REAL, decision INTEGER NOT NULL DEFAULT 0,"
             " PRIMARY KEY (run_id, cluster)) WITHOUT ROWID");
        // The audited clustering of runs whose dataset has decisions, in the stored layout.
        exec(db_,
             "CREATE TEMP TABLE adj_clusters (run_id INTEGER, cluster INTEGER,"
             " representative INTEGER, size INTEGER, keep_all INTEGER, decision INTEGER,"
             " PRIMARY KEY (run_id, cluster)) WITHOUT ROWID");
        exec(db_,
             "CREATE TEMP TABLE touched (run_id INTEGER, cluster INTEGER,"
             " PRIMARY KEY (run_id, cluster)) WITHOUT ROWID");
        exec(db_,
             "CREATE TEMP TABLE adj_members (run_id INTEGER, doc_index INTEGER, cluster INTEGER,"
             " removed_for INTEGER, PRIMARY KEY (run_id, doc_index)) WITHOUT ROWID");
        exec(db_, "CREATE INDEX temp.adj_members_by_cluster ON adj_members (run_id, cluster)");
        exec(db_, "CREATE TEMP TABLE filter_docs (doc_index INTEGER PRIMARY KEY)");
        for (const char* col : {"size", "rep_id", "min_est", "mean_est", "min_exact", "decision"}) {
            const std::string sql = std::string("CREATE INDEX temp.cluster_summary_by_") + col +
                                    " ON cluster_summary (run_id, " + col + ", cluster)";
            exec(db_, sql.c_str());
        }
    } catch (const std::exception& e) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw QueryError(std::string("cannot read ") + path + ": " + e.what());
    }
}

ProjectQueries::~ProjectQueries() {
    sqlite3_close_v2(db_);
}

void ProjectQueries::interrupt() {
    sqlite3_interrupt(db_);
}

std::vector<int64_t> ProjectQueries::runIds() {
    std::vector<int64_t> ids;
    Stmt s(db_, "SELECT id FROM runs ORDER BY id");
    while (s.step())
        ids.push_back(s.i64(0));
    return ids;
}

RunInfo ProjectQueries::runInfo(int64_t runId) {
    Stmt s(db_,
           "SELECT dataset_id, status, text_field, id_field, keep_field, chunk_bytes, nfc,"
           " lowercase, collapse_whitespace, trim, shingle, ngram, hashes, hash_family, seed,"
           " bands, rows, bucket_key, buckets, lsh_buckets, resolved_buckets, threshold,"
           " store_floor, verify, keep_policy, requested_threads, requested_backend, documents,"
           " candidate_pairs, stored_pairs, duplicate_pairs, clusters, kept, removed, decide,"
           " chained_removals FROM runs WHERE id = ?1");
    s.bind(1, runId);
    if (!s.step()) throw QueryError("no run " + std::to_string(runId) + " in the project");
    RunInfo r;
    r.runId = runId;
    r.datasetId = s.i64(0);
    r.status = s.text(1);
    RunParams& p = r.params;
    p.reader.textField = s.text(2);
    p.reader.idField = s.text(3);
    p.reader.keepField = s.text(4);
    p.reader.chunkBytes = static_cast<std::size_t>(s.i64(5));
    p.signature.normalize = {s.i64(6) != 0, s.i64(7) != 0, s.i64(8) != 0, s.i64(9) != 0};
    p.signature.shingle = parseShingleKind(s.text(10)).value_or(ShingleKind::Char);
    p.signature.ngram = s.i32(11);
    p.signature.hashes = s.i32(12);
    p.signature.family = parseHashFamily(s.text(13)).value_or(HashFamily::Permute);
    p.signature.seed = s.u64(14);
    p.lsh.bands = s.i32(15);
    p.lsh.rows = s.i32(16);
    p.lsh.scheme = parseBandKeyScheme(s.text(17)).value_or(BandKeyScheme::Hash);
    uint64_t buckets = 0;
    if (!parseBuckets(s.text(18), p.lsh.bucketMode, buckets)) p.lsh.bucketMode = BucketMode::Exact;
    p.lsh.buckets = s.u64(19);
    r.resolvedBuckets = s.u64(20);
    p.compare.threshold = s.real(21);
    p.compare.storeFloor = s.real(22);
    p.compare.verify = static_cast<VerifyMode>(s.i64(23));
    std::string keepField;
    if (parseKeepPolicy(s.text(24), p.keep, keepField) && !keepField.empty())
        p.reader.keepField = keepField;
    p.threads = s.i32(25);
    p.backend = s.text(26);
    r.documents = s.u64(27);
    r.candidatePairs = s.u64(28);
    r.storedPairs = s.u64(29);
    r.duplicatePairs = s.u64(30);
    r.clusters = s.u64(31);
    r.kept = s.u64(32);
    r.removed = s.u64(33);
    p.decide = parseDecideRule(s.text(34)).value_or(DecideRule::Components);
    r.chainedRemovals = s.u64(35);
    return r;
}

DatasetSource ProjectQueries::datasetSource(int64_t datasetId) {
    DatasetSource d;
    d.datasetId = datasetId;
    {
        Stmt s(db_,
               "SELECT json_extract(reader_json, '$.text_field'),"
               " json_extract(reader_json, '$.id_field'),"
               " json_extract(reader_json, '$.keep_field'), documents FROM datasets WHERE id = ?1");
        s.bind(1, datasetId);
        if (!s.step())
            throw QueryError("no dataset " + std::to_string(datasetId) + " in the project");
        d.reader.textField = s.text(0);
        d.reader.idField = s.text(1);
        d.reader.keepField = s.text(2);
        d.documents = s.u64(3);
    }
    // The files with their pins (input_pin.h); a project of schema version < 3 has none.
    const bool pinned = [&] {
        Stmt v(db_, "PRAGMA user_version");
        return v.step() && v.i64(0) >= 3;
    }();
    Stmt s(db_, std::string("SELECT path, size, mtime_ns, compression") +
                    (pinned ? ", ctime_ns, device, inode, content_bytes, fingerprint" : "") +
                    " FROM dataset_files WHERE dataset_id = ?1 ORDER BY file_index");
    s.bind(1, datasetId);
    while (s.step()) {
        InputFile f;
        f.path = s.text(0);
        // A relative path (stored by versions before 0.2): relative to the project's folder.
        if (!f.path.empty() && f.path.front() != '/') {
            std::error_code ec;
            const auto dir = std::filesystem::absolute(path_, ec).parent_path();
            if (!ec) f.path = (dir / f.path).lexically_normal().string();
        }
        f.size = s.u64(1);
        f.mtimeNs = s.i64(2);
        f.compression = compressionFromName(s.text(3));
        if (pinned) {
            f.ctimeNs = s.i64(4);
            f.device = s.u64(5);
            f.inode = s.u64(6);
            f.fingerprinted = !s.null(7) && !s.null(8);
            f.contentBytes = f.fingerprinted ? s.u64(7) : 0;
            f.fingerprint = f.fingerprinted ? s.u64(8) : 0;
        }
        d.files.push_back(std::move(f));
    }
    return d;
}

DocumentLocation ProjectQueries::documentLocation(int64_t datasetId, uint32_t docIndex) {
    Stmt s(db_,
           "SELECT file_index, line, offset, length FROM documents"
           " WHERE dataset_id = ?1 AND doc_index = ?2");
    s.bind(1, datasetId).bind(2, int64_t{docIndex});
    if (!s.step()) throw QueryError("no document " + std::to_string(docIndex) + " in the dataset");
    return {s.u32(0), s.u64(1), s.u64(2), s.u32(3)};
}

std::string ProjectQueries::documentId(int64_t datasetId, uint32_t docIndex) {
    Stmt s(db_, "SELECT doc_id FROM documents WHERE dataset_id = ?1 AND doc_index = ?2");
    s.bind(1, datasetId).bind(2, int64_t{docIndex});
    return s.step() ? s.text(0) : std::string();
}

std::vector<Decision> ProjectQueries::decisions(int64_t datasetId) {
    try {
        return listDecisions(db_, datasetId);
    } catch (const std::exception& e) {
        throw QueryError(e.what());
    }
}

namespace {

bool sameDecisions(const std::vector<Decision>& x, const std::vector<Decision>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i].id != y[i].id || x[i].kind != y[i].kind || x[i].a != y[i].a || x[i].b != y[i].b)
            return false;
    return true;
}

}  // namespace

void ProjectQueries::insertSummary(const RunInfo& run, bool adjusted, const std::string& only) {
    const Tables t = tablesFor(adjusted);
    const std::string onlyA = only.empty() ? std::string() : " AND ma.cluster IN " + only;
    const std::string onlyC = only.empty() ? std::string() : " AND c.cluster IN " + only;
    // Statistics over the stored pairs whose two members ended in the same cluster; a cluster
    // joined only through pairs below the store floor cannot exist, so every cluster has one.
    Stmt s(db_,
           std::string("INSERT OR REPLACE INTO temp.cluster_summary"
                       " SELECT c.run_id, c.cluster, c.size, c.representative, d.doc_id,"
                       " coalesce(st.n, 0), st.min_m * 1.0 / ?3, st.mean_m / ?3,"
                       " st.min_x, st.mean_x, ") +
               (adjusted ? "c.decision" : "0") + " FROM " + t.clusters +
               " c JOIN documents d ON d.dataset_id = ?2 AND d.doc_index = c.representative"
               " LEFT JOIN (SELECT ma.cluster AS cluster, count(*) AS n,"
               "   min(p.matches) AS min_m, avg(p.matches) AS mean_m,"
               "   min(p.exact) AS min_x, avg(p.exact) AS mean_x FROM " +
               t.members + " ma JOIN pairs p ON p.run_id = ma.run_id AND p.a = ma.doc_index JOIN " +
               t.members +
               " mb ON mb.run_id = p.run_id AND mb.doc_index = p.b"
               "   WHERE ma.run_id = ?1 AND ma.cluster = mb.cluster" +
               onlyA + " GROUP BY ma.cluster) st ON st.cluster = c.cluster WHERE c.run_id = ?1" +
               onlyC);
    s.bind(1, run.runId)
        .bind(2, run.datasetId)
        .bind(3, static_cast<double>(run.params.signature.hashes));
    s.step();
}

void ProjectQueries::buildPieces(const RunInfo& run, int64_t cluster, int64_t storedClusters,
                                 const std::vector<Decision>& list) {
    // The stored cluster's members and pairs, renumbered 0..k-1 in document order.
    std::vector<uint32_t> doc;
    DocumentTable local;
    {
        Stmt s(db_,
               "SELECT m.doc_index, d.chars, d.keep_value FROM main.cluster_members m"
               " JOIN documents d ON d.dataset_id = ?2 AND d.doc_index = m.doc_index"
               " WHERE m.run_id = ?1 AND m.cluster = ?3 ORDER BY m.doc_index");
        s.bind(1, run.runId).bind(2, run.datasetId).bind(3, cluster);
        while (s.step()) {
            doc.push_back(s.u32(0));
            local.file.push_back(0);
            local.chars.push_back(s.u32(1));
            local.keepValue.push_back(s.real(2));
        }
    }
    auto localOf = [&doc](uint32_t d) -> std::optional<uint32_t> {
        const auto it = std::lower_bound(doc.begin(), doc.end(), d);
        if (it == doc.end() || *it != d) return std::nullopt;
        return static_cast<uint32_t>(it - doc.begin());
    };
    std::vector<ScoredPair> pairs;
    {
        Stmt s(db_,
               "SELECT p.a, p.b, p.matches, p.exact FROM main.cluster_members ma"
               " JOIN pairs p ON p.run_id = ma.run_id AND p.a = ma.doc_index"
               " JOIN main.cluster_members mb ON mb.run_id = p.run_id AND mb.doc_index = p.b"
               " WHERE ma.run_id = ?1 AND ma.cluster = ?2 AND mb.cluster = ?2");
        s.bind(1, run.runId).bind(2, cluster);
        while (s.step()) {
            const auto a = localOf(s.u32(0)), b = localOf(s.u32(1));
            if (!a || !b) continue;
            pairs.push_back({*a, *b, s.u32(2), s.null(3) ? -1.0f : static_cast<float>(s.real(3))});
        }
    }
    std::sort(pairs.begin(), pairs.end());
    std::vector<Decision> mine;
    for (const Decision& d : list) {
        const auto a = localOf(d.a);
        if (!a) continue;
        Decision m = d;
        m.a = *a;
        if (d.kind == DecisionKind::NotDuplicate) {
            const auto b = localOf(d.b);
            if (!b) continue;
            m.b = *b;
        }
        mine.push_back(m);
    }
    RunResult r;
    const AppliedDecisions applied =
        clusterWithDecisions(pairs, run.params.signature.hashes, run.params.compare.threshold,
                             run.params.keep, run.params.decide, local, mine, r);
    // Pieces are numbered by their smallest member: the first keeps the stored number, the
    // others get the run's cluster count plus their smallest member (unique, stable).
    std::vector<int64_t> id(r.representative.size(), -1);
    std::vector<uint64_t> size(r.representative.size(), 0);
    Stmt m(db_, "INSERT INTO temp.adj_members VALUES (?1, ?2, ?3, ?4)");
    m.bind(1, run.runId);
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const uint32_t k = r.clusterOf[i];
        if (k == RunResult::kNoCluster) continue;
        if (id[k] < 0) id[k] = k == 0 ? cluster : storedClusters + int64_t{doc[i]};
        ++size[k];
        m.bind(2, int64_t{doc[i]}).bind(3, id[k]);
        if (r.removed(i))
            m.bind(4, int64_t{doc[r.removedFor[i]]});
        else
            m.bindNull(4);
        m.step();
        m.reset();
    }
    Stmt c(db_, "INSERT INTO temp.adj_clusters VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    c.bind(1, run.runId);
    for (std::size_t k = 0; k < r.representative.size(); ++k) {
        const bool whole = !r.keepAll.empty() && r.keepAll[k];
        c.bind(2, id[k])
            .bind(3, int64_t{doc[r.representative[k]]})
            .bind(4, static_cast<int64_t>(size[k]))
            .bind(5, int64_t{whole ? 1 : 0})
            .bind(6, int64_t{applied.clusterMarks[k]});
        c.step();
        c.reset();
    }
}

ProjectQueries::RunView& ProjectQueries::ensureClusterSummary(int64_t runId) {
    const RunInfo run = runInfo(runId);
    std::vector<Decision> now = decisions(run.datasetId);
    RunView& v = views_[runId];
    if (v.built && sameDecisions(v.decisions, now)) return v;
    exec(db_, "SAVEPOINT summary");
    try {
        auto del = [&](const std::string& sql) {
            Stmt d(db_, sql);
            d.bind(1, runId);
            d.step();
        };
        if (!v.built) {
            // The first listing of the run: one pass over its stored clustering.
            del("DELETE FROM temp.cluster_summary WHERE run_id = ?1");
            insertSummary(run, false, {});
            Stmt c(db_,
                   "SELECT coalesce(max(cluster) + 1, 0) FROM main.clusters WHERE run_id = ?1");
            c.bind(1, runId);
            v.storedClusters = c.step() ? c.i64(0) : 0;
            v.touched.clear();
        }
        // Decisions reach only the stored clusters holding their documents (a not_duplicate
        // pair only when both are in one): those are replaced by their audited pieces.
        std::set<int64_t> touched;
        {
            Stmt s(db_,
                   "SELECT cluster FROM main.cluster_members WHERE run_id = ?1 AND doc_index = ?2");
            s.bind(1, runId);
            auto clusterOf = [&](uint32_t doc) {
                s.bind(2, int64_t{doc});
                const int64_t c = s.step() ? s.i64(0) : -1;
                s.reset();
                return c;
            };
            for (const Decision& d : now) {
                const int64_t a = clusterOf(d.a);
                if (a < 0) continue;
                if (d.kind != DecisionKind::NotDuplicate || clusterOf(d.b) == a) touched.insert(a);
            }
        }
        std::set<int64_t> dirty = v.touched;
        dirty.insert(touched.begin(), touched.end());
        {
            Stmt d(db_,
                   "DELETE FROM temp.cluster_summary WHERE run_id = ?1 AND (cluster >= ?2"
                   " OR cluster IN " +
                       inList(dirty) + ")");
            d.bind(1, runId).bind(2, v.storedClusters);
            d.step();
        }
        del("DELETE FROM temp.adj_members WHERE run_id = ?1");
        del("DELETE FROM temp.adj_clusters WHERE run_id = ?1");
        del("DELETE FROM temp.touched WHERE run_id = ?1");
        {
            Stmt t(db_, "INSERT INTO temp.touched VALUES (?1, ?2)");
            t.bind(1, runId);
            for (const int64_t c : touched) {
                buildPieces(run, c, v.storedClusters, now);
                t.bind(2, c);
                t.step();
                t.reset();
            }
        }
        if (!touched.empty()) insertSummary(run, true, {});
        std::set<int64_t> restored;
        for (const int64_t c : v.touched)
            if (!touched.count(c)) restored.insert(c);
        if (!restored.empty()) insertSummary(run, false, inList(restored));
        exec(db_, "RELEASE summary");
        v.built = true;
        v.decisions = std::move(now);
        v.touched = std::move(touched);
        return v;
    } catch (...) {
        views_.erase(runId);
        sqlite3_exec(db_, "ROLLBACK TO summary; RELEASE summary", nullptr, nullptr, nullptr);
        throw;
    }
}

void ProjectQueries::useDocumentFilter(const ClusterFilter& f) {
    if (!f.documents || f.documents == filterDocuments_) return;
    exec(db_, "SAVEPOINT filter");
    try {
        exec(db_, "DELETE FROM temp.filter_docs");
        Stmt s(db_, "INSERT OR IGNORE INTO temp.filter_docs VALUES (?1)");
        for (const uint32_t d : *f.documents) {
            s.bind(1, int64_t{d});
            s.step();
            s.reset();
        }
        exec(db_, "RELEASE filter");
    } catch (...) {
        filterDocuments_.reset();
        sqlite3_exec(db_, "ROLLBACK TO filter; RELEASE filter", nullptr, nullptr, nullptr);
        throw;
    }
    filterDocuments_ = f.documents;
}

uint64_t ProjectQueries::clusterCount(int64_t runId, const ClusterFilter& filter) {
    ensureClusterSummary(runId);
    useDocumentFilter(filter);
    const int64_t datasetId = filter.idSearch.empty() ? 0 : runInfo(runId).datasetId;
    Stmt s(db_, "SELECT count(*) FROM temp.cluster_summary" + clusterWhere(filter));
    bindFilter(s, runId, datasetId, filter);
    return s.step() ? s.u64(0) : 0;
}

std::vector<ClusterRow> ProjectQueries::clusters(int64_t runId, const ClusterFilter& filter,
                                                 ClusterSort sort, bool descending, uint64_t offset,
                                                 uint64_t limit) {
    ensureClusterSummary(runId);
    useDocumentFilter(filter);
    const int64_t datasetId = filter.idSearch.empty() ? 0 : runInfo(runId).datasetId;
    const char* dir = descending ? " DESC" : " ASC";
    std::string sql =
        "SELECT cluster, size, representative, rep_id, pairs, min_est, mean_est, min_exact,"
        " mean_exact, decision FROM temp.cluster_summary" +
        clusterWhere(filter) + " ORDER BY " + sortColumn(sort) + dir;
    if (sort != ClusterSort::Cluster) sql += std::string(", cluster") + dir;
    sql += " LIMIT ?5 OFFSET ?6";
    Stmt s(db_, sql);
    bindFilter(s, runId, datasetId, filter);
    s.bind(5, static_cast<int64_t>(limit)).bind(6, static_cast<int64_t>(offset));
    std::vector<ClusterRow> rows;
    while (s.step()) {
        ClusterRow r;
        r.cluster = s.i64(0);
        r.size = s.u64(1);
        r.representative = s.u32(2);
        r.representativeId = s.text(3);
        r.pairs = s.u64(4);
        r.minEstimated = s.real(5);
        r.meanEstimated = s.real(6);
        r.minExact = s.real(7);
        r.meanExact = s.real(8);
        r.decisions = static_cast<uint8_t>(s.i64(9));
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<ClusterMember> ProjectQueries::clusterMembers(int64_t runId, int64_t cluster,
                                                          uint64_t limit) {
    const RunView& v = ensureClusterSummary(runId);
    const bool adjusted = v.audited(cluster);
    const Tables t = tablesFor(adjusted);
    Stmt s(db_, std::string("SELECT m.doc_index, d.doc_id, m.doc_index = c.representative,"
                            " d.chars, d.file_index, d.line, d.offset, d.length, ") +
                    (adjusted ? "c.keep_all" : "0") + ", m.removed_for FROM " + t.members +
                    " m JOIN runs r ON r.id = m.run_id"
                    " JOIN " +
                    t.clusters +
                    " c ON c.run_id = m.run_id AND c.cluster = m.cluster"
                    " JOIN documents d ON d.dataset_id = r.dataset_id AND"
                    " d.doc_index = m.doc_index"
                    " WHERE m.run_id = ?1 AND m.cluster = ?2 ORDER BY m.doc_index LIMIT ?3");
    s.bind(1, runId).bind(2, cluster).bind(3, limit ? static_cast<int64_t>(limit) : int64_t{-1});
    std::vector<ClusterMember> members;
    while (s.step()) {
        ClusterMember m;
        m.docIndex = s.u32(0);
        m.docId = s.text(1);
        m.representative = s.i64(2) != 0;
        m.chars = s.u32(3);
        m.location = {s.u32(4), s.u64(5), s.u64(6), s.u32(7)};
        m.keptWhole = s.i64(8) != 0;
        if (!s.null(9) && !m.keptWhole) m.removedFor = s.i64(9);
        m.kept = m.removedFor < 0;
        members.push_back(std::move(m));
    }
    return members;
}

std::vector<PairRow> ProjectQueries::clusterPairs(int64_t runId, int64_t cluster, uint64_t limit) {
    const RunView& v = ensureClusterSummary(runId);
    const Tables t = tablesFor(v.audited(cluster));
    Stmt s(db_, std::string("SELECT p.a, p.b, p.matches, p.matches * 1.0 / r.hashes, p.exact"
                            " FROM ") +
                    t.members +
                    " ma JOIN pairs p ON p.run_id = ma.run_id AND p.a = ma.doc_index"
                    " JOIN " +
                    t.members +
                    " mb ON mb.run_id = p.run_id AND mb.doc_index = p.b"
                    " JOIN runs r ON r.id = p.run_id"
                    " WHERE ma.run_id = ?1 AND ma.cluster = ?2 AND mb.cluster = ?2"
                    " ORDER BY p.a, p.b LIMIT ?3");
    s.bind(1, runId).bind(2, cluster).bind(3, limit ? static_cast<int64_t>(limit) : int64_t{-1});
    std::vector<PairRow> pairs;
    std::vector<DocPair> cut;
    for (const Decision& d : v.decisions)
        if (d.kind == DecisionKind::NotDuplicate)
            cut.emplace_back(std::min(d.a, d.b), std::max(d.a, d.b));
    std::sort(cut.begin(), cut.end());
    while (s.step()) {
        PairRow p{s.u32(0), s.u32(1), s.u32(2), s.real(3), s.real(4)};
        p.notDuplicate = std::binary_search(cut.begin(), cut.end(), DocPair{p.a, p.b});
        pairs.push_back(p);
    }
    return pairs;
}

int64_t ProjectQueries::clusterOfDocument(int64_t runId, uint32_t docIndex) {
    const RunView& v = ensureClusterSummary(runId);
    {
        Stmt s(db_, "SELECT cluster FROM temp.adj_members WHERE run_id = ?1 AND doc_index = ?2");
        s.bind(1, runId).bind(2, int64_t{docIndex});
        if (s.step()) return s.i64(0);
    }
    Stmt s(db_, "SELECT cluster FROM main.cluster_members WHERE run_id = ?1 AND doc_index = ?2");
    s.bind(1, runId).bind(2, int64_t{docIndex});
    if (!s.step()) return -1;
    const int64_t c = s.i64(0);
    return v.touched.count(c) ? -1 : c;  // split off alone by a decision
}

std::vector<std::pair<uint32_t, DocumentLocation>> ProjectQueries::clusteredDocuments(
    int64_t runId) {
    const RunInfo run = runInfo(runId);
    // Membership of the stored clustering: decisions only split clusters or change who is kept,
    // so the audited clusters hold the same documents less those split off alone.
    Stmt s(db_,
           "SELECT m.doc_index, d.file_index, d.line, d.offset, d.length FROM cluster_members m"
           " JOIN documents d ON d.dataset_id = ?2 AND d.doc_index = m.doc_index"
           " WHERE m.run_id = ?1 ORDER BY m.doc_index");
    s.bind(1, runId).bind(2, run.datasetId);
    std::vector<std::pair<uint32_t, DocumentLocation>> out;
    while (s.step())
        out.emplace_back(s.u32(0), DocumentLocation{s.u32(1), s.u64(2), s.u64(3), s.u32(4)});
    return out;
}

std::vector<BandRow> ProjectQueries::bandStats(int64_t runId) {
    Stmt s(db_,
           "SELECT band, buckets, multi_buckets, mean_size, stddev_size, max_size, comparisons,"
           " outlier_count FROM band_stats WHERE run_id = ?1 ORDER BY band");
    s.bind(1, runId);
    std::vector<BandRow> rows;
    while (s.step())
        rows.push_back(
            {s.i32(0), s.u64(1), s.u64(2), s.real(3), s.real(4), s.u64(5), s.u64(6), s.u64(7)});
    return rows;
}

std::vector<HistogramBin> ProjectQueries::histogram(int64_t runId, int band) {
    Stmt s(db_, band >= 0
                    ? "SELECT bin, size_min, size_max, count FROM band_histogram"
                      " WHERE run_id = ?1 AND band = ?2 ORDER BY bin"
                    : "SELECT bin, min(size_min), max(size_max), sum(count) FROM band_histogram"
                      " WHERE run_id = ?1 GROUP BY bin ORDER BY bin");
    s.bind(1, runId);
    if (band >= 0) s.bind(2, int64_t{band});
    std::vector<HistogramBin> bins;
    while (s.step())
        bins.push_back({s.i32(0), s.u64(1), s.u64(2), s.u64(3)});
    return bins;
}

std::vector<OutlierRow> ProjectQueries::outliers(int64_t runId, int band) {
    Stmt s(db_,
           "SELECT o.band, o.key, o.size, o.comparisons,"
           " o.comparisons * 1.0 / nullif((SELECT sum(comparisons) FROM band_stats"
           "   WHERE run_id = ?1), 0)"
           " FROM outlier_buckets o WHERE o.run_id = ?1 AND (?2 < 0 OR o.band = ?2)"
           " ORDER BY o.size DESC, o.band, o.rank");
    s.bind(1, runId).bind(2, int64_t{band});
    std::vector<OutlierRow> rows;
    while (s.step()) {
        const double share = s.real(4);
        rows.push_back({s.i32(0), s.u64(1), s.u64(2), s.u64(3), std::isnan(share) ? 0.0 : share});
    }
    return rows;
}

SizeMoments ProjectQueries::bucketSizeMoments(int64_t runId, int band) {
    // Pooled over bands: E[x] and E[x^2] weighted by each band's bucket count.
    Stmt s(db_,
           "SELECT sum(buckets), sum(buckets * mean_size),"
           " sum(buckets * (stddev_size * stddev_size + mean_size * mean_size))"
           " FROM band_stats WHERE run_id = ?1 AND (?2 < 0 OR band = ?2)");
    s.bind(1, runId).bind(2, int64_t{band});
    SizeMoments m;
    if (!s.step() || s.null(0) || s.i64(0) == 0) return m;
    m.buckets = s.u64(0);
    const auto n = static_cast<double>(m.buckets);
    m.mean = s.real(1) / n;
    const double second = s.real(2) / n;
    m.stddev = std::sqrt(std::max(0.0, second - m.mean * m.mean));
    return m;
}

}  // namespace neardup
