// The witness rule's fast path (visiting ranks from one radix sort of precomputed keep keys,
// rank edges scattered into cache-sized buckets, copy classes from the copy pairs alone) against
// a straightforward reference written here: per cluster, visit the members in keepRather order
// (the representative first) and remove a member when a kept member is its duplicate. Random
// graphs large enough for every radix pass to run (more than 2,048 ranks and clusters, lengths
// and field values that differ in every digit), for each keep policy, with ties of length and
// field, missing values, signature copies (linked at random, or paired with their leader only,
// as the comparison stores them, which --keep first decides from the union's own pass), "not a
// duplicate" exclusions, representatives moved by "keep this one instead" and clusters kept
// whole.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "clustering.h"

using namespace neardup;

namespace {

constexpr int kHashes = 128;
constexpr double kThreshold = 0.8;
constexpr uint32_t kNone = RunResult::kNoDocument;

struct Graph {
    DocumentTable docs;
    std::vector<ScoredPair> pairs;  // sorted by (a, b)
    std::vector<DocPair> excluded;  // sorted
};

// Stars, chains and cliques of up to 40 members (most of up to 7), and one long chain, over a
// random permutation of n documents; a quarter of the documents in no pair. Lengths and field
// values are drawn from a few values (ties) or from the whole range.
// With `collapsedCopies`, documents of no pair become signature copies of clustered ones, as the
// comparison stores them: each paired with its group's leader only (the smaller document), one
// in three also with another copy of that leader.
Graph randomGraph(uint32_t n, bool copies, bool exclusions, bool collapsedCopies,
                  std::mt19937_64& rng) {
    Graph g;
    for (uint32_t i = 0; i < n; ++i) {
        const bool tie = rng() % 2 == 0;
        const auto chars = static_cast<uint32_t>(tie ? 1 + rng() % 3 : rng());
        double value = std::nan("");
        switch (rng() % 6) {
            case 0:
                break;  // no value
            case 1:
                value = static_cast<double>(rng() % 3) - 1.0;  // -1, 0, 1: ties
                break;
            case 2:
                value = rng() % 2 ? -0.0 : 0.0;  // equal values of two signs
                break;
            case 3:
                value = rng() % 2 ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity();
                break;
            default:
                value = std::ldexp(static_cast<double>(rng() % 1000000) - 500000.0,
                                   static_cast<int>(rng() % 200) - 100);
        }
        g.docs.append(0, i + 1, uint64_t{i} * 10, 9, chars, value, "d" + std::to_string(i));
    }
    const uint32_t levels[] = {115, 105, 96, 128};  // 0.90, 0.82, 0.75 (not a duplicate), copy
    auto add = [&](uint32_t x, uint32_t y) {
        const uint32_t m = levels[rng() % (copies ? 4 : 3)];
        g.pairs.push_back({std::min(x, y), std::max(x, y), m, -1.0f});
    };
    std::vector<uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    const uint32_t clustered = n / 4 * 3;
    uint32_t at = 0;
    {  // one long chain
        const uint32_t size = std::min<uint32_t>(clustered, 600);
        for (uint32_t j = 1; j < size; ++j) {
            add(perm[j - 1], perm[j]);
            if (j >= 2) add(perm[j - 2], perm[j]);
        }
        at = size;
    }
    while (at + 2 <= clustered) {
        const uint32_t largest = rng() % 4 == 0 ? 39 : 6;
        const uint32_t size = std::min<uint32_t>(clustered - at, 2 + rng() % largest);
        const uint32_t* m = perm.data() + at;
        switch (rng() % 3) {
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
            default:
                for (uint32_t x = 0; x < size; ++x)
                    for (uint32_t y = x + 1; y < size; ++y)
                        if (rng() % 3) add(m[x], m[y]);
        }
        at += size;
    }
    if (collapsedCopies)
        for (uint32_t j = clustered; j + 1 < n; j += 2) {
            const uint32_t leader = perm[rng() % clustered], copy = perm[j], second = perm[j + 1];
            if (leader > copy || rng() % 2) continue;
            g.pairs.push_back({leader, copy, 128, -1.0f});
            if (leader < second && rng() % 3 == 0) {
                g.pairs.push_back({leader, second, 128, -1.0f});
                g.pairs.push_back({std::min(copy, second), std::max(copy, second), 128, -1.0f});
            }
        }
    std::sort(g.pairs.begin(), g.pairs.end());
    g.pairs.erase(std::unique(g.pairs.begin(), g.pairs.end(),
                              [](const ScoredPair& x, const ScoredPair& y) {
                                  return x.a == y.a && x.b == y.b;
                              }),
                  g.pairs.end());
    if (exclusions)
        for (const ScoredPair& p : g.pairs)
            if (rng() % 8 == 0) g.excluded.emplace_back(p.a, p.b);
    return g;
}

// Each document's copy-class leader (the smallest document of its class of duplicate pairs of
// identical signatures), kNone for a document in no class or a leader; empty when there are no
// copies.
std::vector<uint32_t> copyLeaders(const Graph& g) {
    const std::size_t n = g.docs.size();
    UnionFind classes(n);
    bool any = false;
    for (const ScoredPair& p : g.pairs)
        if (p.matches == static_cast<uint32_t>(kHashes) && isDuplicate(p, kHashes, kThreshold) &&
            !std::binary_search(g.excluded.begin(), g.excluded.end(), DocPair{p.a, p.b})) {
            classes.unite(p.a, p.b);
            any = true;
        }
    if (!any) return {};
    std::vector<uint32_t> leader(n, kNone);
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t root = classes.find(static_cast<uint32_t>(i));
        if (root != i) leader[i] = root;
    }
    return leader;
}

