#include "clustering.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "radix_sort.h"

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

// isDuplicate at a fixed threshold, less the excluded pairs and the pairs of two reference
// documents, with its constants computed once. Two reference documents are never a duplicate
// pair of the run: neither is removed, so neither may be the other's witness (and a reference
// document that had a kept duplicate earlier in keep order would be removed by the rule).
class DuplicateTest {
  public:
    DuplicateTest(int hashes, double threshold, std::span<const DocPair> excluded,
                  uint32_t referenceDocuments)
        : needed_(static_cast<uint32_t>(std::ceil(threshold * hashes - 1e-9))),
          hashes_(static_cast<uint32_t>(hashes)),
          exactFloor_(threshold - 1e-6),
          referenceDocuments_(referenceDocuments),
          excluded_(excluded) {}
    // True for a pair of identical signatures (every position equal).
    bool copy(const ScoredPair& p) const { return p.matches >= hashes_; }
    bool operator()(const ScoredPair& p) const {
        if (p.exact >= 0.0f ? static_cast<double>(p.exact) < exactFloor_ : p.matches < needed_)
            return false;
        if (p.b < referenceDocuments_) return false;  // a < b: both are reference documents
        return excluded_.empty() ||
               !std::binary_search(excluded_.begin(), excluded_.end(), DocPair{p.a, p.b});
    }

  private:
    uint32_t needed_;
    uint32_t hashes_;
    double exactFloor_;
    uint32_t referenceDocuments_;
    std::span<const DocPair> excluded_;
};

// A key per document whose ascending order is the keep order (before input order, which the
// caller adds): more characters first, or a larger field value first and none last.
uint64_t keepKey(KeepPolicy policy, const DocumentTable& docs, uint32_t d) {
    if (policy == KeepPolicy::Longest) return ~uint64_t{docs.chars[d]};
    double v = docs.keepValue[d];
    if (std::isnan(v)) return ~uint64_t{0};
    if (v == 0) v = 0;  // -0 and +0 are equal values
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    // Ascending in v as unsigned integers, then reversed: the largest value first. The top
    // value ~0 is left to NaN (no finite value or infinity maps to it).
    bits = (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
    return ~bits - 1;
}

constexpr uint32_t kNone = RunResult::kNoDocument;
// How many pairs ahead the passes over pairs prefetch what they read at random for the later
// document of a pair (its union-find parent, its witness, its visiting rank).
constexpr std::size_t kPrefetchAhead = 16;

// Witnesses in input order (--keep first, every representative its cluster's smallest member,
// no cluster kept whole) from pairs sorted by (a, b): they arrive grouped by their earlier
// document a, after every pair (x, a) with x < a, so a's status is final when its own pairs
// come: a kept a is the witness of each b that has none yet, the smallest such a.
inline void inputOrderWitness(std::vector<uint32_t>& removedFor, const ScoredPair& p) {
    const uint32_t wa = removedFor[p.a], wb = removedFor[p.b];
    removedFor[p.b] = wa == kNone && wb == kNone ? p.a : wb;
}

// What a pass of input-order witnesses found about the duplicate pairs: whether they were
// sorted by (a, b) (otherwise its witnesses are to be discarded), and whether some are signature
// copies (then its witnesses hold for the heads of the copy classes only: see findWitnesses).
struct InputOrder {
    bool sorted = true;
    bool copies = false;
};

// Input-order witnesses over the duplicate pairs in the order given.
// `ahead(b)` is called for the pair a few places ahead (prefetches of what `visit` reads).
template <typename Visit, typename Ahead>
InputOrder inputOrderWitnesses(const std::vector<ScoredPair>& pairs, const DuplicateTest& duplicate,
                               std::vector<uint32_t>& removedFor, Visit visit, Ahead ahead) {
    uint64_t previous = 0;
    InputOrder found;
    const std::size_t count = pairs.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (i + kPrefetchAhead < count) {
            const uint32_t b = pairs[i + kPrefetchAhead].b;
            __builtin_prefetch(removedFor.data() + b);
            ahead(b);
        }
        const ScoredPair& p = pairs[i];
        if (!duplicate(p)) continue;
        visit(p);
        const uint64_t key = uint64_t{p.a} << 32 | p.b;
        found.sorted &= key > previous;
        found.copies |= duplicate.copy(p);
        previous = key;
        inputOrderWitness(removedFor, p);
    }
    return found;
}

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

