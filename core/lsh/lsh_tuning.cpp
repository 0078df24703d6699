#include "lsh_tuning.h"

#include <algorithm>
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

LshSuggestion suggestBandsRows(double threshold, int hashes, double fpWeight, double fnWeight,
                               int fixedBands, int fixedRows) {
    LshSuggestion best;
    if (hashes < 1 || !validThreshold(threshold)) return best;
    best.weightedError = std::numeric_limits<double>::infinity();
    const int firstB = fixedBands > 0 ? fixedBands : 1;
    const int lastB = fixedBands > 0 ? std::min(fixedBands, hashes) : hashes;
    for (int b = firstB; b <= lastB; ++b) {
        const int firstR = fixedRows > 0 ? fixedRows : 1;
        const int lastR = fixedRows > 0 ? std::min(fixedRows, hashes / b) : hashes / b;
        for (int r = firstR; r <= lastR; ++r) {
            const double fp = falsePositiveArea(threshold, b, r);
            const double fn = falseNegativeArea(threshold, b, r);
            const double error = fpWeight * fp + fnWeight * fn;
            if (error < best.weightedError) best = {b, r, fp, fn, error, 0.0};
        }
    }
    if (best.bands == 0) return LshSuggestion{};
    best.missRate = 1.0 - candidateProbability(threshold, best.bands, best.rows);
    return best;
}

LshSuggestion chooseBandsRows(double threshold, int hashes, int fixedBands, int fixedRows) {
    return suggestBandsRows(threshold, hashes, 1.0 - kMissWeight, kMissWeight, fixedBands,
                            fixedRows);
}

double sCurveMidpoint(int bands, int rows) {
    if (bands < 1 || rows < 1) return 0.0;
    return std::pow(1.0 / bands, 1.0 / rows);
}

}  // namespace neardup
