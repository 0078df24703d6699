// The workbench's cluster listing at another threshold than the run's own (project_queries.h):
// the whole run re-clustered from its stored pairs with its removal rule and the dataset's
// decisions, written to the temp schema in the layout of the audited pieces.
#include <limits>

#include "adjusted_clusters.h"
#include "clustering.h"
#include "dataset_rows.h"
#include "project_queries.h"
#include "result_rows.h"
#include "sqlite_handle.h"

namespace neardup {

void ProjectQueries::buildWholeRun(const RunInfo& run, double threshold,
                                   const std::vector<Decision>& list, RunView& v) {
    // Clustering at `threshold` reads only the pairs that are duplicates there.
    const std::vector<ScoredPair> pairs =
        store_rows::loadDuplicatePairs(*db_, run.runId, run.params.signature.hashes, threshold);
    DocumentTable docs =
        store_rows::loadKeepInputs(*db_, run.datasetId, static_cast<std::size_t>(run.documents));
    // The reference stays first in keep order and is never removed, at any threshold.
    docs.referenceDocuments = static_cast<uint32_t>(run.referenceDocuments);
    RunResult r;
    const AppliedDecisions applied =
        clusterWithDecisions(pairs, run.params.signature.hashes, threshold, run.params.keep,
                             run.params.decide, docs, list, r);
    try {
        sql::Savepoint whole(*db_, "whole");
        for (const char* table :
             {"temp.cluster_summary", "temp.adj_members", "temp.adj_clusters", "temp.touched"}) {
            auto d = db_->prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
            d.bind(1, run.runId);
            d.step();
        }
        insertAdjustedClusters(*db_, run.runId, r, applied.clusterMarks, {}, {});
        // Every stored cluster is replaced: the id and document filters then look at the
        // re-clustered members only.
        auto t = db_->prepare(
            "INSERT INTO temp.touched SELECT run_id, cluster FROM main.clusters WHERE run_id = ?1");
        t.bind(1, run.runId);
        t.step();
        insertSummary(run, true, {});
        whole.release();
    } catch (...) {
        views_.erase(run.runId);
        throw;
    }
    v.built = true;
    v.whole = true;
    v.threshold = threshold;
    v.decisions = list;
    v.touched.clear();
    v.storedClusters = std::numeric_limits<int64_t>::max();
}

}  // namespace neardup
