// Choosing bands and rows: the false positive / false negative areas under the S-curve and the
// (b, r) that minimizes their weighted sum, checked against datasketch's _optimal_param.
#include <QTest>
#include <cmath>

#include "lsh_buckets.h"
#include "lsh_tuning.h"
#include "params.h"

using namespace neardup;

class TestLshTuning : public QObject {
    Q_OBJECT

  private slots:
    void areasMatchClosedFormForOneBandOneRow() {
        // b = r = 1: P(s) = s, so FP = t^2 / 2 and FN = (1 - t)^2 / 2.
        for (const double t : {0.2, 0.5, 0.8}) {
            QVERIFY(std::abs(falsePositiveArea(t, 1, 1) - t * t / 2) < 1e-12);
            QVERIFY(std::abs(falseNegativeArea(t, 1, 1) - (1 - t) * (1 - t) / 2) < 1e-12);
        }
    }

    void areasMatchScipyQuad() {
        // datasketch _false_positive_probability(0.8, 16, 8) and _false_negative_probability
        // (scipy.integrate.quad).
        QVERIFY(std::abs(falsePositiveArea(0.8, 16, 8) - 0.1382535677416147) < 1e-9);
        QVERIFY(std::abs(falseNegativeArea(0.8, 16, 8) - 0.001283926276758967) < 1e-9);
    }

    void areasAddUpToTheWholeCurve() {
        // FP + (1 - t) - FN = integral of P over [0, 1]; check against a fine Riemann sum.
        const int b = 20, r = 5;
        const double t = 0.6;
        double whole = 0;
        const int steps = 200000;
        for (int i = 0; i < steps; ++i)
            whole += candidateProbability((i + 0.5) / steps, b, r) / steps;
        const double viaAreas = falsePositiveArea(t, b, r) + (1 - t) - falseNegativeArea(t, b, r);
        QVERIFY(std::abs(whole - viaAreas) < 1e-7);
    }

    void suggestionMatchesDatasketch_data() {
        QTest::addColumn<double>("threshold");
        QTest::addColumn<int>("hashes");
        QTest::addColumn<int>("bands");
        QTest::addColumn<int>("rows");
        // datasketch.lsh._optimal_param(threshold, num_perm, 0.5, 0.5)
        QTest::newRow("0.8/128") << 0.8 << 128 << 9 << 13;
        QTest::newRow("0.5/128") << 0.5 << 128 << 25 << 5;
        QTest::newRow("0.9/256") << 0.9 << 256 << 9 << 28;
        QTest::newRow("0.7/64") << 0.7 << 64 << 8 << 8;
    }

    void suggestionMatchesDatasketch() {
        QFETCH(double, threshold);
        QFETCH(int, hashes);
        QFETCH(int, bands);
        QFETCH(int, rows);
        const LshSuggestion s = suggestBandsRows(threshold, hashes);
        QCOMPARE(s.bands, bands);
        QCOMPARE(s.rows, rows);
        QVERIFY(s.bands * s.rows <= hashes);
        QVERIFY(std::abs(s.weightedError - 0.5 * (s.falsePositiveArea + s.falseNegativeArea)) <
                1e-12);
    }

    void suggestionIsTheMinimum() {
        const LshSuggestion s = suggestBandsRows(0.75, 100, 0.3, 0.7);
        for (int b = 1; b <= 100; ++b)
            for (int r = 1; b * r <= 100; ++r)
                QVERIFY(0.3 * falsePositiveArea(0.75, b, r) + 0.7 * falseNegativeArea(0.75, b, r) >=
                        s.weightedError);
    }

    void weightsShiftTheChoice() {
        // Penalizing misses more moves the S-curve left: its midpoint drops.
        const LshSuggestion fewMisses = suggestBandsRows(0.8, 128, 0.1, 0.9);
        const LshSuggestion fewFalse = suggestBandsRows(0.8, 128, 0.9, 0.1);
        QVERIFY(sCurveMidpoint(fewMisses.bands, fewMisses.rows) <
                sCurveMidpoint(fewFalse.bands, fewFalse.rows));
    }

    // Issue 15: the equal-weight optimum for 0.8 and 128 hashes is 9 x 13, which misses 60 % of
    // the pairs at 0.8. NearDup's choice weighs a miss by kMissWeight: a low miss rate at every
    // threshold, and the minimum of its own objective.
    void chosenBandsRowsKeepMissesLow() {
        const LshSuggestion weighted = suggestBandsRows(0.8, 128);
        QVERIFY(1.0 - candidateProbability(0.8, weighted.bands, weighted.rows) > 0.5);
        for (const double threshold : {0.5, 0.6, 0.7, 0.8, 0.9}) {
            const LshSuggestion s = chooseBandsRows(threshold, 128);
            QVERIFY(s.bands * s.rows <= 128);
            QVERIFY2(s.missRate <= 0.02, qPrintable(QString::number(s.missRate)));
            QVERIFY(std::abs(s.missRate -
                             (1.0 - candidateProbability(threshold, s.bands, s.rows))) < 1e-12);
            for (int b = 1; b <= 128; ++b)
                for (int r = 1; b * r <= 128; ++r)
                    QVERIFY((1 - kMissWeight) * falsePositiveArea(threshold, b, r) +
                                kMissWeight * falseNegativeArea(threshold, b, r) >=
                            s.weightedError);
        }
        QCOMPARE(chooseBandsRows(0.0, 128).bands, 0);
    }

    // The documented defaults are the choice for the default threshold and hash count, so a
    // run with no -b/-r and the workbench's New Project agree.
    void defaultsAreTheChoiceForTheDefaults() {
        const RunParams defaults;
        const LshSuggestion s =
            chooseBandsRows(defaults.compare.threshold, defaults.signature.hashes);
        QCOMPARE(defaults.lsh.bands, s.bands);
        QCOMPARE(defaults.lsh.rows, s.rows);
    }

    // One of the two given: the other is chosen with it pinned.
    void pinnedValueIsKept() {
        const LshSuggestion rowsFor20 = chooseBandsRows(0.7, 128, 20, 0);
        QCOMPARE(rowsFor20.bands, 20);
        QVERIFY(rowsFor20.rows >= 1 && 20 * rowsFor20.rows <= 128);
        for (int r = 1; 20 * r <= 128; ++r)
            QVERIFY((1 - kMissWeight) * falsePositiveArea(0.7, 20, r) +
                        kMissWeight * falseNegativeArea(0.7, 20, r) >=
                    rowsFor20.weightedError);
        const LshSuggestion bandsFor5 = chooseBandsRows(0.7, 128, 0, 5);
        QCOMPARE(bandsFor5.rows, 5);
        QVERIFY(bandsFor5.bands >= 1 && bandsFor5.bands * 5 <= 128);
        // A pinned value that leaves no room within the hashes: no choice.
        QCOMPARE(chooseBandsRows(0.7, 128, 200, 0).bands, 0);
        QCOMPARE(chooseBandsRows(0.7, 128, 0, 129).bands, 0);
    }

    void invalidInputsGiveNoSuggestion() {
        QCOMPARE(suggestBandsRows(0.8, 0).bands, 0);
        QCOMPARE(suggestBandsRows(0.0, 128).bands, 0);
        QCOMPARE(suggestBandsRows(1.5, 128).rows, 0);
        QCOMPARE(sCurveMidpoint(0, 4), 0.0);
        QVERIFY(std::abs(sCurveMidpoint(16, 8) - std::pow(1.0 / 16, 1.0 / 8)) < 1e-15);
    }
};

QTEST_GUILESS_MAIN(TestLshTuning)
#include "test_lsh_tuning.moc"