// True when every cluster's representative is its smallest member.
bool representativesFirstInInput(const RunResult& run) {
    std::vector<uint8_t> seen(run.representative.size(), 0);
    for (std::size_t i = 0; i < run.clusterOf.size(); ++i) {
        const uint32_t c = run.clusterOf[i];
        if (c == RunResult::kNoCluster || seen[c]) continue;
        seen[c] = 1;
        if (run.representative[c] != i) return false;
    }
    return true;
}

void decide(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
            std::span<const DocPair> excluded, KeepPolicy policy, DecideRule rule,
            const DocumentTable& docs, RunResult& run, std::vector<uint32_t>* inputOrder,
            bool inputOrderCopies);

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

namespace {

// The duplicate pairs between different visited class heads (both ends visited), by their
// ranks, sorted by the earlier one. The ranks of b are read at random: prefetched a few pairs
// ahead, which turns the pass's cache misses from latency into bandwidth.
std::vector<uint64_t> sortedRankEdges(const std::vector<ScoredPair>& pairs,
                                      const DuplicateTest& duplicate,
                                      const std::vector<uint32_t>& pos, std::size_t ranks,
                                      uint64_t expected) {
    RankEdges edges(ranks);
    edges.reserve(expected);
    const std::size_t count = pairs.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (i + kPrefetchAhead < count) __builtin_prefetch(&pos[pairs[i + kPrefetchAhead].b]);
        const ScoredPair& p = pairs[i];
        const uint32_t ra = pos[p.a];
        if (ra == kNone || !duplicate(p)) continue;
        const uint32_t rb = pos[p.b];
        if (rb != kNone && ra != rb) edges.add(std::min(ra, rb), std::max(ra, rb));
    }
    return std::move(edges).sorted();
}

// Visiting ranks (see findWitnesses): `pos[d]` for each visited document d, `order` the
// documents by rank. Only the order within a cluster matters (every duplicate pair lies within
// one), so the ranks need not follow clusters: the representatives come first (each is visited
// first in its cluster, whatever the keep order says: a "keep this one instead" decision moves
// it), then the other visited documents in keep order, from a key per document (keepKey; none
// for --keep first, whose order is the input's) read from the document table once and in input
// order, by one stable radix sort, so that equal keys stay in input order.
template <typename Visited>
void visitingRanks(KeepPolicy policy, const DocumentTable& docs, const RunResult& run,
                   Visited visited, std::vector<uint32_t>& pos, std::vector<uint32_t>& order) {
    const std::size_t n = run.clusterOf.size();
    pos.assign(n, kNone);
    order.clear();
    for (const uint32_t rep : run.representative)
        if (visited(rep)) {
            pos[rep] = static_cast<uint32_t>(order.size());
            order.push_back(rep);
        }
    auto place = [&pos, &order](uint32_t d) {
        pos[d] = static_cast<uint32_t>(order.size());
        order.push_back(d);
    };
    auto others = [&](auto each) {
        for (std::size_t i = 0; i < n; ++i)
            if (pos[i] == kNone && visited(i)) each(static_cast<uint32_t>(i));
    };
    if (policy == KeepPolicy::First) {
        others(place);
        return;
    }
    if (docs.referenceDocuments > 0) {
        // The reference first, each side in the policy's order (keepRather).
        for (const bool reference : {true, false}) {
            std::vector<KeyedDocument> keyed;
            others([&](uint32_t d) {
                if (docs.reference(d) == reference) keyed.push_back({keepKey(policy, docs, d), d});
            });
            sortByKey(keyed);
            for (const KeyedDocument& k : keyed)
                place(k.doc);
        }
        return;
    }
    if (policy == KeepPolicy::Longest) {
        // The key fits in 32 bits: key << 32 | document.
        std::vector<uint64_t> keyed;
        others([&](uint32_t d) { keyed.push_back(uint64_t{~docs.chars[d]} << 32 | d); });
        sortByHigh32(keyed);
        for (const uint64_t k : keyed)
            place(static_cast<uint32_t>(k));
        return;
    }
    std::vector<KeyedDocument> keyed;
    others([&](uint32_t d) { keyed.push_back({keepKey(policy, docs, d), d}); });
    sortByKey(keyed);
    for (const KeyedDocument& k : keyed)
        place(k.doc);
}

