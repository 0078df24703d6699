#include "clustering.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "witness_rule.h"

namespace neardup {

using witness_rule::decide;
using witness_rule::DuplicateTest;
using witness_rule::InputOrder;
using witness_rule::inputOrderWitnesses;
using witness_rule::kNone;
using witness_rule::kPrefetchAhead;

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

std::vector<uint32_t> UnionFind::roots() && {
    // parent_[x] <= x always (the smaller root becomes the parent, compression points at a
    // root), so one pass in index order finds every root from an already resolved parent.
    for (std::size_t x = 0; x < parent_.size(); ++x)
        parent_[x] = parent_[parent_[x]];
    return std::move(parent_);
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
    // The reference comes first whatever the policy: it is never removed, so a new document
    // must never be visited before a reference document it duplicates.
    if (docs.reference(x) != docs.reference(y)) return docs.reference(x);
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

namespace {

// Numbers the clusters by their smallest member (`root`: each document's root, roots being
// smallest members; overwritten for roots with their cluster's number) and picks each one's
// representative: its first member under `rather` (keepRather for the policy, inlined: it runs
// once per clustered document).
template <typename Rather>
void numberClusters(std::vector<uint32_t>& root, const std::vector<uint8_t>& joined, RunResult& run,
                    Rather rather) {
    const std::size_t n = root.size();
    run.clusterOf.assign(n, RunResult::kNoCluster);
    run.representative.clear();
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t r = root[i];
        uint32_t c;
        if (r == i) {
            if (!joined[i]) continue;
            c = root[i] = static_cast<uint32_t>(run.representative.size());
            run.representative.push_back(static_cast<uint32_t>(i));
        } else {
            c = root[r];  // r < i: already numbered
            if (rather(static_cast<uint32_t>(i), run.representative[c]))
                run.representative[c] = static_cast<uint32_t>(i);
        }
        run.clusterOf[i] = c;
    }
}

// clusterComponents, and with `witnesses` the input-order witnesses in the same pass; returns
// what that pass found (inputOrderWitnesses; not sorted when there was none).
InputOrder components(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                      KeepPolicy policy, const DocumentTable& docs, RunResult& run,
                      std::span<const DocPair> excluded, std::vector<uint32_t>* witnesses) {
    const std::size_t n = docs.size();
    const DuplicateTest duplicate(hashes, threshold, excluded, docs.referenceDocuments);
    UnionFind uf(n);
    uint64_t duplicates = 0;
    InputOrder witnessed{.sorted = false, .copies = false};
    auto join = [&](const ScoredPair& p) {
        ++duplicates;
        uf.unite(p.a, p.b);
    };
    if (witnesses) {
        witnesses->assign(n, kNone);
        witnessed = inputOrderWitnesses(pairs, duplicate, *witnesses, join,
                                        [&uf](uint32_t b) { uf.prefetch(b); });
    } else {
        const std::size_t count = pairs.size();
        for (std::size_t i = 0; i < count; ++i) {
            if (i + kPrefetchAhead < count) uf.prefetch(pairs[i + kPrefetchAhead].b);
            if (duplicate(pairs[i])) join(pairs[i]);
        }
    }
    // Roots are smallest members, so numbering clusters on first sight of a root in document
    // order numbers them by their smallest member. `root` holds each document's root, then
    // (for roots) the root's cluster number.
    std::vector<uint32_t> root = std::move(uf).roots();
    std::vector<uint8_t> joined(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        if (root[i] != i) joined[root[i]] = 1;
    switch (policy) {
        case KeepPolicy::First:  // the root, the smallest member, comes first in input order
            numberClusters(root, joined, run, [](uint32_t, uint32_t) { return false; });
            break;
        case KeepPolicy::Longest:
            if (docs.referenceDocuments > 0) {
                numberClusters(root, joined, run, [policy, &docs](uint32_t x, uint32_t y) {
                    return keepRather(policy, docs, x, y);
                });
                break;
            }
            numberClusters(root, joined, run, [&chars = docs.chars](uint32_t x, uint32_t y) {
                return chars[x] != chars[y] ? chars[x] > chars[y] : x < y;
            });
            break;
        case KeepPolicy::MaxField:
            numberClusters(root, joined, run, [policy, &docs](uint32_t x, uint32_t y) {
                return keepRather(policy, docs, x, y);
            });
            break;
    }
    run.keepAll.clear();
    run.removedFor.clear();
    run.chained.clear();
    run.copyOf.clear();
    run.counts.duplicatePairs = duplicates;
    run.counts.clusters = run.representative.size();
    return witnessed;
}

}  // namespace

void clusterComponents(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                       KeepPolicy policy, const DocumentTable& docs, RunResult& run,
                       std::span<const DocPair> excluded) {
    components(pairs, hashes, threshold, policy, docs, run, excluded, nullptr);
}

void decideRemovals(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                    std::span<const DocPair> excluded, KeepPolicy policy, DecideRule rule,
                    const DocumentTable& docs, RunResult& run) {
    decide(pairs, hashes, threshold, excluded, policy, rule, docs, run, nullptr, false);
}

void clusterDocuments(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                      KeepPolicy policy, DecideRule rule, const DocumentTable& docs, RunResult& run,
                      std::span<const DocPair> excluded) {
    // With --keep first the witnesses are found in the union's own pass when the pairs come
    // sorted (as a run's do): the smallest member of a component is its representative. The
    // components rule reads its chained removals from them. With signature copies they hold
    // for the copy classes' heads, which the others follow (findWitnesses).
    std::vector<uint32_t> witnesses;
    const bool tryOnePass = policy == KeepPolicy::First;
    const InputOrder onePass = components(pairs, hashes, threshold, policy, docs, run, excluded,
                                          tryOnePass ? &witnesses : nullptr);
    decide(pairs, hashes, threshold, excluded, policy, rule, docs, run,
           onePass.sorted ? &witnesses : nullptr, onePass.copies);
}

void countRemovals(RunResult& run) {
    const std::size_t n = run.clusterOf.size();
    const uint64_t references = run.counts.referenceDocuments;
    uint64_t removed = 0, byReference = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!run.removed(i)) continue;
        ++removed;
        const uint32_t keptBy =
            run.removedFor.empty() ? run.representative[run.clusterOf[i]] : run.removedFor[i];
        byReference += keptBy < references ? 1 : 0;
    }
    run.counts.removed = removed;
    run.counts.removedByReference = byReference;
    run.counts.kept = n - references - removed;
}

}  // namespace neardup
