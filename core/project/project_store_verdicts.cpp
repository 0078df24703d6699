// The project store's exact verdicts (project_store.h): the exact Jaccard that earlier runs of
// a dataset computed for their pairs, for a run with other bands, rows or threshold to reuse
// instead of reading and shingling the documents again.
#include <algorithm>

#include "project_store.h"
#include "project_store_impl.h"

namespace neardup {

namespace {

// The exact Jaccard of two documents depends only on how their texts become shingle sets.
bool sameShingleSets(const SignatureParams& a, const SignatureParams& b) {
    return a.normalize.nfc == b.normalize.nfc && a.normalize.lowercase == b.normalize.lowercase &&
           a.normalize.collapseWhitespace == b.normalize.collapseWhitespace &&
           a.normalize.trim == b.normalize.trim && a.shingle == b.shingle && a.ngram == b.ngram;
}

}  // namespace

std::size_t ProjectStore::fillStoredVerdicts(
    int64_t datasetId, const SignatureParams& like, std::vector<ScoredPair>& pairs,
    const std::function<bool(const ScoredPair&)>& wanted) const {
    // The merge needs the run's canonical order; pairs in any other order are verified instead.
    if (!std::is_sorted(pairs.begin(), pairs.end())) return 0;
    std::size_t open = 0;
    for (const ScoredPair& p : pairs)
        open += p.exact < 0.0f && wanted(p) ? 1 : 0;
    std::size_t given = 0;
    auto& db = impl_->db;
    // In key order (the table's primary key is (run_id, a, b)): no sort.
    auto stored = db.prepare(
        "SELECT a, b, exact FROM pairs WHERE run_id = ?1 AND exact IS NOT NULL ORDER BY a, b");
    const std::vector<RunSummary> runs = listRuns();
    for (auto r = runs.rbegin(); r != runs.rend() && open > 0; ++r) {
        if (r->datasetId != datasetId || r->status != "ok") continue;
        if (!sameShingleSets(runRow(r->runId).run.params.signature, like)) continue;
        stored.bind(1, r->runId);
        auto next = pairs.begin();
        while (next != pairs.end() && stored.step()) {
            ScoredPair key;
            key.a = stored.u32(0);
            key.b = stored.u32(1);
            next = std::lower_bound(next, pairs.end(), key);
            if (next == pairs.end() || next->a != key.a || next->b != key.b) continue;
            const double exact = stored.real(2);
            if (!(exact >= 0.0 && exact <= 1.0)) continue;  // not a Jaccard: never trusted
            if (next->exact < 0.0f && wanted(*next)) {
                next->exact = static_cast<float>(exact);
                ++given;
                --open;
            }
        }
        stored.reset();
    }
    return given;
}

}  // namespace neardup
