// The removal rules with a reference (DocumentTable::referenceDocuments): against a
// straightforward rule written here on random graphs, for each keep policy — documents visited
// in keep order with the reference first, a reference document always kept, two reference
// documents never a duplicate pair, a new document removed for the earliest kept document it
// is a duplicate of — and the cases signature copies make: a copy of a removed new document
// follows it, reference copies both stay, a "keep this one instead" never displaces the
// reference.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "clustering.h"
#include "decisions.h"

using namespace neardup;

namespace {

constexpr int kHashes = 128;
constexpr double kThreshold = 0.8;
constexpr uint32_t kNone = RunResult::kNoDocument;

DocumentTable table(std::size_t n, uint32_t references, std::mt19937& rng) {
    DocumentTable docs;
    std::uniform_int_distribution<uint32_t> chars(50, 60);
    std::uniform_int_distribution<int> value(0, 9);
    for (std::size_t i = 0; i < n; ++i)
        docs.append(0, i + 1, i * 100, 90, chars(rng), value(rng) == 0 ? std::nan("") : value(rng),
                    "d" + std::to_string(i));
    docs.referenceDocuments = references;
    return docs;
}

// Random pairs between nearby documents, and between each reference document and the new ones
// its number maps to (so that clusters mix both sides), none a signature copy, some verified.
std::vector<ScoredPair> randomPairs(std::size_t n, uint32_t references, std::mt19937& rng) {
    std::vector<ScoredPair> pairs;
    std::uniform_int_distribution<uint32_t> doc(0, static_cast<uint32_t>(n - 1));
    std::uniform_int_distribution<uint32_t> step(1, 40);
    std::uniform_int_distribution<uint32_t> matches(90, kHashes - 1);
    std::uniform_real_distribution<float> exact(0.7f, 0.95f);
    for (std::size_t k = 0; k < 2 * n; ++k) {
        uint32_t a = doc(rng), b = a + step(rng);
        if (k % 2 == 1 && a < references) {
            b = references + static_cast<uint32_t>(uint64_t{a} * (n - references) / references) +
                step(rng);
        }
        if (b >= n) continue;
        const float verified = (k % 3 == 0) ? exact(rng) : -1.0f;
        pairs.push_back({a, b, matches(rng), verified});
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end(),
                            [](const ScoredPair& x, const ScoredPair& y) {
                                return x.a == y.a && x.b == y.b;
                            }),
                pairs.end());
    return pairs;
}

// The rule, written plainly: witnesses per document (kNone: kept).
std::vector<uint32_t> expectedWitnesses(const std::vector<ScoredPair>& pairs, KeepPolicy policy,
                                        const DocumentTable& docs) {
    const std::size_t n = docs.size();
    std::vector<std::vector<uint32_t>> near(n);
    for (const ScoredPair& p : pairs) {
        if (!isDuplicate(p, kHashes, kThreshold) || docs.reference(p.b)) continue;
        near[p.a].push_back(p.b);
        near[p.b].push_back(p.a);
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&](uint32_t x, uint32_t y) { return keepRather(policy, docs, x, y); });
    std::vector<uint32_t> rank(n);
    for (uint32_t r = 0; r < n; ++r)
        rank[order[r]] = r;
    std::vector<uint32_t> witness(n, kNone);
    std::vector<uint8_t> kept(n, 0);
    for (const uint32_t d : order) {
        uint32_t best = kNone;
        if (!docs.reference(d))
            for (const uint32_t o : near[d])
                if (kept[o] && rank[o] < rank[d] && (best == kNone || rank[o] < rank[best]))
                    best = o;
        witness[d] = best;
        kept[d] = best == kNone;
    }
    return witness;
}

}  // namespace

class TestReferenceClustering : public QObject {
    Q_OBJECT

