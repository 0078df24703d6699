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

std::vector<DocPair> clusterComponents(const std::vector<ScoredPair>& pairs, int hashes,
                                       double threshold, KeepPolicy policy,
                                       const DocumentTable& docs, RunResult& run,
                                       std::span<const DocPair> excluded) {
    const std::size_t n = docs.size();
    UnionFind uf(n);
    std::vector<DocPair> duplicates;
    for (const ScoredPair& p : pairs) {
        if (!isDuplicate(p, hashes, threshold)) continue;
        if (!excluded.empty() &&
            std::binary_search(excluded.begin(), excluded.end(), DocPair{p.a, p.b}))
            continue;
        duplicates.emplace_back(p.a, p.b);
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
    run.removedFor.clear();
    run.chained.clear();
    run.counts.duplicatePairs = duplicates.size();
    run.counts.clusters = run.representative.size();
    return duplicates;
}

void decideRemovals(std::span<const DocPair> duplicates, KeepPolicy policy, DecideRule rule,
                    const DocumentTable& docs, RunResult& run) {
    const std::size_t n = run.clusterOf.size();
    constexpr uint32_t none = RunResult::kNoDocument;
    auto wholeKept = [&run](uint32_t c) { return !run.keepAll.empty() && run.keepAll[c] != 0; };
    run.removedFor.assign(n, none);

    // Chained removals: members the components rule removes without a duplicate pair with
    // their representative. `direct` marks the members that have one.
    std::vector<uint8_t> direct(n, 0);
    for (const auto& [a, b] : duplicates) {
        const uint32_t rep = run.representative[run.clusterOf[a]];
        if (rep == a) direct[b] = 1;
        if (rep == b) direct[a] = 1;
    }
    run.chained.assign(n, 0);
    uint64_t chained = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t c = run.clusterOf[i];
        if (c == RunResult::kNoCluster || wholeKept(c) || run.representative[c] == i) continue;
        run.chained[i] = direct[i] ? 0 : 1;
        chained += run.chained[i];
    }
    run.counts.chainedRemovals = chained;

    if (rule == DecideRule::Components) {
        for (std::size_t i = 0; i < n; ++i) {
            const uint32_t c = run.clusterOf[i];
            if (c == RunResult::kNoCluster || wholeKept(c) || run.representative[c] == i) continue;
            run.removedFor[i] = run.representative[c];
        }
        countRemovals(run);
        return;
    }

    // Witness: the clustered documents in keep order. Each cluster's representative is
    // visited first: it is first in keep order unless a "keep this one instead" decision chose
    // it, so it is kept from the start and counts as earlier than every other member.
    std::vector<uint32_t> order;
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t c = run.clusterOf[i];
        if (c != RunResult::kNoCluster && !wholeKept(c)) order.push_back(static_cast<uint32_t>(i));
    }
    auto before = [&](uint32_t x, uint32_t y) { return keepRather(policy, docs, x, y); };
    if (!std::is_sorted(order.begin(), order.end(), before))  // input order for --keep first
        std::sort(order.begin(), order.end(), before);
    auto isRep = [&run](uint32_t d) { return run.representative[run.clusterOf[d]] == d; };
    const std::size_t m = order.size();
    std::vector<uint32_t> rank(n, none);
    for (std::size_t r = 0; r < m; ++r)
        rank[order[r]] = static_cast<uint32_t>(r);
    // The later of two documents in visiting order: the representative is never later.
    auto later = [&](uint32_t a, uint32_t b) {
        if (isRep(a)) return b;
        if (isRep(b)) return a;
        return rank[a] > rank[b] ? a : b;
    };
    // For each visited document, the ranks of its duplicates visited before it (CSR by rank).
    std::vector<uint64_t> begin(m + 1, 0);
    for (const auto& [a, b] : duplicates) {
        if (rank[a] == none) continue;  // a cluster kept whole
        ++begin[rank[later(a, b)] + 1];
    }
    for (std::size_t r = 0; r < m; ++r)
        begin[r + 1] += begin[r];
    std::vector<uint32_t> earlier(begin[m]);
    {
        std::vector<uint64_t> fill(begin.begin(), begin.end() - 1);
        for (const auto& [a, b] : duplicates) {
            if (rank[a] == none) continue;
            const uint32_t l = later(a, b);
            earlier[fill[rank[l]]++] = rank[l == a ? b : a];
        }
    }
    std::vector<uint8_t> kept(m, 0);
    for (std::size_t r = 0; r < m; ++r)
        if (isRep(order[r])) kept[r] = 1;
    for (std::size_t r = 0; r < m; ++r) {
        if (isRep(order[r])) continue;
        // The earliest kept duplicate in visiting order: the representative when it is one.
        uint32_t witness = none;
        for (uint64_t k = begin[r]; k < begin[r + 1]; ++k) {
            const uint32_t e = earlier[k];
            if (isRep(order[e])) {
                witness = e;
                break;
            }
            if (kept[e] && e < witness) witness = e;
        }
        if (witness == none)
            kept[r] = 1;
        else
            run.removedFor[order[r]] = order[witness];
    }
    countRemovals(run);
}

void clusterDocuments(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                      KeepPolicy policy, DecideRule rule, const DocumentTable& docs, RunResult& run,
                      std::span<const DocPair> excluded) {
    const std::vector<DocPair> duplicates =
        clusterComponents(pairs, hashes, threshold, policy, docs, run, excluded);
    decideRemovals(duplicates, policy, rule, docs, run);
}

const ScoredPair* findPair(const std::vector<ScoredPair>& pairs, uint32_t x, uint32_t y) {
    const ScoredPair key{std::min(x, y), std::max(x, y), 0, -1.0f};
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), key);
    return it != pairs.end() && it->a == key.a && it->b == key.b ? &*it : nullptr;
}

void countRemovals(RunResult& run) {
    const std::size_t n = run.clusterOf.size();
    uint64_t removed = 0;
    for (std::size_t i = 0; i < n; ++i)
        removed += run.removed(i) ? 1 : 0;
    run.counts.removed = removed;
    run.counts.kept = n - removed;
}

const ScoredPair* witnessPair(const RunResult& run, const std::vector<ScoredPair>& pairs,
                              uint32_t doc) {
    if (!run.removed(doc)) return nullptr;
    const uint32_t rep = run.representative[run.clusterOf[doc]];
    const uint32_t keptBy = run.removedFor.empty() ? rep : run.removedFor[doc];
    const ScoredPair* p = findPair(pairs, doc, keptBy);
    if (!p) return nullptr;
    // A witness other than the representative was chosen for its duplicate pair; a removal for
    // the representative has one when the clustering found their pair (not chained), or, for
    // a run loaded without that mark, when the stored pair is a duplicate at the threshold.
    if (keptBy != rep) return p;
    if (!run.chained.empty()) return run.chained[doc] ? nullptr : p;
    return isDuplicate(*p, run.params.signature.hashes, run.params.compare.threshold) ? p
                                                                                       : nullptr;
}

}  // namespace neardup
