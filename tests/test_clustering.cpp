// Union-find, duplicate decisions and representative policies.
#include <QTest>

#include <cmath>

#include "clustering.h"

using namespace neardup;

namespace {

DocumentTable table(std::size_t n) {
    DocumentTable t;
    for (std::size_t i = 0; i < n; ++i)
        t.append(0, i + 1, i * 10, 9, static_cast<uint32_t>(100 + i), std::nan(""),
                 "d" + std::to_string(i));
    return t;
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
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, docs, run);
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
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::Longest, docs, run);
        QCOMPARE(run.representative, (std::vector<uint32_t>{1}));  // tie 1/2 -> earliest
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::MaxField, docs, run);
        QCOMPARE(run.representative, (std::vector<uint32_t>{2}));  // tie 2/3 -> earliest; NaN last
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, docs, run);
        QCOMPARE(run.representative, (std::vector<uint32_t>{0}));
    }
    void orderOfPairsDoesNotMatter() {
        const DocumentTable docs = table(6);
        std::vector<ScoredPair> pairs{{0, 5, 128, -1}, {2, 3, 128, -1}, {3, 5, 128, -1}};
        RunResult a, b;
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, docs, a);
        std::reverse(pairs.begin(), pairs.end());
        clusterDocuments(pairs, 128, 0.8, KeepPolicy::First, docs, b);
        QCOMPARE(a.clusterOf, b.clusterOf);
        QCOMPARE(a.representative, b.representative);
    }
};

QTEST_GUILESS_MAIN(TestClustering)
#include "test_clustering.moc"