// The removals whose witness is their cluster's representative, decided without visiting
// (findWitnesses): returns, per document, whether it is decided, and sets the witness of each
// decided document that is removed. Decided: the representative (kept), its signature copies,
// and every document with a duplicate pair with one of those; with its signature copies, since
// a class of copies is decided as one (its head carries every pair of the class). Only
// documents of visited clusters (not kept whole) have a representative to be decided by.
//
// Why no visit is needed: the representative comes first in its cluster's visiting order and is
// kept, so it is the earliest kept duplicate of each document it has a pair with; a copy of it
// has the same signature, hence the same pairs, and is removed for it. The other documents of
// the cluster have no pair with any of these, and the decided ones other than the
// representative are removed, so they never witness: the undecided documents are decided
// among themselves, over the pairs between them, exactly as the whole cluster would decide them.
template <typename Visited>
std::vector<uint8_t> representativeWitnesses(const std::vector<ScoredPair>& pairs,
                                             const DuplicateTest& duplicate, const RunResult& run,
                                             Visited visited,
                                             const std::vector<DocPair>& memberRoots,
                                             std::vector<uint32_t>& witness) {
    const std::size_t n = run.clusterOf.size();
    // near[d]: kRep for a representative and its copies, kDirect for a document with a pair with
    // one of those.
    constexpr uint8_t kRep = 1, kDirect = 2;
    std::vector<uint8_t> near(n, 0);
    for (const uint32_t rep : run.representative)
        if (visited(rep)) near[rep] = kRep;
    // A class holding a representative is the representative's copies; near[root] then
    // collects the class's marks, which every member then takes.
    auto classMarks = [&near, &memberRoots](uint8_t mark) {
        for (const auto& [d, root] : memberRoots)
            if (near[d] == mark) near[root] = mark;
        for (const auto& [d, root] : memberRoots)
            if (near[root] == mark && near[d] == 0) near[d] = mark;
    };
    if (!memberRoots.empty()) classMarks(kRep);
    const std::size_t count = pairs.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (i + kPrefetchAhead < count)
            __builtin_prefetch(near.data() + pairs[i + kPrefetchAhead].b);
        const ScoredPair& p = pairs[i];
        const uint8_t na = near[p.a], nb = near[p.b];
        if ((na == kRep) == (nb == kRep) || !duplicate(p)) continue;
        if (na == 0) near[p.a] = kDirect;
        if (nb == 0) near[p.b] = kDirect;
    }
    if (!memberRoots.empty()) classMarks(kDirect);
    for (std::size_t d = 0; d < n; ++d) {
        if (near[d] == 0) continue;
        const uint32_t rep = run.representative[run.clusterOf[d]];
        witness[d] = rep == d ? kNone : rep;
    }
    return near;
}

// True when no duplicate pair other than a copy pair has a copy that is not its class's root
// (`roots`: each document's copy-class root, itself when in no class) at either end.
bool onlyHeadsPairedOutside(const std::vector<ScoredPair>& pairs, const DuplicateTest& duplicate,
                            const std::vector<uint32_t>& roots) {
    const std::size_t count = pairs.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (i + kPrefetchAhead < count)
            __builtin_prefetch(roots.data() + pairs[i + kPrefetchAhead].b);
        const ScoredPair& p = pairs[i];
        if ((roots[p.a] != p.a || roots[p.b] != p.b) && !duplicate.copy(p) && duplicate(p))
            return false;
    }
    return true;
}

