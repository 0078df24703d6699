#include "clustering.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace neardup {

UnionFind::UnionFind(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0u);
}

uint32_t UnionFind::find(uint32_t x) {
    uint32_t root = x;
    while (parent_[root] != root)
        root = parent_[root];
    while (parent_[x] != root) {  // path compression
        const uint32_t next = parent_[x];
        parent_[x] = root;
        x = next;
    }
    return root;
}

void UnionFind::unite(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (a < b)
        parent_[b] = a;
    else
        parent_[a] = b;
}

bool isDuplicate(const ScoredPair& p, int hashes, double threshold) {
    // A verified pair is judged by its exact Jaccard alone: the estimate only served to find
    // it, and judging by the exact value recovers pairs the estimate put just below.
    if (p.exact >= 0.0f) return static_cast<double>(p.exact) >= threshold - 1e-6;
    // Integer comparison avoids matches/hashes rounding just below the threshold.
    const auto needed = static_cast<uint32_t>(std::ceil(threshold * hashes - 1e-9));
    return p.matches >= needed;
}

bool keepRather(KeepPolicy policy, const DocumentTable& docs, uint32_t x, uint32_t y) {
    switch (policy) {
        case KeepPolicy::First:
            return x < y;
        case KeepPolicy::Longest:
            return docs.chars[x] != docs.chars[y] ? docs.chars[x] > docs.chars[y] : x < y;
        case KeepPolicy::MaxField: {
            const double vx = docs.keepValue[x], vy = docs.keepValue[y];
            const bool hx = !std::isnan(vx), hy = !std::isnan(vy);
            if (hx != hy) return hx;
            if (hx && vx != vy) return vx > vy;
            return x < y;
        }
    }
    return x < y;
}

void clusterDocuments(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                      KeepPolicy policy, const DocumentTable& docs, RunResult& run,
                      std::span<const DocPair> excluded) {
    const std::size_t n = docs.size();
    UnionFind uf(n);
    uint64_t duplicates = 0;
    for (const ScoredPair& p : pairs) {
        if (!isDuplicate(p, hashes, threshold)) continue;
        if (!excluded.empty() &&
            std::binary_search(excluded.begin(), excluded.end(), DocPair{p.a, p.b}))
            continue;
        ++duplicates;
        uf.unite(p.a, p.b);
    }
    // Roots are smallest members, so numbering clusters on first sight of a root in document
    // order numbers them by their smallest member.
    std::vector<uint32_t> size(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        ++size[uf.find(static_cast<uint32_t>(i))];
    run.clusterOf.assign(n, RunResult::kNoCluster);
    run.representative.clear();
    std::vector<uint32_t> clusterOfRoot(n, RunResult::kNoCluster);
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t root = uf.find(static_cast<uint32_t>(i));
        if (size[root] < 2) continue;
        uint32_t& c = clusterOfRoot[root];
        if (c == RunResult::kNoCluster) {
            c = static_cast<uint32_t>(run.representative.size());
            run.representative.push_back(static_cast<uint32_t>(i));
        } else if (keepRather(policy, docs, static_cast<uint32_t>(i), run.representative[c])) {
            run.representative[c] = static_cast<uint32_t>(i);
        }
        run.clusterOf[i] = c;
    }
    run.keepAll.clear();
    run.counts.duplicatePairs = duplicates;
    run.counts.clusters = run.representative.size();
    countRemovals(run);
}

void countRemovals(RunResult& run) {
    const std::size_t n = run.clusterOf.size();
    uint64_t removed = 0;
    for (std::size_t i = 0; i < n; ++i)
        removed += run.removed(i) ? 1 : 0;
    run.counts.removed = removed;
    run.counts.kept = n - removed;
}

}  // namespace neardup
