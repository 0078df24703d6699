// The witness rule: which kept document each removal is removed for (witness_rule.h), and the
// removals decided by rule from it.
#include "witness_rule.h"

#include <cstring>
#include <utility>

#include "radix_sort.h"

namespace neardup::witness_rule {

namespace {

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

}  // namespace

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

}  // namespace neardup::witness_rule
