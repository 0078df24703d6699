// Field-by-field comparisons of pairs, band statistics and whole run results, shared by the
// tests that check one way of running against another (spilled, several workers, pairs set
// aside). Header-only: QCOMPARE records the failure in the calling test.
#pragma once

#include <QTest>

#include <vector>

#include "run_result.h"

namespace testsupport {

inline void comparePairs(const std::vector<neardup::ScoredPair>& a,
                         const std::vector<neardup::ScoredPair>& b) {
    QCOMPARE(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(a[i].a, b[i].a);
        QCOMPARE(a[i].b, b[i].b);
        QCOMPARE(a[i].matches, b[i].matches);
        QCOMPARE(a[i].exact, b[i].exact);
    }
}

inline void compareBands(const std::vector<neardup::BandStats>& a,
                         const std::vector<neardup::BandStats>& b) {
    QCOMPARE(a.size(), b.size());
    for (std::size_t t = 0; t < a.size(); ++t) {
        const neardup::BandStats &x = a[t], &y = b[t];
        QCOMPARE(x.buckets, y.buckets);
        QCOMPARE(x.multiBuckets, y.multiBuckets);
        QCOMPARE(x.meanSize, y.meanSize);
        QCOMPARE(x.stddevSize, y.stddevSize);
        QCOMPARE(x.maxSize, y.maxSize);
        QCOMPARE(x.comparisons, y.comparisons);
        QCOMPARE(x.histogram, y.histogram);
        QCOMPARE(x.outlierCount, y.outlierCount);
        QCOMPARE(x.outliers.size(), y.outliers.size());
        for (std::size_t o = 0; o < x.outliers.size(); ++o) {
            QCOMPARE(x.outliers[o].key, y.outliers[o].key);
            QCOMPARE(x.outliers[o].size, y.outliers[o].size);
        }
    }
}

// Counts, pairs, clustering and every band statistic.
inline void compareRuns(const neardup::RunResult& a, const neardup::RunResult& b) {
    QCOMPARE(a.counts.documents, b.counts.documents);
    QCOMPARE(a.counts.candidatePairs, b.counts.candidatePairs);
    QCOMPARE(a.counts.storedPairs, b.counts.storedPairs);
    QCOMPARE(a.counts.duplicatePairs, b.counts.duplicatePairs);
    QCOMPARE(a.counts.clusters, b.counts.clusters);
    QCOMPARE(a.counts.kept, b.counts.kept);
    QCOMPARE(a.counts.removed, b.counts.removed);
    comparePairs(a.pairs, b.pairs);
    QCOMPARE(a.clusterOf, b.clusterOf);
    QCOMPARE(a.representative, b.representative);
    compareBands(a.bands, b.bands);
}

}  // namespace testsupport
