#include "lsh_tuning.h"

#include <cmath>
#include <limits>

#include "lsh_buckets.h"

namespace neardup {

namespace {

// Composite Simpson's rule; the S-curve is smooth, and 256 intervals keep the error far below
// the differences between neighbouring (b, r) choices.
constexpr int kIntervals = 256;

template <class F>
double simpson(F f, double lo, double hi) {
    if (!(hi > lo)) return 0.0;
    const double h = (hi - lo) / kIntervals;
    double sum = f(lo) + f(hi);
    for (int i = 1; i < kIntervals; ++i)
        sum += f(lo + i * h) * (i % 2 == 1 ? 4.0 : 2.0);
    return sum * h / 3.0;
}

bool validThreshold(double t) {
    return t > 0.0 && t <= 1.0;
}

}  // namespace

double falsePositiveArea(double threshold, int bands, int rows) {
    return simpson([&](double s) { return candidateProbability(s, bands, rows); }, 0.0, threshold);
}

double falseNegativeArea(double threshold, int bands, int rows) {
    return simpson([&](double s) { return 1.0 - candidateProbability(s, bands, rows); }, threshold,
                   1.0);
}

LshSuggestion suggestBandsRows(double threshold, int hashes, double fpWeight, double fnWeight) {
    LshSuggestion best;
    if (hashes < 1 || !validThreshold(threshold)) return best;
    best.weightedError = std::numeric_limits<double>::infinity();
    for (int b = 1; b <= hashes; ++b) {
        for (int r = 1; b * r <= hashes; ++r) {
            const double fp = falsePositiveArea(threshold, b, r);
            const double fn = falseNegativeArea(threshold, b, r);
            const double error = fpWeight * fp + fnWeight * fn;
            if (error < best.weightedError) best = {b, r, fp, fn, error};
        }
    }
    return best;
}

RecallSuggestion suggestBandsRowsForRecall(double threshold, int hashes, double maxMissRate) {
    RecallSuggestion best, lowestMiss;
    if (hashes < 1 || !validThreshold(threshold)) return best;
    lowestMiss.missRate = std::numeric_limits<double>::infinity();
    best.falsePositiveArea = std::numeric_limits<double>::infinity();
    for (int b = 1; b <= hashes; ++b) {
        for (int r = 1; b * r <= hashes; ++r) {
            const double miss = 1.0 - candidateProbability(threshold, b, r);
            if (miss < lowestMiss.missRate) lowestMiss = {b, r, miss, 0, 0};
            if (miss > maxMissRate) continue;
            const double fp = falsePositiveArea(threshold, b, r);
            if (fp < best.falsePositiveArea) best = {b, r, miss, fp, 0};
        }
    }
    if (best.bands == 0) best = lowestMiss;
    best.falsePositiveArea = falsePositiveArea(threshold, best.bands, best.rows);
    best.falseNegativeArea = falseNegativeArea(threshold, best.bands, best.rows);
    return best;
}

double sCurveMidpoint(int bands, int rows) {
    if (bands < 1 || rows < 1) return 0.0;
    return std::pow(1.0 / bands, 1.0 / rows);
}

}  // namespace neardup