// Every clustered document's witness under the witness rule (kNone: kept), whatever rule the
// run decides by: the components rule counts its chained removals from them.
//
// A document's status is final once every duplicate pair with a document visited before it has
// been seen; a kept document then becomes the witness of each later duplicate that has none
// yet, so each removal gets its earliest kept duplicate in visiting order. Visiting order
// (visitingRanks): in each cluster the representative first, then keep order: the policy's key,
// then input order.
//
// The representative is visited first in its cluster and always kept, so a document with a
// duplicate pair with it is removed for it, whatever else it is linked to
// (representativeWitnesses): only the other documents of a cluster are visited, over the pairs
// between them. In clusters of near-duplicates around one document (most of them) that leaves
// few; a chain leaves most of its links.
//
// Signature copies: the comparison collapses documents with identical signatures onto the
// group's first document, so a copy's only stored pair is usually the one with it. A copy has
// the estimated similarity of its copies with every document, so the copies of a class (linked
// by duplicate pairs of identical signatures) are decided as one: its first member in visiting
// order (its head) carries every pair of the class, and the others are removed for it when it
// is kept, or for its witness when it is removed.
//
// `inputOrder`, when given: the input-order witnesses of the union's pass over the pairs sorted
// by (a, b), under --keep first, each representative its cluster's smallest member, no cluster
// kept whole (clusterDocuments); null otherwise. `inputOrderCopies`: whether that pass saw
// signature copies (without, its witnesses are the answer).
std::vector<uint32_t> findWitnesses(const std::vector<ScoredPair>& pairs,
                                    const DuplicateTest& duplicate, KeepPolicy policy,
                                    const DocumentTable& docs, RunResult& run,
                                    std::vector<uint32_t>* inputOrder, bool inputOrderCopies) {
    if (inputOrder && !inputOrderCopies) return std::move(*inputOrder);
    const std::size_t n = run.clusterOf.size();
    const bool anyWhole =
        std::any_of(run.keepAll.begin(), run.keepAll.end(), [](uint8_t k) { return k != 0; });
    auto visited = [&run, anyWhole](std::size_t i) {
        const uint32_t c = run.clusterOf[i];
        return c != RunResult::kNoCluster && !(anyWhole && run.keepAll[c] != 0);
    };
    std::vector<uint32_t> witness;

    // The duplicate pairs of identical signatures (signature copies), usually a tenth or fewer.
    std::vector<DocPair> copyPairs;
    for (const ScoredPair& p : pairs)
        if (duplicate.copy(p) && duplicate(p)) copyPairs.emplace_back(p.a, p.b);
    const bool copies = !copyPairs.empty();
    // Fast path: input order (see inputOrderWitness), one pass over the pairs, unless the
    // union's pass made it already.
    if (!inputOrder && policy == KeepPolicy::First && !anyWhole &&
        representativesFirstInInput(run)) {
        witness.assign(n, kNone);
        if (inputOrderWitnesses(
                pairs, duplicate, witness, [](const ScoredPair&) {}, [](uint32_t) {})
                .sorted)
            inputOrder = &witness;
    }
    if (inputOrder && !copies) return std::move(*inputOrder);

    // Copy classes: each member of a class (once per pair) with the class's root. The pairs
    // come sorted by their first document, so only the second is read at random: prefetched a
    // few pairs ahead, as in the union's pass. `scratch` (every document's class root, then
    // each class's lowest rank) is one array per document for both.
    std::vector<DocPair> memberRoots;
    std::vector<uint32_t> scratch;
    if (copies) {
        const std::size_t k = copyPairs.size();
        UnionFind classes(n);
        for (std::size_t i = 0; i < k; ++i) {
            if (i + kPrefetchAhead < k) classes.prefetch(copyPairs[i + kPrefetchAhead].second);
            classes.unite(copyPairs[i].first, copyPairs[i].second);
        }
        scratch = std::move(classes).roots();
        memberRoots.reserve(2 * k);
        for (std::size_t i = 0; i < k; ++i) {
            if (i + kPrefetchAhead < k)
                __builtin_prefetch(scratch.data() + copyPairs[i + kPrefetchAhead].second);
            const auto [a, b] = copyPairs[i];
            memberRoots.emplace_back(a, scratch[a]);
            memberRoots.emplace_back(b, scratch[b]);
        }
        copyPairs = {};
        // The class's root is the comparison's group leader, which holds the class's stored
        // pairs: what copyOf names.
        run.copyOf.assign(n, kNone);
        for (const auto& [d, root] : memberRoots)
            if (d != root) run.copyOf[d] = root;
    }
    // With copies, input-order witnesses hold for the heads of the copy classes (their roots:
    // the smallest member, first in input order, the comparison's group leader) when every
    // duplicate pair of another member is a copy pair within its class, as the comparison
    // stores them (it collapses copies onto their leader): the heads then carry every pair of
    // their class, and the other members follow their head.
    if (inputOrder && onlyHeadsPairedOutside(pairs, duplicate, scratch)) {
        if (inputOrder != &witness) witness = std::move(*inputOrder);  // not onto itself
        for (const auto& [d, root] : memberRoots)
            if (d != root) witness[d] = witness[root] == kNone ? root : witness[root];
        return witness;
    }
    witness.assign(n, kNone);
    // Most removals are decided without visiting: those of the representative's witness. Not
    // in a run against a reference, where a reference document that shares a signature with a
    // removed one must still be kept and witness: all are visited there.
    const std::vector<uint8_t> decided =
        docs.referenceDocuments > 0
            ? std::vector<uint8_t>(n, 0)
            : representativeWitnesses(pairs, duplicate, run, visited, memberRoots, witness);
    auto undecided = [&visited, &decided](std::size_t i) { return !decided[i] && visited(i); };

    std::vector<uint32_t> pos, order;
    visitingRanks(policy, docs, run, undecided, pos, order);
    const std::size_t m = order.size();
    // Each copy that is not its class's head, with the head: the member of lowest rank. Every
    // member takes the head's rank, so that the class's pairs all count for the head.
    std::vector<DocPair> copyHeads;
    if (copies) {
        std::vector<uint32_t>& lowest = scratch;  // per class root: the lowest rank of a member
        std::fill(lowest.begin(), lowest.end(), kNone);
        for (const auto& [d, root] : memberRoots)
            lowest[root] = std::min(lowest[root], pos[d]);
        for (const auto& [d, root] : memberRoots) {
            const uint32_t low = lowest[root];
            if (pos[d] == kNone || pos[d] == low) continue;  // not visited, the head, or seen
            pos[d] = low;
            copyHeads.emplace_back(d, order[low]);
        }
    }

    const std::vector<uint64_t> edges =
        sortedRankEdges(pairs, duplicate, pos, m, run.counts.duplicatePairs);
    pos = {};
    // Visit in rank order: a head that no earlier kept head has claimed is kept and claims its
    // later duplicates that are still unclaimed (their witness: the earliest kept duplicate).
    // A copy other than its class's head has no edges and is never claimed.
    std::vector<uint32_t> byRank(m, kNone);
    std::size_t e = 0;
    const std::size_t edgeCount = edges.size();
    for (std::size_t r = 0; r < m; ++r) {
        if (r + kPrefetchAhead < m)
            __builtin_prefetch(witness.data() + order[r + kPrefetchAhead], 1);
        const std::size_t from = e;
        while (e < edgeCount && (edges[e] >> 32) == r)
            ++e;
        if (byRank[r] != kNone) {
            witness[order[r]] = order[byRank[r]];
            continue;
        }
        for (std::size_t k = from; k < e; ++k) {
            if (k + kPrefetchAhead < edgeCount)
                __builtin_prefetch(byRank.data() + static_cast<uint32_t>(edges[k + kPrefetchAhead]),
                                   1);
            uint32_t& claim = byRank[static_cast<uint32_t>(edges[k])];
            if (claim == kNone) claim = static_cast<uint32_t>(r);
        }
    }
    // The other members of a class follow its head.
    for (const auto& [d, h] : copyHeads)
        witness[d] = witness[h] == kNone ? h : witness[h];
    return witness;
}