// The reference: documents of identical signatures (duplicate pairs of 128 matches) form a
// class, decided as one by its first member in visiting order; a class is removed for the
// earliest kept class (in visiting order) it has a duplicate pair with; its other members
// follow its first. Clusters kept whole are not visited.
std::vector<uint32_t> referenceWitnesses(const Graph& g, const RunResult& run, KeepPolicy policy) {
    const std::size_t n = run.clusterOf.size();
    auto duplicate = [&](const ScoredPair& p) {
        return isDuplicate(p, kHashes, kThreshold) &&
               !std::binary_search(g.excluded.begin(), g.excluded.end(), DocPair{p.a, p.b});
    };
    UnionFind classes(n);
    for (const ScoredPair& p : g.pairs)
        if (p.matches == static_cast<uint32_t>(kHashes) && duplicate(p)) classes.unite(p.a, p.b);
    std::vector<uint32_t> cls(n);
    for (std::size_t i = 0; i < n; ++i)
        cls[i] = classes.find(static_cast<uint32_t>(i));
    std::vector<std::vector<uint32_t>> linked(n);  // per class: the classes it is a duplicate of
    for (const ScoredPair& p : g.pairs)
        if (duplicate(p) && cls[p.a] != cls[p.b]) {
            linked[cls[p.a]].push_back(cls[p.b]);
            linked[cls[p.b]].push_back(cls[p.a]);
        }
    std::vector<std::vector<uint32_t>> members(run.representative.size());
    for (std::size_t i = 0; i < n; ++i)
        if (run.clusterOf[i] != RunResult::kNoCluster)
            members[run.clusterOf[i]].push_back(static_cast<uint32_t>(i));
    std::vector<uint32_t> witness(n, kNone);
    std::vector<uint32_t> headOfClass(n, kNone);
    std::vector<std::size_t> keptAt(n, std::numeric_limits<std::size_t>::max());  // per class
    for (std::size_t c = 0; c < members.size(); ++c) {
        if (!run.keepAll.empty() && run.keepAll[c]) continue;
        std::vector<uint32_t>& visit = members[c];
        const uint32_t rep = run.representative[c];
        std::sort(visit.begin(), visit.end(), [&](uint32_t x, uint32_t y) {
            if (x == rep || y == rep) return x == rep && y != rep;
            return keepRather(policy, g.docs, x, y);
        });
        for (std::size_t k = 0; k < visit.size(); ++k) {
            const uint32_t d = visit[k];
            const uint32_t head = headOfClass[cls[d]];
            if (head != kNone) {
                witness[d] = witness[head] == kNone ? head : witness[head];
                continue;
            }
            headOfClass[cls[d]] = d;
            std::size_t earliest = std::numeric_limits<std::size_t>::max();
            for (const uint32_t other : linked[cls[d]])
                earliest = std::min(earliest, keptAt[other]);
            if (earliest == std::numeric_limits<std::size_t>::max())
                keptAt[cls[d]] = k;
            else
                witness[d] = visit[earliest];
        }
    }
    return witness;
}

