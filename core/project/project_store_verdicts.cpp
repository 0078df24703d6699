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

std::vector<ScoredPair> ProjectStore::storedVerdicts(int64_t datasetId,
                                                     const SignatureParams& like) const {
    auto& db = impl_->db;
    std::vector<ScoredPair> verdicts;
    auto pairs =
        db.prepare("SELECT a, b, exact FROM pairs WHERE run_id = ?1 AND exact IS NOT NULL");
    for (const RunSummary& r : listRuns()) {
        if (r.datasetId != datasetId || r.status != "ok") continue;
        if (!sameShingleSets(runRow(r.runId).run.params.signature, like)) continue;
        pairs.bind(1, r.runId);
        while (pairs.step()) {
            ScoredPair p;
            p.a = pairs.u32(0);
            p.b = pairs.u32(1);
            const double exact = pairs.real(2);
            if (!(exact >= 0.0 && exact <= 1.0)) continue;  // not a Jaccard: never trusted
            p.exact = static_cast<float>(exact);
            verdicts.push_back(p);
        }
        pairs.reset();
    }
    std::sort(verdicts.begin(), verdicts.end());
    verdicts.erase(std::unique(verdicts.begin(), verdicts.end(),
                               [](const ScoredPair& x, const ScoredPair& y) {
                                   return x.a == y.a && x.b == y.b;
                               }),
                   verdicts.end());
    return verdicts;
}

}  // namespace neardup
