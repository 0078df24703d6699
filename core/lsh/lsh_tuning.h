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
    double missRate = 0;  // 1 - P(threshold): pairs exactly at the threshold that never collide
};

// Scans every (b, r) with b * r <= hashes and returns the one with the smallest
// fpWeight * falsePositiveArea + fnWeight * falseNegativeArea; ties keep the smallest b, then the
// smallest r. `fixedBands` or `fixedRows` (when positive) pins that value and searches the
// other. Returns bands = rows = 0 when hashes < 1, the threshold is outside (0, 1], or the
// pinned value leaves no (b, r) within the hashes.
LshSuggestion suggestBandsRows(double threshold, int hashes, double fpWeight = 0.5,
                               double fnWeight = 0.5, int fixedBands = 0, int fixedRows = 0);

// The weight of a missed duplicate against a dissimilar candidate when NearDup chooses b and r.
// A false positive costs one signature comparison (and, near the threshold, an exact check
// that rejects it); a false negative is a duplicate left in the data. Equal weights (datasketch's
// default) give 9 x 13 for 0.8 and 128 hashes, missing 60 % of the pairs at 0.8. 0.99 keeps the
// duplicate-document-set Jaccard at or above 0.998 at every threshold from 0.5 to 0.9 on the
// planted corpora, where lower weights lose accuracy at 0.9 (docs/guide/parameters.md).
inline constexpr double kMissWeight = 0.99;

// The (b, r) a run uses when the user gives neither (or the one not given): the minimum of the
// S-curve's expected misses and false candidates weighted by kMissWeight, with its miss rate at
// the threshold. The CLI, the workbench's "Suggest b, r" and the defaults in RunParams (for
// theta 0.8 and 128 hashes) all come from here.
LshSuggestion chooseBandsRows(double threshold, int hashes, int fixedBands = 0, int fixedRows = 0);

// Similarity at which the candidate probability is about 1/2: (1/b)^(1/r).
double sCurveMidpoint(int bands, int rows);

}  // namespace neardup
