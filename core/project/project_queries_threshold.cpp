// The workbench's cluster listing at another threshold than the run's own (project_queries.h):
// the whole run re-clustered from its stored pairs with its removal rule and the dataset's
// decisions, written to the temp schema in the layout of the audited pieces.
#include <limits>

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
        std::vector<uint64_t> size(r.representative.size(), 0);
        auto m = db_->prepare("INSERT INTO temp.adj_members VALUES (?1, ?2, ?3, ?4)");
        m.bind(1, run.runId);
        for (std::size_t i = 0; i < r.clusterOf.size(); ++i) {
            const uint32_t k = r.clusterOf[i];
            if (k == RunResult::kNoCluster) continue;
            ++size[k];
            m.bind(2, static_cast<int64_t>(i)).bind(3, int64_t{k});
            if (r.removed(i))
                m.bind(4, int64_t{r.removedFor.empty() ? r.representative[k] : r.removedFor[i]});
            else
                m.bindNull(4);
            m.run();
        }
        auto c = db_->prepare("INSERT INTO temp.adj_clusters VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        c.bind(1, run.runId);
        for (std::size_t k = 0; k < r.representative.size(); ++k) {
            const bool keptWhole = !r.keepAll.empty() && r.keepAll[k];
            c.bind(2, static_cast<int64_t>(k))
                .bind(3, int64_t{r.representative[k]})
                .bind(4, static_cast<int64_t>(size[k]))
                .bind(5, int64_t{keptWhole ? 1 : 0})
                .bind(6, int64_t{applied.clusterMarks.empty() ? 0 : applied.clusterMarks[k]});
            c.run();
        }
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