QString caseName(int round, KeepPolicy policy, const char* what) {
    return QStringLiteral("round %1, policy %2, %3")
        .arg(round)
        .arg(static_cast<int>(policy))
        .arg(QLatin1String(what));
}

}  // namespace

class TestWitnessReference : public QObject {
    Q_OBJECT
  private slots:
    void fastPathMatchesTheReference() {
        std::mt19937_64 rng(19);
        // Rounds 6 and 7: copies as the comparison stores them, which --keep first decides from
        // the union's own pass.
        for (int round = 0; round < 8; ++round) {
            const Graph g =
                randomGraph(30000, round % 2 == 1 && round < 6, round >= 4, round >= 6, rng);
            for (const KeepPolicy policy :
                 {KeepPolicy::First, KeepPolicy::Longest, KeepPolicy::MaxField}) {
                // The run's own clustering, under both rules.
                RunResult wit, comp;
                clusterDocuments(g.pairs, kHashes, kThreshold, policy, DecideRule::Witness, g.docs,
                                 wit, g.excluded);
                clusterDocuments(g.pairs, kHashes, kThreshold, policy, DecideRule::Components,
                                 g.docs, comp, g.excluded);
                QVERIFY(wit.representative.size() > 2048);
                const std::vector<uint32_t> expected = referenceWitnesses(g, wit, policy);
                QVERIFY2(wit.removedFor == expected, qPrintable(caseName(round, policy, "run")));
                // Each copy names its class's smallest member, the comparison's group leader,
                // which holds the class's stored pairs (witnessPair reads them through it).
                const std::vector<uint32_t> leaders = copyLeaders(g);
                if (leaders.empty())
                    QVERIFY(wit.copyOf.empty());
                else
                    QVERIFY2(wit.copyOf == leaders, qPrintable(caseName(round, policy, "copyOf")));
                uint64_t chained = 0;
                for (std::size_t i = 0; i < expected.size(); ++i) {
                    const uint32_t c = comp.clusterOf[i];
                    if (c == RunResult::kNoCluster || comp.representative[c] == i) continue;
                    const bool isChained = expected[i] != comp.representative[c];
                    QCOMPARE(comp.chained[i] != 0, isChained);
                    chained += isChained ? 1 : 0;
                }
                QCOMPARE(comp.counts.chainedRemovals, chained);
                QCOMPARE(wit.counts.chainedRemovals, chained);

                // Decisions: some representatives moved to another member, some clusters kept
                // whole, then the removals decided again.
                RunResult decided;
                clusterComponents(g.pairs, kHashes, kThreshold, policy, g.docs, decided,
                                  g.excluded);
                std::vector<std::vector<uint32_t>> members(decided.representative.size());
                for (std::size_t i = 0; i < decided.clusterOf.size(); ++i)
                    if (decided.clusterOf[i] != RunResult::kNoCluster)
                        members[decided.clusterOf[i]].push_back(static_cast<uint32_t>(i));
                decided.keepAll.assign(members.size(), 0);
                for (std::size_t c = 0; c < members.size(); ++c) {
                    if (rng() % 5 == 0)
                        decided.representative[c] = members[c][rng() % members[c].size()];
                    if (rng() % 10 == 0) decided.keepAll[c] = 1;
                }
                decideRemovals(g.pairs, kHashes, kThreshold, g.excluded, policy,
                               DecideRule::Witness, g.docs, decided);
                QVERIFY2(decided.removedFor == referenceWitnesses(g, decided, policy),
                         qPrintable(caseName(round, policy, "decisions")));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestWitnessReference)
#include "test_witness_reference.moc"
