#include "reference_matches.h"

#include <algorithm>

namespace neardup {

std::vector<ReferenceMatch> referenceMatches(const RunResult& run) {
    const uint64_t references = run.counts.referenceDocuments;
    std::vector<uint64_t> removed(references, 0);
    for (std::size_t d = 0; d < run.clusterOf.size() && references > 0; ++d) {
        if (!run.removed(d)) continue;
        const uint32_t keptBy =
            run.removedFor.empty() ? run.representative[run.clusterOf[d]] : run.removedFor[d];
        if (keptBy < references) ++removed[keptBy];
    }
    std::vector<ReferenceMatch> matches;
    for (uint32_t r = 0; r < removed.size(); ++r)
        if (removed[r] > 0) matches.push_back({r, removed[r]});
    std::stable_sort(
        matches.begin(), matches.end(),
        [](const ReferenceMatch& x, const ReferenceMatch& y) { return x.removed > y.removed; });
    return matches;
}

}  // namespace neardup
