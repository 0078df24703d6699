#include "lsh_tuning.h"

#include <algorithm>
#include <array>
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

namespace {

// Simpson's rule over one interval of the S-curve for every b of one r at once. The grid values
// q_i = 1 - s_i^r are the same for every b, and (1 - s^r)^b for b + 1 is the one for b times q_i:
// one multiplication per grid point and b instead of two pow calls, which made a choice for
// H = 4096 take seconds (the CLI makes one per run, the workbench one per threshold edit).
class SimpsonOverBands {
  public:
    SimpsonOverBands(double lo, double hi, int rows, int firstBand) : h_((hi - lo) / kIntervals) {
        for (int i = 0; i <= kIntervals; ++i) {
            const double q = 1.0 - std::pow(lo + i * h_, rows);
            q_[i] = q;
            power_[i] = std::pow(q, firstBand);
            weight_[i] = i == 0 || i == kIntervals ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
        }
    }
    // The integral of (1 - s^r)^b for the current b (1 - P(s), P the candidate probability).
    double missIntegral() const {
        double sum = 0;
        for (int i = 0; i <= kIntervals; ++i)
            sum += weight_[i] * power_[i];
        return sum * h_ / 3.0;
    }
    // The interval's length, which the integral of P(s) = 1 - (1 - s^r)^b subtracts from.
    double length() const { return h_ * kIntervals; }
    void nextBand() {
        for (int i = 0; i <= kIntervals; ++i)
            power_[i] *= q_[i];
    }

  private:
    double h_;
    std::array<double, kIntervals + 1> q_{}, power_{}, weight_{};
};

}  // namespace

LshSuggestion suggestBandsRows(double threshold, int hashes, double fpWeight, double fnWeight,
                               int fixedBands, int fixedRows) {
    LshSuggestion best;
    if (hashes < 1 || !validThreshold(threshold)) return best;
    best.weightedError = std::numeric_limits<double>::infinity();
    const int firstR = fixedRows > 0 ? fixedRows : 1;
    const int lastR = fixedRows > 0 ? std::min(fixedRows, hashes) : hashes;
    for (int r = firstR; r <= lastR; ++r) {
        const int firstB = fixedBands > 0 ? fixedBands : 1;
        const int lastB = fixedBands > 0 ? std::min(fixedBands, hashes / r) : hashes / r;
        if (firstB > lastB) continue;
        SimpsonOverBands below(0.0, threshold, r, firstB), above(threshold, 1.0, r, firstB);
        for (int b = firstB; b <= lastB; ++b, below.nextBand(), above.nextBand()) {
            const double fp = threshold > 0 ? below.length() - below.missIntegral() : 0.0;
            const double fn = threshold < 1 ? above.missIntegral() : 0.0;
            const double error = fpWeight * fp + fnWeight * fn;
            // Ties keep the smallest b, then the smallest r, whatever order they are met in.
            if (error < best.weightedError ||
                (error == best.weightedError &&
                 (b < best.bands || (b == best.bands && r < best.rows))))
                best = {b, r, fp, fn, error, 0.0};
        }
    }
    if (best.bands == 0) return LshSuggestion{};
    // The areas reported as falsePositiveArea and falseNegativeArea compute them (pow at every
    // point), so that the choice's figures are those of any other (b, r) to the last bit.
    best.falsePositiveArea = falsePositiveArea(threshold, best.bands, best.rows);
    best.falseNegativeArea = falseNegativeArea(threshold, best.bands, best.rows);
    best.weightedError = fpWeight * best.falsePositiveArea + fnWeight * best.falseNegativeArea;
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
