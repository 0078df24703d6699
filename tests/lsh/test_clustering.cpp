// Union-find, duplicate decisions, representative policies, and the two rules that decide
// removals: witness (every removed document has a kept duplicate) and components.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "clustering.h"
#include "clustering_fixture.h"

using namespace neardup;

namespace {

using clusteringtest::table;

constexpr uint32_t kNear = 115;  // 0.90: a duplicate at 0.8
constexpr uint32_t kFar = 105;   // 0.82: a duplicate at 0.8
constexpr uint32_t kBelow = 96;  // 0.75: stored, not a duplicate at 0.8

// A chain of n versions, each a small edit of the previous: neighbours are duplicates, so are
// versions two apart, versions three apart are not.
std::vector<ScoredPair> chainPairs(uint32_t n) {
    std::vector<ScoredPair> pairs;
    for (uint32_t i = 0; i < n; ++i) {
        if (i + 1 < n) pairs.push_back({i, i + 1, kNear, -1.0f});
        if (i + 2 < n) pairs.push_back({i, i + 2, kFar, -1.0f});
        if (i + 3 < n) pairs.push_back({i, i + 3, kBelow, -1.0f});
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

std::vector<uint32_t> removedDocs(const RunResult& r) {
    std::vector<uint32_t> out;
    for (std::size_t i = 0; i < r.clusterOf.size(); ++i)
        if (r.removed(i)) out.push_back(static_cast<uint32_t>(i));
    return out;
}

// The witness rule's promise, checked from the outside: every removed document has a kept
// witness before it in keep order with a duplicate pair, and no kept document (but the
// representatives) has a duplicate pair with a kept document before it.
void checkWitnesses(const RunResult& r, const std::vector<ScoredPair>& pairs, KeepPolicy policy,
                    const DocumentTable& docs) {
    const std::size_t n = r.clusterOf.size();
    QCOMPARE(r.removedFor.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto d = static_cast<uint32_t>(i);
        if (!r.removed(d)) continue;
        const uint32_t w = r.removedFor[d];
        QVERIFY(w < n && !r.removed(w));
        QCOMPARE(r.clusterOf[w], r.clusterOf[d]);
        QVERIFY(keepRather(policy, docs, w, d));
        const ScoredPair* p = findPair(pairs, d, w);
        QVERIFY(p && isDuplicate(*p, 128, 0.8));
        const std::optional<ScoredPair> wp = witnessPair(r, pairs, d);
        QVERIFY(wp && wp->a == p->a && wp->b == p->b && wp->matches == p->matches);
    }
    for (const ScoredPair& p : pairs) {
        if (!isDuplicate(p, 128, 0.8)) continue;
        QVERIFY2(r.removed(p.a) || r.removed(p.b), "two kept documents form a duplicate pair");
    }
}

// The witness rule written the slow, obvious way, to check the fast paths against: per
// cluster, the members in visiting order (the representative, then keep order); signature
// copies (linked by duplicate pairs of identical signatures) decided as one class whose first
// visited member carries the class's pairs; a class is removed for the first kept class it has
// a duplicate pair with, its other members follow its first.
std::vector<uint32_t> referenceWitnesses(const std::vector<ScoredPair>& pairs, const RunResult& run,
                                         KeepPolicy policy, const DocumentTable& docs,
                                         const std::vector<DocPair>& excluded) {
    constexpr uint32_t kNone = RunResult::kNoDocument;
    const std::size_t n = run.clusterOf.size();
    auto duplicate = [&](const ScoredPair& p) {
        return isDuplicate(p, 128, 0.8) &&
               !std::binary_search(excluded.begin(), excluded.end(), DocPair{p.a, p.b});
    };
    UnionFind classes(n);
    for (const ScoredPair& p : pairs)
        if (p.matches == 128 && duplicate(p)) classes.unite(p.a, p.b);
    std::vector<uint32_t> cls(n);
    for (std::size_t i = 0; i < n; ++i)
        cls[i] = classes.find(static_cast<uint32_t>(i));
    std::vector<std::vector<uint8_t>> linked(n, std::vector<uint8_t>(n, 0));  // class x class
    for (const ScoredPair& p : pairs)
        if (duplicate(p) && cls[p.a] != cls[p.b])
            linked[cls[p.a]][cls[p.b]] = linked[cls[p.b]][cls[p.a]] = 1;
    std::vector<uint32_t> witness(n, kNone);
    for (std::size_t c = 0; c < run.representative.size(); ++c) {
        std::vector<uint32_t> members;
        for (std::size_t i = 0; i < n; ++i)
            if (run.clusterOf[i] == c) members.push_back(static_cast<uint32_t>(i));
        const uint32_t rep = run.representative[c];
        std::sort(members.begin(), members.end(), [&](uint32_t x, uint32_t y) {
            if (x == rep || y == rep) return x == rep && y != rep;
            return keepRather(policy, docs, x, y);
        });
        std::vector<uint32_t> headOfClass(n, kNone), keptHeads;
        for (const uint32_t d : members) {
            uint32_t& head = headOfClass[cls[d]];
            if (head != kNone) {  // a later member of a class: follows its head
                witness[d] = witness[head] == kNone ? head : witness[head];
                continue;
            }
            head = d;
            for (const uint32_t k : keptHeads)
                if (linked[cls[k]][cls[d]]) {
                    witness[d] = k;
                    break;
                }
            if (witness[d] == kNone) keptHeads.push_back(d);
        }
    }
    return witness;
}

}  // namespace

class TestClustering : public QObject {
    Q_OBJECT
  private slots:
    void unionFindRootIsSmallest() {
        UnionFind uf(10);
        uf.unite(9, 4);
        uf.unite(4, 7);
        uf.unite(7, 2);
        uf.unite(5, 6);
        QCOMPARE(uf.find(9), 2u);
        QCOMPARE(uf.find(4), 2u);
        QCOMPARE(uf.find(6), 5u);
        QCOMPARE(uf.find(0), 0u);
    }
    void thresholdIsInclusiveAndExact() {
        // 0.8 * 128 = 102.4 -> 103 matches needed.
        QVERIFY(isDuplicate({0, 1, 103, -1.0f}, 128, 0.8));
        QVERIFY(!isDuplicate({0, 1, 102, -1.0f}, 128, 0.8));
        // 0.75 * 128 = 96 exactly: 96 passes (no floating-point rounding below).
        QVERIFY(isDuplicate({0, 1, 96, -1.0f}, 128, 0.75));
        // Verified pairs are judged by their exact Jaccard, whatever the estimate said.
        QVERIFY(!isDuplicate({0, 1, 128, 0.5f}, 128, 0.8));
        QVERIFY(isDuplicate({0, 1, 110, 0.85f}, 128, 0.8));
        QVERIFY(isDuplicate({0, 1, 90, 0.8f}, 128, 0.8));
    }
    void clustersAndFirstPolicy() {
        const DocumentTable docs = table(8);
        // Chain 1-3-6 (transitive), pair 4-7, and a pair below threshold 0-2.
        const std::vector<ScoredPair> pairs{
            {0, 2, 50, -1}, {1, 3, 120, -1}, {3, 6, 110, -1}, {4, 7, 128, -1}};
        RunResult run;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, DecideRule::Components, docs, run);
        QCOMPARE(run.counts.duplicatePairs, uint64_t(3));
        QCOMPARE(run.counts.clusters, uint64_t(2));
        QCOMPARE(run.representative, (std::vector<uint32_t>{1, 4}));
        const auto none = RunResult::kNoCluster;
        QCOMPARE(run.clusterOf, (std::vector<uint32_t>{none, 0, none, 0, 1, none, 0, 1}));
        QCOMPARE(run.counts.removed, uint64_t(3));
        QCOMPARE(run.counts.kept, uint64_t(5));
        QVERIFY(run.removed(3) && run.removed(6) && run.removed(7));
        QVERIFY(!run.removed(1) && !run.removed(0));
    }
    void longestAndMaxFieldPolicies() {
        DocumentTable docs = table(4);
        docs.chars = {10, 30, 30, 5};
        docs.keepValue = {std::nan(""), 2.0, 7.5, 7.5};
        const std::vector<ScoredPair> pairs{{0, 1, 128, -1}, {1, 2, 128, -1}, {2, 3, 128, -1}};
        RunResult run;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::Longest, DecideRule::Components, docs, run);
        QCOMPARE(run.representative, (std::vector<uint32_t>{1}));  // tie 1/2 -> earliest
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::MaxField, DecideRule::Components, docs, run);
        QCOMPARE(run.representative, (std::vector<uint32_t>{2}));  // tie 2/3 -> earliest; NaN last
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, DecideRule::Components, docs, run);
        QCOMPARE(run.representative, (std::vector<uint32_t>{0}));
    }
    // The chain of the issue: 25 versions, each an edit of the previous. Components remove 24,
    // of which 22 resemble nothing kept; witnesses remove only duplicates of kept versions.
    void chainUnderBothRules() {
        const DocumentTable docs = table(25);
        const std::vector<ScoredPair> pairs = chainPairs(25);
        RunResult comp, wit;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, DecideRule::Components, docs, comp);
        QCOMPARE(comp.counts.clusters, uint64_t(1));
        QCOMPARE(comp.counts.removed, uint64_t(24));
        QCOMPARE(comp.counts.chainedRemovals, uint64_t(22));  // all but versions 1 and 2
        QVERIFY(!comp.removed(0));
        for (uint32_t d = 1; d < 25; ++d) {
            QCOMPARE(comp.removedFor[d], 0u);
            QCOMPARE(witnessPair(comp, pairs, d).has_value(), d <= 2);
        }

        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, DecideRule::Witness, docs, wit);
        // Same component, same representative, same chained count; every third version kept.
        QCOMPARE(wit.clusterOf, comp.clusterOf);
        QCOMPARE(wit.representative, comp.representative);
        QCOMPARE(wit.counts.chainedRemovals, uint64_t(22));
        QCOMPARE(wit.counts.kept, uint64_t(9));
        QCOMPARE(wit.counts.removed, uint64_t(16));
        for (uint32_t d = 0; d < 25; ++d) {
            QCOMPARE(wit.removed(d), d % 3 != 0);
            if (d % 3 != 0) QCOMPARE(wit.removedFor[d], d - d % 3);
        }
        checkWitnesses(wit, pairs, KeepPolicy::First, docs);
    }

    // When every member is a duplicate of the document kept first, both rules agree.
    void starAndCliqueGiveTheSameRemovals() {
        DocumentTable docs = table(12);
        // Star: centre 3, the longest, leaves 0, 1, 2, 4, 5 (not duplicates of each other);
        // clique: 6..11, every pair a duplicate.
        docs.chars = {100, 100, 100, 500, 100, 100, 100, 100, 100, 100, 100, 100};
        std::vector<ScoredPair> pairs;
        for (const uint32_t leaf : {0u, 1u, 2u, 4u, 5u})
            pairs.push_back({std::min(leaf, 3u), std::max(leaf, 3u), kNear, -1.0f});
        for (uint32_t a = 0; a < 5; ++a)
            for (uint32_t b = a + 1; b < 6; ++b)
                if (a != 3 && b != 3) pairs.push_back({a, b, kBelow, -1.0f});
        for (uint32_t a = 6; a < 12; ++a)
            for (uint32_t b = a + 1; b < 12; ++b)
                pairs.push_back({a, b, (a + b) % 2 ? kNear : kFar, -1.0f});
        std::sort(pairs.begin(), pairs.end());
        for (const KeepPolicy policy : {KeepPolicy::Longest, KeepPolicy::First}) {
            RunResult comp, wit;
            clusterDocuments(pairs, 128, 0.8, policy, DecideRule::Components, docs, comp);
            clusterDocuments(pairs, 128, 0.8, policy, DecideRule::Witness, docs, wit);
            if (policy == KeepPolicy::Longest) {
                QCOMPARE(removedDocs(wit), removedDocs(comp));
                QCOMPARE(wit.removedFor, comp.removedFor);
                QCOMPARE(comp.counts.chainedRemovals, uint64_t(0));
                QCOMPARE(wit.counts.removed, uint64_t(5 + 5));
            } else {
                // Kept first, leaf 0 vouches for no other leaf: the star keeps 1, 2, 4 and 5
                // only under the witness rule (the clique is the same under both).
                QCOMPARE(comp.counts.chainedRemovals, uint64_t(4));
                QCOMPARE(removedDocs(wit), (std::vector<uint32_t>{3, 7, 8, 9, 10, 11}));
                QCOMPARE(wit.removedFor[3], 0u);
            }
            checkWitnesses(wit, pairs, policy, docs);
        }
    }

    // The visiting order is the keep order: the policy's key, then input order.
    void witnessesFollowTheKeepOrder() {
        const std::vector<ScoredPair> pairs = chainPairs(7);
        DocumentTable docs = table(7);
        // Longest: 6 first (kept), then 5 and 4 are its duplicates, 3 is kept, ...
        docs.chars = {10, 20, 30, 40, 50, 60, 70};
        RunResult r;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::Longest, DecideRule::Witness, docs, r);
        QCOMPARE(r.representative, (std::vector<uint32_t>{6}));
        QCOMPARE(removedDocs(r), (std::vector<uint32_t>{1, 2, 4, 5}));
        QCOMPARE(r.removedFor[5], 6u);
        QCOMPARE(r.removedFor[4], 6u);
        QCOMPARE(r.removedFor[2], 3u);
        QCOMPARE(r.removedFor[1], 3u);
        checkWitnesses(r, pairs, KeepPolicy::Longest, docs);
        // Ties in length go to input order: all equal is --keep first.
        docs.chars.assign(7, 5);
        RunResult tie, first;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::Longest, DecideRule::Witness, docs, tie);
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, DecideRule::Witness, docs, first);
        QCOMPARE(tie.removedFor, first.removedFor);
        QCOMPARE(removedDocs(first), (std::vector<uint32_t>{1, 2, 4, 5}));
        // max:FIELD: the largest value first, documents without one last (in input order).
        docs.keepValue = {std::nan(""), 1.0, 2.0, std::nan(""), 7.0, 3.0, 3.0};
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::MaxField, DecideRule::Witness, docs, r);
        // Order: 4, 5, 6, 2, 1, 0, 3. 4 kept; 5, 6, 2 its duplicates; 1 kept (its duplicates
        // are removed or later); 0 a duplicate of 1; 3 of 1 and of 4, visited first.
        QCOMPARE(r.representative, (std::vector<uint32_t>{4}));
        QCOMPARE(removedDocs(r), (std::vector<uint32_t>{0, 2, 3, 5, 6}));
        QCOMPARE(r.removedFor[0], 1u);
        QCOMPARE(r.removedFor[3], 4u);
        checkWitnesses(r, pairs, KeepPolicy::MaxField, docs);
    }

    // Witnesses depend on the pairs as a set: any order of the pairs (threads, workers and
    // ranks deliver them in different orders before sorting) gives the same result.
    void witnessesDoNotDependOnPairOrder() {
        const DocumentTable docs = table(40);
        std::vector<ScoredPair> pairs = chainPairs(40);
        for (uint32_t a = 0; a < 40; a += 7)
            for (uint32_t b = a + 5; b < 40; b += 11)
                pairs.push_back({a, b, kNear, -1.0f});
        std::sort(pairs.begin(), pairs.end());
        pairs.erase(std::unique(pairs.begin(), pairs.end(),
                                [](const ScoredPair& x, const ScoredPair& y) {
                                    return x.a == y.a && x.b == y.b;
                                }),
                    pairs.end());
        RunResult ref;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, DecideRule::Witness, docs, ref);
        checkWitnesses(ref, pairs, KeepPolicy::First, docs);
        std::mt19937 rng(5);
        for (int round = 0; round < 5; ++round) {
            std::vector<ScoredPair> shuffled = pairs;
            std::shuffle(shuffled.begin(), shuffled.end(), rng);
            RunResult r;
            clusterDocuments(shuffled, 128, 0.8, KeepPolicy::First, DecideRule::Witness, docs, r);
            QCOMPARE(r.removedFor, ref.removedFor);
            QCOMPARE(r.clusterOf, ref.clusterOf);
            QCOMPARE(r.counts.chainedRemovals, ref.counts.chainedRemovals);
        }
    }

    // The comparison collapses documents with identical signatures onto the group's first
    // document: a copy's only stored pair is with it. A copy is a duplicate of whatever that
    // document is a duplicate of, so it shares its fate: here 2 (a copy of 1) is removed for 0
    // like 1, although no pair of 0 and 2 is stored, and no removal is chained.
    void signatureCopiesShareTheirLeadersWitness() {
        const DocumentTable docs = table(6);
        // 0 - 1 a near-duplicate; 2 and 3 copies of 1; 4 - 5 a pair of copies.
        std::vector<ScoredPair> pairs{
            {0, 1, kNear, -1.0f}, {1, 2, 128, -1.0f}, {1, 3, 128, -1.0f}, {4, 5, 128, -1.0f}};
        for (const DecideRule rule : {DecideRule::Witness, DecideRule::Components}) {
            for (const bool shuffled : {false, true}) {
                if (shuffled) std::reverse(pairs.begin(), pairs.end());
                RunResult r;
                clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, rule, docs, r);
                QCOMPARE(removedDocs(r), (std::vector<uint32_t>{1, 2, 3, 5}));
                QCOMPARE(r.counts.chainedRemovals, uint64_t(0));
                if (rule == DecideRule::Witness)
                    QCOMPARE(r.removedFor, (std::vector<uint32_t>{RunResult::kNoDocument, 0, 0, 0,
                                                                  RunResult::kNoDocument, 4}));
                // Each removal has its witness pair, through its copy when none is stored: 2
                // and 3 share 1's pair with 0 (under components too: 0 is the representative).
                std::vector<ScoredPair> sorted = pairs;
                std::sort(sorted.begin(), sorted.end());
                for (const uint32_t d : {1u, 2u, 3u, 5u}) {
                    const std::optional<ScoredPair> w = witnessPair(r, sorted, d);
                    QVERIFY(w && (w->a == d || w->b == d));
                    QCOMPARE(w->matches, d == 5 ? 128u : kNear);
                }
                if (shuffled) std::reverse(pairs.begin(), pairs.end());
            }
        }
        // Longest: 3 (a copy of 1) is the longest, so the representative; 1 and 2 are its
        // copies, 0 its duplicate through 1.
        DocumentTable longer = docs;
        longer.chars = {5, 10, 10, 20, 1, 1};
        RunResult r;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::Longest, DecideRule::Witness, longer, r);
        QCOMPARE(removedDocs(r), (std::vector<uint32_t>{0, 1, 2, 5}));
        QCOMPARE(r.removedFor[0], 3u);
        QCOMPARE(r.removedFor[1], 3u);
        QCOMPARE(r.counts.chainedRemovals, uint64_t(0));
    }

    // The fast paths (input order in the union's pass; the representative's own pairs; ranks,
    // a radix sort and a visit for chained clusters) against the obvious algorithm, on random
    // stars, chains and cliques, with ties in length and field, missing field values, signature
    // copies, "not a duplicate" exclusions and pairs in any order.
    void witnessesMatchTheObviousAlgorithm() {
        std::mt19937 rng(11);
        const KeepPolicy policies[] = {KeepPolicy::First, KeepPolicy::Longest,
                                       KeepPolicy::MaxField};
        for (int round = 0; round < 300; ++round) {
            const uint32_t n = 8 + static_cast<uint32_t>(rng() % 50);
            DocumentTable docs = table(n);
            for (uint32_t i = 0; i < n; ++i) {
                docs.chars[i] = 1 + static_cast<uint32_t>(rng() % 4);
                docs.keepValue[i] = rng() % 4 == 0 ? std::nan("") : static_cast<double>(rng() % 3);
            }
            const bool copies = round % 2 == 1;
            const uint32_t levels[] = {kNear, kFar, kBelow, 128};
            std::vector<uint32_t> perm(n);
            std::iota(perm.begin(), perm.end(), 0u);
            std::shuffle(perm.begin(), perm.end(), rng);
            std::vector<ScoredPair> pairs;
            auto add = [&](uint32_t x, uint32_t y) {
                const uint32_t m = levels[rng() % (copies ? 4 : 3)];
                pairs.push_back({std::min(x, y), std::max(x, y), m, -1.0f});
            };
            for (uint32_t at = 0; at + 2 <= n;) {
                const uint32_t size = std::min<uint32_t>(n - at, 2 + rng() % 8);
                const uint32_t* m = perm.data() + at;
                switch (rng() % 4) {
                    case 0:
                        for (uint32_t j = 1; j < size; ++j)
                            add(m[0], m[j]);
                        break;
                    case 1:
                        for (uint32_t j = 1; j < size; ++j) {
                            add(m[j - 1], m[j]);
                            if (j >= 2 && rng() % 2) add(m[j - 2], m[j]);
                        }
                        break;
                    case 2:
                        for (uint32_t x = 0; x < size; ++x)
                            for (uint32_t y = x + 1; y < size; ++y)
                                if (rng() % 3) add(m[x], m[y]);
                        break;
                    default:
                        break;  // singletons
                }
                at += size;
            }
            std::sort(pairs.begin(), pairs.end());
            std::vector<DocPair> excluded;
            if (round % 3 == 0)
                for (const ScoredPair& p : pairs)
                    if (rng() % 6 == 0) excluded.emplace_back(p.a, p.b);
            if (round % 5 == 4) std::shuffle(pairs.begin(), pairs.end(), rng);
            std::vector<ScoredPair> sorted = pairs;
            std::sort(sorted.begin(), sorted.end());
            for (const KeepPolicy policy : policies) {
                RunResult r;
                clusterDocuments(pairs, 128, 0.8, policy, DecideRule::Witness, docs, r, excluded);
                const std::vector<uint32_t> expected =
                    referenceWitnesses(sorted, r, policy, docs, excluded);
                QVERIFY2(r.removedFor == expected, qPrintable(QStringLiteral("round %1, policy %2")
                                                                  .arg(round)
                                                                  .arg(static_cast<int>(policy))));
                if (!copies && excluded.empty()) checkWitnesses(r, sorted, policy, docs);
            }
        }
    }

    void orderOfPairsDoesNotMatter() {
        const DocumentTable docs = table(6);
        std::vector<ScoredPair> pairs{{0, 5, 128, -1}, {2, 3, 128, -1}, {3, 5, 128, -1}};
        RunResult a, b;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, DecideRule::Components, docs, a);
        std::reverse(pairs.begin(), pairs.end());
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, DecideRule::Components, docs, b);
        QCOMPARE(a.clusterOf, b.clusterOf);
        QCOMPARE(a.representative, b.representative);
    }
};

QTEST_GUILESS_MAIN(TestClustering)
#include "test_clustering.moc"