void decide(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
            std::span<const DocPair> excluded, KeepPolicy policy, DecideRule rule,
            const DocumentTable& docs, RunResult& run, std::vector<uint32_t>* inputOrder,
            bool inputOrderCopies) {
    const std::size_t n = run.clusterOf.size();
    const DuplicateTest duplicate(hashes, threshold, excluded, docs.referenceDocuments);
    run.copyOf.clear();
    std::vector<uint32_t> witness =
        findWitnesses(pairs, duplicate, policy, docs, run, inputOrder, inputOrderCopies);
    const bool anyWhole =
        std::any_of(run.keepAll.begin(), run.keepAll.end(), [](uint8_t k) { return k != 0; });
    // Chained removals: members the components rule removes without a duplicate of their
    // representative. The representative is visited first in its cluster and always kept, so a
    // member that is its duplicate has it as witness, and only such a member. The witnesses
    // become removedFor in place (the components rule then overwrites them with the
    // representative), and the removals are counted in the same pass (countRemovals).
    const bool byWitness = rule == DecideRule::Witness;
    run.removedFor = std::move(witness);
    run.chained.assign(n, 0);
    uint64_t chained = 0, removed = 0, byReference = 0;
    const uint32_t references = docs.referenceDocuments;
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t c = run.clusterOf[i];
        // A reference document is kept: visited before every new document of its cluster and
        // paired with no other reference document, it has no witness under either rule.
        if (c == RunResult::kNoCluster || (anyWhole && run.keepAll[c]) ||
            run.representative[c] == i || i < references) {
            run.removedFor[i] = kNone;
            continue;
        }
        const uint32_t rep = run.representative[c];
        run.chained[i] = run.removedFor[i] != rep ? 1 : 0;
        chained += run.chained[i];
        if (!byWitness) run.removedFor[i] = rep;
        removed += run.removedFor[i] != kNone ? 1 : 0;
        byReference += run.removedFor[i] < references ? 1 : 0;
    }
    run.counts.chainedRemovals = chained;
    run.counts.referenceDocuments = references;
    run.counts.removedByReference = byReference;
    run.counts.removed = removed;
    run.counts.kept = n - references - removed;
}

}  // namespace

