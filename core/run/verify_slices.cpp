#include "verify_slices.h"

#include <algorithm>

#include "pair_verifier.h"

namespace neardup {

std::size_t verifyWithinBudget(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                               const DocumentTable& docs, const RunParams& params, int threads,
                               uint64_t allowance, const std::function<void()>& checkCancel) {
    const VerifyMode mode = params.compare.verify;
    auto cost = [&](const ScoredPair& p) -> uint64_t {
        const bool wanted =
            mode == VerifyMode::Exact ||
            (mode == VerifyMode::Borderline &&
             isBorderline(p.matches, params.signature.hashes, params.compare.threshold));
        if (!wanted || p.exact >= 0.0f) return 0;
        // Line, its parsed copy and 8 bytes a shingle, for both documents.
        return 2 * uint64_t{docs.length[p.a]} + 8 * uint64_t{docs.chars[p.a]} + 96 +
               2 * uint64_t{docs.length[p.b]} + 8 * uint64_t{docs.chars[p.b]} + 96;
    };
    uint64_t total = 0;
    for (const ScoredPair& p : pairs)
        total += cost(p);
    if (total <= allowance) return verifyPairs(pairs, files, docs, params, threads, checkCancel);
    std::size_t verified = 0;
    std::vector<ScoredPair> slice;
    for (std::size_t i = 0; i < pairs.size();) {
        std::size_t j = i;
        uint64_t used = 0;
        while (j < pairs.size() && (j == i || used + cost(pairs[j]) <= allowance))
            used += cost(pairs[j++]);
        slice.assign(pairs.begin() + static_cast<std::ptrdiff_t>(i),
                     pairs.begin() + static_cast<std::ptrdiff_t>(j));
        verified += verifyPairs(slice, files, docs, params, threads, checkCancel);
        std::copy(slice.begin(), slice.end(), pairs.begin() + static_cast<std::ptrdiff_t>(i));
        i = j;
    }
    return verified;
}

}  // namespace neardup
