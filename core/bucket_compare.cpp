#include "bucket_compare.h"

#include <algorithm>
#include <cstring>

namespace neardup {

namespace {

bool sameSignature(const SignatureMatrix& s, uint32_t x, uint32_t y) {
    return std::memcmp(s.row(x), s.row(y), sizeof(uint32_t) * std::size_t(s.hashes)) == 0;
}

}  // namespace

uint64_t compareBucket(const uint32_t* members, std::size_t size, int band,
                       const CompareRequest& req, BucketScratch& scratch,
                       std::vector<ScoredPair>& out) {
    const SignatureMatrix& sigs = *req.signatures;
    const int hashes = sigs.hashes;
    uint64_t decided = 0;
    auto consider = [&](uint32_t x, uint32_t y, bool identical) {
        if (collidedEarlier(req.keys, req.bands, x, y, band)) return;
        ++decided;
        const int m = identical ? hashes : matchingPositions(sigs.row(x), sigs.row(y), hashes);
        if (m >= req.minMatches) out.push_back({x, y, static_cast<uint32_t>(m), -1.0f});
    };
    if (size == 2) {
        consider(members[0], members[1], false);
        return decided;
    }
    // Collapse exact copies: each group of identical signatures is joined to its first member
    // (B - 1 pairs), and only group leaders are compared with each other.
    auto& byDigest = scratch.byDigest;
    byDigest.clear();
    for (std::size_t i = 0; i < size; ++i)
        byDigest.emplace_back(sigs.digests[members[i]], members[i]);
    std::sort(byDigest.begin(), byDigest.end());
    auto& leaders = scratch.leaders;
    leaders.clear();
    for (std::size_t i = 0; i < byDigest.size();) {
        std::size_t j = i + 1;
        while (j < byDigest.size() && byDigest[j].first == byDigest[i].first)
            ++j;
        // Within a digest run, a member differing from the leader (a digest collision) becomes a
        // leader of its own, so correctness never rests on the digest.
        const uint32_t leader = byDigest[i].second;
        leaders.push_back(leader);
        for (std::size_t m = i + 1; m < j; ++m) {
            const uint32_t doc = byDigest[m].second;
            if (sameSignature(sigs, leader, doc))
                consider(leader, doc, true);
            else
                leaders.push_back(doc);
        }
        i = j;
    }
    std::sort(leaders.begin(), leaders.end());
    const std::size_t n = leaders.size();
    for (std::size_t i = 0; i + 1 < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            consider(leaders[i], leaders[j], false);
    return decided;
}

}  // namespace neardup