  private slots:
    void witnessRuleMatchesThePlainRule_data() {
        QTest::addColumn<int>("policy");
        QTest::addColumn<int>("seed");
        for (const int seed : {1, 2, 3}) {
            QTest::addRow("first %d", seed) << static_cast<int>(KeepPolicy::First) << seed;
            QTest::addRow("longest %d", seed) << static_cast<int>(KeepPolicy::Longest) << seed;
            QTest::addRow("max %d", seed) << static_cast<int>(KeepPolicy::MaxField) << seed;
        }
    }
    void witnessRuleMatchesThePlainRule() {
        QFETCH(int, policy);
        QFETCH(int, seed);
        const auto keep = static_cast<KeepPolicy>(policy);
        std::mt19937 rng(static_cast<uint32_t>(seed));
        constexpr std::size_t n = 4000;
        constexpr uint32_t references = 1500;
        const DocumentTable docs = table(n, references, rng);
        const std::vector<ScoredPair> pairs = randomPairs(n, references, rng);
        RunResult run;
        run.params.signature.hashes = kHashes;
        clusterDocuments(pairs, kHashes, kThreshold, keep, DecideRule::Witness, docs, run);
        const std::vector<uint32_t> expected = expectedWitnesses(pairs, keep, docs);
        uint64_t removed = 0, byReference = 0;
        for (uint32_t d = 0; d < n; ++d) {
            QVERIFY2(run.removedFor[d] == expected[d] || run.clusterOf[d] == RunResult::kNoCluster,
                     qPrintable(QStringLiteral("document %1: %2, expected %3")
                                    .arg(d)
                                    .arg(run.removedFor[d])
                                    .arg(expected[d])));
            QVERIFY(!(d < references && run.removed(d)));
            if (expected[d] != kNone) {
                ++removed;
                byReference += expected[d] < references ? 1 : 0;
            }
        }
        QVERIFY(byReference > 100);  // the graph has removals of both kinds
        QVERIFY(removed > byReference);
        QCOMPARE(run.counts.removed, removed);
        QCOMPARE(run.counts.removedByReference, byReference);
        QCOMPARE(run.counts.referenceDocuments, uint64_t{references});
        QCOMPARE(run.counts.kept, n - references - removed);
        // countRemovals agrees with the clustering's own counts.
        RunResult recounted = run;
        countRemovals(recounted);
        QCOMPARE(recounted.counts.kept, run.counts.kept);
        QCOMPARE(recounted.counts.removedByReference, run.counts.removedByReference);
    }

    void componentsRuleNeverRemovesTheReference() {
        std::mt19937 rng(9);
        constexpr std::size_t n = 3000;
        constexpr uint32_t references = 1000;
        const DocumentTable docs = table(n, references, rng);
        const std::vector<ScoredPair> pairs = randomPairs(n, references, rng);
        RunResult run;
        run.params.signature.hashes = kHashes;
        clusterDocuments(pairs, kHashes, kThreshold, KeepPolicy::Longest, DecideRule::Components,
                         docs, run);
        uint64_t removed = 0;
        for (uint32_t d = 0; d < n; ++d) {
            if (d < references) QVERIFY(!run.removed(d));
            removed += run.removed(d) ? 1 : 0;
            const uint32_t c = run.clusterOf[d];
            // A cluster with a reference document keeps one of them.
            if (c != RunResult::kNoCluster && d < references)
                QVERIFY(docs.reference(run.representative[c]));
        }
        QCOMPARE(run.counts.removed, removed);
        QCOMPARE(run.counts.kept, n - references - removed);
    }

    // Reference documents 0 and 1 share a signature (copies); new document 2 is a
    // near-duplicate of 0, and new document 3 a copy of 2, whose only stored pair is with 2.
    void signatureCopiesFollowTheReference() {
        DocumentTable docs;
        for (uint32_t i = 0; i < 4; ++i)
            docs.append(0, i + 1, i * 10, 9, 50, std::nan(""), "d" + std::to_string(i));
        docs.referenceDocuments = 2;
        const std::vector<ScoredPair> pairs = {
            {0, 1, kHashes, 1.0f}, {0, 2, 110, 0.85f}, {2, 3, kHashes, 1.0f}};
        for (const KeepPolicy keep : {KeepPolicy::First, KeepPolicy::Longest}) {
            RunResult run;
            run.params.signature.hashes = kHashes;
            clusterDocuments(pairs, kHashes, kThreshold, keep, DecideRule::Witness, docs, run);
            QVERIFY(!run.removed(0));
            QVERIFY(!run.removed(1));
            QCOMPARE(run.removedFor[2], 0u);
            QCOMPARE(run.removedFor[3], 0u);
            QCOMPARE(run.counts.removedByReference, uint64_t{2});
            QCOMPARE(run.counts.kept, uint64_t{0});
            // The copy's witness pair carries its leader's exact Jaccard (identical sets).
            run.pairs = pairs;
            const std::optional<ScoredPair> w = witnessPair(run, run.pairs, 3);
            QVERIFY(w.has_value());
            QCOMPARE(w->exact, 0.85f);
        }
    }

    void keepInsteadNeverDisplacesTheReference() {
        DocumentTable docs;
        for (uint32_t i = 0; i < 3; ++i)
            docs.append(0, i + 1, i * 10, 9, 50, std::nan(""), "d" + std::to_string(i));
        docs.referenceDocuments = 1;
        const std::vector<ScoredPair> pairs = {{0, 1, 120, -1.0f}, {1, 2, 120, -1.0f}};
        RunResult run;
        run.params.signature.hashes = kHashes;
        run.params.compare.threshold = kThreshold;
        run.pairs = pairs;
        Decision keepTwo;
        keepTwo.id = 1;
        keepTwo.kind = DecisionKind::KeepInstead;
        keepTwo.a = 2;
        clusterWithDecisions(pairs, kHashes, kThreshold, KeepPolicy::First, DecideRule::Witness,
                             docs, {keepTwo}, run);
        QCOMPARE(run.representative[0], 0u);
        QVERIFY(!run.removed(0));
        QVERIFY(run.removed(1));
    }
};

QTEST_GUILESS_MAIN(TestReferenceClustering)
#include "test_reference_clustering.moc"
