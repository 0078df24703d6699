// Choosing LSH bands and rows for a threshold: the areas under the S-curve that stand for false
// positives and false negatives, and the (b, r) that minimizes their weighted sum (the idea of
// datasketch's _optimal_param).
#pragma once

namespace neardup {

// Integral over s in [0, threshold] of the candidate probability 1 - (1 - s^r)^b: the weight of
// dissimilar pairs that still become candidates.
double falsePositiveArea(double threshold, int bands, int rows);
// Integral over s in [threshold, 1] of 1 - P(s): the weight of similar pairs that are missed.
double falseNegativeArea(double threshold, int bands, int rows);

struct LshSuggestion {
    int bands = 0;
    int rows = 0;
    double falsePositiveArea = 0;
    double falseNegativeArea = 0;
    double weightedError = 0;
};

// Scans every (b, r) with b * r <= hashes and returns the one with the smallest
// fpWeight * falsePositiveArea + fnWeight * falseNegativeArea; ties keep the smallest b, then the
// smallest r. Returns bands = rows = 0 when hashes < 1 or the threshold is outside (0, 1].
LshSuggestion suggestBandsRows(double threshold, int hashes, double fpWeight = 0.5,
                               double fnWeight = 0.5);

// The suggestion the workbench offers: the (b, r) with b * r <= hashes whose miss rate at the
// threshold itself, 1 - P(threshold), is at most `maxMissRate`, and among those the one with
// the smallest false-positive area (the fewest dissimilar candidates to compare); ties keep
// the smallest b, then the smallest r. The weighted optimum above can put the S-curve's
// midpoint right of the threshold (9 x 13 for 0.8 and 128 hashes: 60 % of the pairs at 0.8
// missed); this one never misses more than it is told to at the threshold. When no (b, r)
// meets the bound, the one with the lowest miss rate. missRate is filled either way.
struct RecallSuggestion {
    int bands = 0;
    int rows = 0;
    double missRate = 0;  // 1 - P(threshold)
    double falsePositiveArea = 0;
    double falseNegativeArea = 0;
};
RecallSuggestion suggestBandsRowsForRecall(double threshold, int hashes, double maxMissRate = 0.05);

// Similarity at which the candidate probability is about 1/2: (1/b)^(1/r).
double sCurveMidpoint(int bands, int rows);

}  // namespace neardup