const ScoredPair* findPair(const std::vector<ScoredPair>& pairs, uint32_t x, uint32_t y) {
    const ScoredPair key{std::min(x, y), std::max(x, y), 0, -1.0f};
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), key);
    return it != pairs.end() && it->a == key.a && it->b == key.b ? &*it : nullptr;
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

namespace {

// The kept document a removed `doc` is removed for.
uint32_t keptByOf(const RunResult& run, uint32_t doc) {
    return run.removedFor.empty() ? run.representative[run.clusterOf[doc]] : run.removedFor[doc];
}

// The leader of `d`'s group of signature copies (d itself when it has none): copies share their
// leader's pairs.
uint32_t copyLeader(const RunResult& run, uint32_t d) {
    return run.copyOf.empty() || run.copyOf[d] == RunResult::kNoDocument ? d : run.copyOf[d];
}

}  // namespace

std::optional<ScoredPair> witnessPair(const RunResult& run, const std::vector<ScoredPair>& pairs,
                                      uint32_t doc) {
    if (!run.removed(doc)) return std::nullopt;
    const uint32_t rep = run.representative[run.clusterOf[doc]];
    const uint32_t keptBy = keptByOf(run, doc);
    if (keptBy == rep && !run.chained.empty() && run.chained[doc]) return std::nullopt;
    const ScoredPair* p = findPair(pairs, doc, keptBy);
    if (!p && !run.copyOf.empty()) {
        // A witness in the same class of signature copies is an identical signature, another
        // one is judged by the two leaders' pair.
        const uint32_t ld = copyLeader(run, doc), lw = copyLeader(run, keptBy);
        const ScoredPair self{std::min(doc, keptBy), std::max(doc, keptBy),
                              static_cast<uint32_t>(run.params.signature.hashes), -1.0f};
        if (ld == lw) return self;
        // The leaders' exact Jaccard is the pair's own when each document's shingle set is its
        // leader's (their pair verified at exact 1): a verified run then names it too.
        auto sameSet = [&pairs](uint32_t x, uint32_t leader) {
            if (x == leader) return true;
            const ScoredPair* c = findPair(pairs, x, leader);
            return c != nullptr && c->exact >= 1.0f;
        };
        if (const ScoredPair* q = findPair(pairs, ld, lw))
            return ScoredPair{self.a, self.b, q->matches,
                              sameSet(doc, ld) && sameSet(keptBy, lw) ? q->exact : -1.0f};
    }
    if (!p) return std::nullopt;
    // A witness other than the representative was chosen for its duplicate pair; a removal for
    // the representative has one when the clustering found it (not chained), or, for a run
    // loaded without that mark, when the stored pair is a duplicate at the threshold.
    if (keptBy != rep || !run.chained.empty()) return *p;
    if (isDuplicate(*p, run.params.signature.hashes, run.params.compare.threshold)) return *p;
    return std::nullopt;
}

std::vector<uint64_t> witnessPairKeys(const RunResult& run) {
    std::vector<uint64_t> keys;
    auto add = [&keys](uint32_t x, uint32_t y) {
        if (x != y) keys.push_back(uint64_t{std::min(x, y)} << 32 | std::max(x, y));
    };
    for (uint32_t doc = 0; doc < run.clusterOf.size(); ++doc) {
        if (!run.removed(doc)) continue;
        const uint32_t keptBy = keptByOf(run, doc);
        add(doc, keptBy);
        add(copyLeader(run, doc), copyLeader(run, keptBy));
        // And each with its leader: whether their shingle sets are equal (witnessPair), which
        // only a run that verifies every pair knows.
        if (run.params.compare.verify == VerifyMode::Exact) {
            add(doc, copyLeader(run, doc));
            add(keptBy, copyLeader(run, keptBy));
        }
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

}  // namespace neardup
