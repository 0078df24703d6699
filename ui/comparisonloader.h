// The side-by-side view's data (ComparisonView) for two documents of a run: the core use case
// loadDocumentPair (core/usecases/document_pair.h) reads them back and diffs them, this words the
// result for display. Runs inside a JobQueue job; the clusters panel and the sampled audit use it.
#pragma once

#include "comparisonview.h"
#include "jobqueue.h"
#include "project_queries.h"

namespace neardup::ui {

// The comparison of documents pair.a and pair.b; `stored` says whether `pair` holds the run's
// stored pair (its matches, estimate and exact Jaccard), else the estimate is NaN and the
// exact Jaccard is computed from the texts. Kept / representative flags are the caller's.
ComparisonData loadComparison(JobContext& ctx, const RunInfo& run, const PairRow& pair,
                              bool stored);

// A member's status as the members list and the comparison headers word it: "reference" (a
// document of the run's reference), "kept", "kept (keep all)", "kept (no kept duplicate before
// it)" or "removed (for <id of its witness>)".
QString memberStatus(const ClusterMember& m, const std::vector<ClusterMember>& members);

// The statuses of d.docA and d.docB in the run as the clusters panel shows them (each one's
// cluster and members), for a view that judges a pair outside the panel (the sampled audit).
void loadStatuses(JobContext& ctx, const RunInfo& run, ComparisonData& d);

}  // namespace neardup::ui
