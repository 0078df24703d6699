// The workbench's cluster listing (project_queries.h): a per-connection summary of a run's
// clusters in the temp schema, audited pieces of the clusters a decision reaches, pages,
// members and pairs.
#include "project_queries.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string_view>

#include "adjusted_clusters.h"
#include "clustering.h"
#include "dataset_rows.h"
#include "decision_rows.h"
#include "row_fields.h"
#include "run_rows.h"
#include "sqlite_handle.h"

namespace neardup {

namespace {

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
        case ClusterSort::Diameter:
            return "diameter";
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

// Where a cluster is read from: the stored tables, or the audited pieces in temp, which alone
// carry a cluster's decision and whether it is kept whole (a stored cluster has neither: 0).
struct Tables {
    const char* clusters;
    const char* members;
    const char* decision;
    const char* keepAll;

    // `query` with {clusters}, {members}, {decision} and {keep_all} filled in, so that one SQL
    // text reads either kind of cluster.
    std::string sql(std::string_view query) const {
        return fmt::format(fmt::runtime(query), fmt::arg("clusters", clusters),
                           fmt::arg("members", members), fmt::arg("decision", decision),
                           fmt::arg("keep_all", keepAll));
    }
};

Tables tablesFor(bool adjusted) {
    return adjusted ? Tables{"temp.adj_clusters", "temp.adj_members", "c.decision", "c.keep_all"}
                    : Tables{"main.clusters", "main.cluster_members", "0", "0"};
}

// A listing of one cluster's rows, `query` read from the audited pieces when `audited`: ?1 the
// run, ?2 the cluster, ?3 the LIMIT (0: every row, which SQLite spells -1).
sql::Statement clusterPage(const sql::Database& db, bool audited, int64_t runId, int64_t cluster,
                           uint64_t limit, std::string_view query) {
    sql::Statement s = db.prepare(tablesFor(audited).sql(query));
    s.bind(1, runId).bind(2, cluster).bind(3, limit ? static_cast<int64_t>(limit) : int64_t{-1});
    return s;
}

// The condition that documents row `alias` is document `index` of the project's dataset
// `datasetId`, named `dataset` in the SQL (documentRowOf: shared documents are its base's).
std::string documentRow(const sql::Database& db, std::string_view alias, std::string_view dataset,
                        std::string_view index, int64_t datasetId) {
    return store_rows::documentRowOf(alias, dataset, index, store_rows::datasetBase(db, datasetId));
}

// Clusters with a member matching `memberCond` (over m, and d when `docRow`, m's documents row
// condition, is given): stored clusters not replaced by audited pieces, and the pieces.
std::string memberMatch(const std::string& memberCond, const std::string& docRow = {}) {
    const std::string docs = docRow.empty() ? "" : " JOIN documents d ON " + docRow;
    return " AND cluster IN (SELECT m.cluster FROM main.cluster_members m" + docs +
           " WHERE m.run_id = ?1 AND " + memberCond +
           " AND m.cluster NOT IN (SELECT cluster FROM temp.touched WHERE run_id = ?1)"
           " UNION SELECT m.cluster FROM temp.adj_members m" +
           docs + " WHERE m.run_id = ?1 AND " + memberCond + ")";
}

// WHERE clause over temp.cluster_summary; ?1 = run, ?2 = dataset, ?3 = pattern, ?4 = min size;
// `docRow`: a member's documents row condition, for an id search.
std::string clusterWhere(const ClusterFilter& f, const std::string& docRow) {
    std::string w = " WHERE run_id = ?1";
    if (f.minSize > 0) w += " AND size >= ?4";
    if (f.decidedOnly) w += " AND decision != 0";
    if (f.flaggedOnly) w += " AND (chain != 0 OR large != 0)";
    if (f.referenceOnly)
        w += " AND representative < (SELECT reference_documents FROM main.runs WHERE id = ?1)";
    if (!f.idSearch.empty()) w += memberMatch("d.doc_id LIKE ?3 ESCAPE '\\'", docRow);
    if (f.documents) w += memberMatch("m.doc_index IN (SELECT doc_index FROM temp.filter_docs)");
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

void bindFilter(sql::Statement& s, int64_t runId, int64_t datasetId, const ClusterFilter& f) {
    s.bind(1, runId);
    if (!f.idSearch.empty()) s.bind(2, datasetId).bindCopy(3, containsPattern(f.idSearch));
    if (f.minSize > 0) s.bind(4, static_cast<int64_t>(f.minSize));
}

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
    auto s = db_->prepare(
        t.sql("INSERT OR REPLACE INTO temp.cluster_summary (run_id, cluster, size,"
              " representative, rep_id, pairs, min_est, mean_est, min_exact, mean_exact,"
              " decision) SELECT c.run_id, c.cluster, c.size, c.representative, d.doc_id,"
              " coalesce(st.n, 0), st.min_m * 1.0 / ?3, st.mean_m / ?3,"
              " st.min_x, st.mean_x, {decision} FROM {clusters}"
              " c JOIN documents d ON " +
              documentRow(*db_, "d", "?2", "c.representative", run.datasetId) +
              " LEFT JOIN (SELECT ma.cluster AS cluster, count(*) AS n,"
              "   min(p.matches) AS min_m, avg(p.matches) AS mean_m,"
              "   min(p.exact) AS min_x, avg(p.exact) AS mean_x FROM {members}"
              " ma JOIN pairs p ON p.run_id = ma.run_id AND p.a = ma.doc_index JOIN {members}"
              " mb ON mb.run_id = p.run_id AND mb.doc_index = p.b"
              "   WHERE ma.run_id = ?1 AND ma.cluster = mb.cluster") +
        onlyA + " GROUP BY ma.cluster) st ON st.cluster = c.cluster WHERE c.run_id = ?1" + onlyC);
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
        auto s = db_->prepare(
            "SELECT m.doc_index, d.chars, d.keep_value FROM main.cluster_members m"
            " JOIN documents d ON " +
            documentRow(*db_, "d", "?2", "m.doc_index", run.datasetId) +
            " WHERE m.run_id = ?1 AND m.cluster = ?3 ORDER BY m.doc_index");
        s.bind(1, run.runId).bind(2, run.datasetId).bind(3, cluster);
        while (s.step()) {
            doc.push_back(s.u32(0));
            local.file.push_back(0);
            local.chars.push_back(s.u32(1));
            local.keepValue.push_back(s.realOrNaN(2));
        }
    }
    // The reference's documents are a prefix of the dataset, so of the members in document
    // order too: kept first and never removed in the pieces as in the run.
    local.referenceDocuments = static_cast<uint32_t>(
        std::lower_bound(doc.begin(), doc.end(), run.referenceDocuments) - doc.begin());
    auto localOf = [&doc](uint32_t d) -> std::optional<uint32_t> {
        const auto it = std::lower_bound(doc.begin(), doc.end(), d);
        if (it == doc.end() || *it != d) return std::nullopt;
        return static_cast<uint32_t>(it - doc.begin());
    };
    std::vector<ScoredPair> pairs;
    {
        auto s = db_->prepare(
            "SELECT p.a, p.b, p.matches, p.exact FROM main.cluster_members ma"
            " JOIN pairs p ON p.run_id = ma.run_id AND p.a = ma.doc_index"
            " JOIN main.cluster_members mb ON mb.run_id = p.run_id AND mb.doc_index = p.b"
            " WHERE ma.run_id = ?1 AND ma.cluster = ?2 AND mb.cluster = ?2");
        s.bind(1, run.runId).bind(2, cluster);
        while (s.step()) {
            const auto a = localOf(s.u32(0)), b = localOf(s.u32(1));
            if (!a || !b) continue;
            pairs.push_back(
                {*a, *b, s.u32(2), s.isNull(3) ? -1.0f : static_cast<float>(s.realOrNaN(3))});
        }
    }
    std::sort(pairs.begin(), pairs.end());
    std::vector<Decision> mine;
    for (const Decision& d : list) {
        if (!shapesClusters(d.kind)) continue;
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
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const uint32_t k = r.clusterOf[i];
        if (k != RunResult::kNoCluster && id[k] < 0)
            id[k] = k == 0 ? cluster : storedClusters + int64_t{doc[i]};
    }
    insertAdjustedClusters(*db_, run.runId, r, applied.clusterMarks, doc, id);
}

ProjectQueries::RunView& ProjectQueries::ensureClusterSummary(int64_t runId,
                                                              std::optional<double> threshold) {
    const RunInfo run = runInfo(runId);
    std::vector<Decision> now = decisions(run.datasetId);
    RunView& v = views_[runId];
    const double own = run.params.compare.threshold;
    double wanted = threshold ? *threshold : (v.built ? v.threshold : own);
    // The slider's steps land within rounding of the run's own threshold: that is the run's own.
    if (std::isnan(wanted) || std::abs(wanted - own) < 1e-9) wanted = own;
    if (v.built && v.threshold == wanted && sameDecisions(v.decisions, now)) return v;
    v.diametersWhy.reset();  // the listing changes: its diameters are measured again
    if (wanted != own) {
        buildWholeRun(run, wanted, now, v);
        return v;
    }
    if (v.whole) v.built = false;  // back from another threshold: the stored listing again
    try {
        sql::Savepoint summary(*db_, "summary");
        auto del = [&](const std::string& sql) {
            auto d = db_->prepare(sql);
            d.bind(1, runId);
            d.step();
        };
        if (!v.built) {
            // The first listing of the run: one pass over its stored clustering.
            del("DELETE FROM temp.cluster_summary WHERE run_id = ?1");
            insertSummary(run, false, {});
            auto c = db_->prepare(
                "SELECT coalesce(max(cluster) + 1, 0) FROM main.clusters WHERE run_id = ?1");
            c.bind(1, runId);
            v.storedClusters = c.step() ? c.int64(0) : 0;
            v.touched.clear();
        }
        // Decisions reach only the stored clusters holding their documents (a not_duplicate
        // pair only when both are in one): those are replaced by their audited pieces.
        std::set<int64_t> touched;
        {
            auto s = db_->prepare(
                "SELECT cluster FROM main.cluster_members WHERE run_id = ?1 AND doc_index = ?2");
            s.bind(1, runId);
            auto clusterOf = [&](uint32_t doc) {
                s.bind(2, int64_t{doc});
                const int64_t c = s.step() ? s.int64(0) : -1;
                s.reset();
                return c;
            };
            for (const Decision& d : now) {
                if (!shapesClusters(d.kind)) continue;  // a verdict reaches no cluster
                const int64_t a = clusterOf(d.a);
                if (a < 0) continue;
                if (d.kind != DecisionKind::NotDuplicate || clusterOf(d.b) == a) touched.insert(a);
            }
        }
        std::set<int64_t> dirty = v.touched;
        dirty.insert(touched.begin(), touched.end());
        {
            auto d = db_->prepare(
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
            auto t = db_->prepare("INSERT INTO temp.touched VALUES (?1, ?2)");
            t.bind(1, runId);
            for (const int64_t c : touched) {
                buildPieces(run, c, v.storedClusters, now);
                t.bind(2, c);
                t.run();
            }
        }
        if (!touched.empty()) insertSummary(run, true, {});
        std::set<int64_t> restored;
        for (const int64_t c : v.touched)
            if (!touched.count(c)) restored.insert(c);
        if (!restored.empty()) insertSummary(run, false, inList(restored));
        summary.release();
        v.built = true;
        v.whole = false;
        v.threshold = own;
        v.decisions = std::move(now);
        v.touched = std::move(touched);
        return v;
    } catch (...) {
        views_.erase(runId);
        throw;
    }
}

void ProjectQueries::useDocumentFilter(const ClusterFilter& f) {
    if (!f.documents || f.documents == filterDocuments_) return;
    try {
        sql::Savepoint filter(*db_, "filter");
        db_->exec("DELETE FROM temp.filter_docs");
        auto s = db_->prepare("INSERT OR IGNORE INTO temp.filter_docs VALUES (?1)");
        for (const uint32_t d : *f.documents) {
            s.bind(1, int64_t{d});
            s.run();
        }
        filter.release();
    } catch (...) {
        filterDocuments_.reset();
        throw;
    }
    filterDocuments_ = f.documents;
}

uint64_t ProjectQueries::clusterCount(int64_t runId, const ClusterFilter& filter) {
    ensureClusterSummary(runId, filter.threshold);
    useDocumentFilter(filter);
    const int64_t datasetId = filter.idSearch.empty() ? 0 : runInfo(runId).datasetId;
    auto s = db_->prepare("SELECT count(*) FROM temp.cluster_summary" +
                          clusterWhere(filter, documentRow(*db_, "d", "?2", "m.doc_index",
                                                           runInfo(runId).datasetId)));
    bindFilter(s, runId, datasetId, filter);
    return s.step() ? s.u64(0) : 0;
}

ReviewProgress ProjectQueries::reviewProgress(int64_t runId, double threshold) {
    ensureClusterSummary(runId, threshold);
    const int64_t datasetId = runInfo(runId).datasetId;
    ReviewProgress p;
    {
        auto s = db_->prepare("SELECT count(*) FROM temp.cluster_summary WHERE run_id = ?1");
        s.bind(1, runId);
        p.clusters = s.step() ? s.u64(0) : 0;
    }
    std::string named =
        "m.doc_index IN (SELECT doc_a FROM decisions WHERE dataset_id = ?2"
        " UNION SELECT doc_b FROM decisions WHERE dataset_id = ?2 AND doc_b IS NOT NULL";
    if (db_->hasTable("audit_pairs"))
        named +=
            " UNION SELECT p.doc_a FROM audit_pairs p JOIN audit_samples s ON s.id = p.sample_id"
            " WHERE s.run_id = ?1 AND p.verdict IS NOT NULL"
            " UNION SELECT p.doc_b FROM audit_pairs p JOIN audit_samples s ON s.id = p.sample_id"
            " WHERE s.run_id = ?1 AND p.verdict IS NOT NULL";
    named += ")";
    auto s = db_->prepare("SELECT count(*) FROM temp.cluster_summary WHERE run_id = ?1" +
                          memberMatch(named));
    s.bind(1, runId).bind(2, datasetId);
    p.reviewed = s.step() ? s.u64(0) : 0;
    return p;
}

std::vector<ClusterRow> ProjectQueries::clusters(int64_t runId, const ClusterFilter& filter,
                                                 ClusterSort sort, bool descending, uint64_t offset,
                                                 uint64_t limit) {
    ensureClusterSummary(runId, filter.threshold);
    useDocumentFilter(filter);
    const int64_t datasetId = filter.idSearch.empty() ? 0 : runInfo(runId).datasetId;
    const char* dir = descending ? " DESC" : " ASC";
    std::string sql =
        "SELECT cluster, size, representative, rep_id, pairs, min_est, mean_est, min_exact,"
        " mean_exact, decision FROM temp.cluster_summary" +
        clusterWhere(filter,
                     documentRow(*db_, "d", "?2", "m.doc_index", runInfo(runId).datasetId)) +
        " ORDER BY " + sortColumn(sort) + dir;
    if (sort != ClusterSort::Cluster) sql += std::string(", cluster") + dir;
    sql += " LIMIT ?5 OFFSET ?6";
    auto s = db_->prepare(sql);
    bindFilter(s, runId, datasetId, filter);
    s.bind(5, static_cast<int64_t>(limit)).bind(6, static_cast<int64_t>(offset));
    const uint64_t references = runInfo(runId).referenceDocuments;
    std::vector<ClusterRow> rows;
    while (s.step()) {
        ClusterRow r;
        sql::readFields(
            s, 0,
            sql::fields(r.cluster, r.size, r.representative, r.representativeId, r.pairs,
                        sql::orNaN(r.minEstimated), sql::orNaN(r.meanEstimated),
                        sql::orNaN(r.minExact), sql::orNaN(r.meanExact), r.decisions));
        r.reference = r.representative < references;
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<ClusterMember> ProjectQueries::clusterMembers(int64_t runId, int64_t cluster,
                                                          uint64_t limit) {
    const RunView& v = ensureClusterSummary(runId);
    const uint64_t references = runInfo(runId).referenceDocuments;
    auto s = clusterPage(
        *db_, v.audited(cluster), runId, cluster, limit,
        "SELECT m.doc_index, d.doc_id, m.doc_index = c.representative,"
        " d.chars, d.file_index, d.line, d.offset, d.length, {keep_all}, m.removed_for"
        " FROM {members} m JOIN runs r ON r.id = m.run_id"
        " JOIN {clusters} c ON c.run_id = m.run_id AND c.cluster = m.cluster"
        " JOIN documents d ON " +
            documentRow(*db_, "d", "r.dataset_id", "m.doc_index", runInfo(runId).datasetId) +
            " WHERE m.run_id = ?1 AND m.cluster = ?2 ORDER BY m.doc_index LIMIT ?3");
    std::vector<ClusterMember> members;
    while (s.step()) {
        ClusterMember m;
        m.docIndex = s.u32(0);
        m.docId = s.string(1);
        m.representative = s.int64(2) != 0;
        m.chars = s.u32(3);
        m.location = {s.u32(4), s.u64(5), s.u64(6), s.u32(7)};
        m.keptWhole = s.int64(8) != 0;
        if (!s.isNull(9) && !m.keptWhole) m.removedFor = s.int64(9);
        m.reference = m.docIndex < references;
        m.kept = m.removedFor < 0;
        members.push_back(std::move(m));
    }
    return members;
}

std::vector<PairRow> ProjectQueries::clusterPairs(int64_t runId, int64_t cluster, uint64_t limit) {
    const RunView& v = ensureClusterSummary(runId);
    auto s = clusterPage(
        *db_, v.audited(cluster), runId, cluster, limit,
        "SELECT p.a, p.b, p.matches, p.matches * 1.0 / r.hashes, p.exact"
        " FROM {members} ma JOIN pairs p ON p.run_id = ma.run_id AND p.a = ma.doc_index"
        " JOIN {members} mb ON mb.run_id = p.run_id AND mb.doc_index = p.b"
        " JOIN runs r ON r.id = p.run_id"
        " WHERE ma.run_id = ?1 AND ma.cluster = ?2 AND mb.cluster = ?2 ORDER BY p.a, p.b LIMIT ?3");
    std::vector<PairRow> pairs;
    std::vector<DocPair> cut;
    for (const Decision& d : v.decisions)
        if (d.kind == DecisionKind::NotDuplicate)
            cut.emplace_back(std::min(d.a, d.b), std::max(d.a, d.b));
    std::sort(cut.begin(), cut.end());
    while (s.step()) {
        PairRow p{s.u32(0), s.u32(1), s.u32(2), s.realOrNaN(3), s.realOrNaN(4)};
        p.notDuplicate = std::binary_search(cut.begin(), cut.end(), DocPair{p.a, p.b});
        pairs.push_back(p);
    }
    return pairs;
}

std::vector<ListingMember> ProjectQueries::listingMembers(int64_t runId, double threshold) {
    const RunView& v = ensureClusterSummary(runId, threshold);
    // The stored clusters a decision did not reach, then the audited pieces (all of the listing
    // when it was re-clustered whole at another threshold).
    std::string sql =
        "SELECT m.cluster, m.doc_index, c.representative FROM temp.adj_members m"
        " JOIN temp.adj_clusters c ON c.run_id = m.run_id AND c.cluster = m.cluster"
        " WHERE m.run_id = ?1";
    if (!v.whole)
        sql +=
            " UNION ALL SELECT m.cluster, m.doc_index, c.representative FROM main.cluster_members m"
            " JOIN main.clusters c ON c.run_id = m.run_id AND c.cluster = m.cluster"
            " WHERE m.run_id = ?1 AND m.cluster NOT IN"
            " (SELECT cluster FROM temp.touched WHERE run_id = ?1)";
    sql += " ORDER BY 1, 2";
    auto s = db_->prepare(sql);
    s.bind(1, runId);
    std::vector<ListingMember> out;
    while (s.step())
        out.push_back({s.int64(0), s.u32(1), s.u32(2)});
    return out;
}

void ProjectQueries::storeDiameters(int64_t runId, double threshold,
                                    const StoredDiameters& diameters) {
    RunView& v = ensureClusterSummary(runId, threshold);
    try {
        sql::Savepoint store(*db_, "diameters");
        auto clear = db_->prepare(
            "UPDATE temp.cluster_summary SET diameter = NULL, farthest = representative, chain = 0,"
            " large = 0 WHERE run_id = ?1");
        clear.bind(1, runId);
        clear.step();
        auto s = db_->prepare(
            "UPDATE temp.cluster_summary SET diameter = ?3, farthest = ?4, chain = ?5,"
            " large = ?6 WHERE run_id = ?1 AND cluster = ?2");
        s.bind(1, runId);
        for (const ComponentDiameter& c : diameters.components) {
            s.bind(2, c.cluster).bind(4, int64_t{c.farthest});
            if (std::isnan(c.diameter))
                s.bindNull(3);
            else
                s.bind(3, c.diameter);
            s.bind(5, int64_t{c.chain ? 1 : 0}).bind(6, int64_t{c.large ? 1 : 0});
            s.run();
        }
        store.release();
    } catch (...) {
        v.diametersWhy.reset();
        throw;
    }
    v.diametersWhy = diameters.why;
}

std::optional<StoredDiameters> ProjectQueries::storedDiameters(int64_t runId, double threshold) {
    const RunView& v = ensureClusterSummary(runId, threshold);
    if (!v.diametersWhy) return std::nullopt;
    StoredDiameters out;
    out.why = *v.diametersWhy;
    auto s = db_->prepare(
        "SELECT cluster, size, representative, diameter, farthest, chain, large"
        " FROM temp.cluster_summary WHERE run_id = ?1 ORDER BY cluster");
    s.bind(1, runId);
    while (s.step()) {
        ComponentDiameter c;
        sql::readFields(s, 0,
                        sql::fields(c.cluster, c.size, c.representative, sql::orNaN(c.diameter),
                                    c.farthest, c.chain, c.large));
        out.components.push_back(c);
    }
    return out;
}

int64_t ProjectQueries::clusterOfDocument(int64_t runId, uint32_t docIndex) {
    const RunView& v = ensureClusterSummary(runId);
    {
        auto s = db_->prepare(
            "SELECT cluster FROM temp.adj_members WHERE run_id = ?1 AND doc_index = ?2");
        s.bind(1, runId).bind(2, int64_t{docIndex});
        if (s.step()) return s.int64(0);
    }
    if (v.whole) return -1;  // not clustered at this threshold
    auto s = db_->prepare(
        "SELECT cluster FROM main.cluster_members WHERE run_id = ?1 AND doc_index = ?2");
    s.bind(1, runId).bind(2, int64_t{docIndex});
    if (!s.step()) return -1;
    const int64_t c = s.int64(0);
    return v.touched.count(c) ? -1 : c;  // split off alone by a decision
}

std::vector<std::pair<uint32_t, DocumentLocation>> ProjectQueries::clusteredDocuments(
    int64_t runId) {
    const RunInfo run = runInfo(runId);
    // Membership of the stored clustering (or, at another threshold, of the re-clustered one):
    // decisions only split clusters or change who is kept, so the audited clusters hold the
    // same documents less those split off alone.
    const bool whole = ensureClusterSummary(runId).whole;
    auto s = db_->prepare(
        std::string("SELECT m.doc_index, d.file_index, d.line, d.offset, d.length FROM ") +
        (whole ? "temp.adj_members" : "main.cluster_members") +
        " m"
        " JOIN documents d ON " +
        documentRow(*db_, "d", "?2", "m.doc_index", run.datasetId) +
        " WHERE m.run_id = ?1 ORDER BY m.doc_index");
    s.bind(1, runId).bind(2, run.datasetId);
    std::vector<std::pair<uint32_t, DocumentLocation>> out;
    while (s.step())
        out.emplace_back(s.u32(0), DocumentLocation{s.u32(1), s.u64(2), s.u64(3), s.u32(4)});
    return out;
}

}  // namespace neardup
