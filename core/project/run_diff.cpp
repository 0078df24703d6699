// Run diffs (run_diff.h): set operations over two runs' cluster members, or a pass over their
// loaded outcomes when the dataset has audit decisions.
#include "run_diff.h"

#include <stdexcept>

#include "dataset_rows.h"
#include "decision_rows.h"
#include "project_schema.h"
#include "project_store.h"
#include "run_rows.h"
#include "sqlite_handle.h"

namespace neardup {

namespace {

struct RunRowSummary {
    int64_t dataset = 0;
    uint64_t documents = 0;
};

// A finished run's dataset and document count, from its row (the runs table's one decoder).
RunRowSummary runRow(const sql::Database& db, int64_t runId) {
    auto s = db.prepare(store_rows::selectRunSql("WHERE id = ?1"));
    s.bind(1, runId);
    if (!s.step()) throw std::runtime_error("no run " + std::to_string(runId) + " in the project");
    const RunRow row = store_rows::readRun(s);
    if (row.run.status != "ok")
        throw std::runtime_error("run " + std::to_string(runId) + " is " + row.run.status +
                                 ": only finished runs can be compared");
    return {row.run.datasetId, row.run.counts.documents};
}

uint64_t removedCount(const sql::Database& db, int64_t runId) {
    auto s = db.prepare(
        "SELECT count(*) FROM cluster_members"
        " WHERE run_id = ?1 AND removed_for IS NOT NULL");
    s.bind(1, runId);
    s.step();
    return s.u64(0);
}

// Documents removed by `removing` (members removed for a kept document: their witness, or
// under the components rule their cluster's representative) and kept by `keeping` (in no
// cluster there, or kept in it): one walk over the removing run's members in document order,
// each checked with primary-key look-ups.
std::vector<RunDiffRow> removedOnlyBy(const sql::Database& db, int64_t removing, int64_t keeping,
                                      int64_t dataset, bool removingIsB) {
    const std::optional<store_rows::DatasetBase> base = store_rows::datasetBase(db, dataset);
    auto s = db.prepare(
        std::string(
            "SELECT mr.doc_index, d.doc_id, mr.cluster, mk.cluster, mr.removed_for, rd.doc_id"
            " FROM cluster_members mr"
            " LEFT JOIN cluster_members mk ON mk.run_id = ?2 AND mk.doc_index = mr.doc_index"
            " JOIN documents d ON ") +
        store_rows::documentRowOf("d", "?3", "mr.doc_index", base) + " JOIN documents rd ON " +
        store_rows::documentRowOf("rd", "?3", "mr.removed_for", base) +
        " WHERE mr.run_id = ?1 AND mr.removed_for IS NOT NULL AND mk.removed_for IS NULL"
        " ORDER BY mr.doc_index");
    s.bind(1, removing).bind(2, keeping).bind(3, dataset);
    std::vector<RunDiffRow> rows;
    while (s.step()) {
        RunDiffRow r;
        r.docIndex = s.u32(0);
        r.docId = s.string(1);
        const int64_t inRemoving = s.int64(2);
        const int64_t inKeeping = s.isNull(3) ? -1 : s.int64(3);
        r.clusterA = removingIsB ? inKeeping : inRemoving;
        r.clusterB = removingIsB ? inRemoving : inKeeping;
        r.representative = s.u32(4);
        r.representativeId = s.string(5);
        rows.push_back(std::move(r));
    }
    return rows;
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
    // A read-only connection of its own; a busy writer is waited for.
    sql::Database db(projectPath, sql::OpenMode::ReadOnly);
    schema::open(db, projectPath, schema::Access::Read);
    db.setBusyTimeout(5000);
    const RunRowSummary a = runRow(db, runA);
    const RunRowSummary b = runRow(db, runB);
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
    if (!store_rows::loadDecisions(db, d.datasetId).empty()) {
        // Decisions are applied when a run is loaded, not stored in its clusters: compare the
        // outcomes an export would write.
        const ProjectStore store(projectPath, ProjectStore::Mode::ReadOnly);
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
    sql::Transaction snapshot(db, sql::Transaction::Kind::Read);
    d.removedA = removedCount(db, runA);
    d.removedB = removedCount(db, runB);
    d.newlyRemoved = removedOnlyBy(db, runB, runA, d.datasetId, true);
    d.noLongerRemoved = removedOnlyBy(db, runA, runB, d.datasetId, false);
    snapshot.commit();
    d.removedBoth = d.removedA - d.noLongerRemoved.size();
    return d;
}

}  // namespace neardup
