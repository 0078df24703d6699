// The sampled audit of a run: a person judges a few pairs drawn at random from the run's
// duplicate pairs, and their verdicts estimate the run's precision (the share of its duplicate
// pairs that are true duplicates) with a confidence interval. Pure functions: drawing the
// sample and the estimator; the project file stores both (core/project/audit_rows.h).
//
// Drawing: the run's duplicate pairs at its threshold θ (isDuplicate: the exact Jaccard when
// verified, else the estimate) are split into `strata` strata of estimated Jaccard
// (matches / hashes) of equal width over [θ, 1] (a verified pair whose estimate is below θ goes
// to the first). The n pairs are spread equally over the non-empty strata (a stratum smaller
// than its share gives its rest to the others), so that the pairs near θ, where errors are,
// are seen as often as the near-copies that dominate a run. Within a stratum the pairs with
// the smallest keys splitmix64(seed, a, b) are taken: the same pairs, seed and n give the same
// sample on every machine, whatever the pairs' order. They are presented in key order, the
// strata mixed.
//
// Estimating: each stratum's precision p_h is its "duplicate" verdicts over its judged pairs
// ("unsure" is not a judgement); the run's is p = Σ W_h p_h with W_h the stratum's share of
// the run's duplicate pairs, renormalized over the strata that have a judged pair (`coverage`
// says what share of the pairs they hold). The interval is Wilson's score interval at p with
// the effective sample size n_eff = 1 / Σ (W_h² / n_h) (the stratified design's size: n itself
// when the allocation is proportional), which stays inside [0, 1] and never collapses to a
// point when every verdict agrees.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "run_result.h"

namespace neardup {

enum class AuditVerdict : uint8_t { Duplicate, NotDuplicate, Unsure };
const char* toString(AuditVerdict v);  // "duplicate", "not_duplicate", "unsure"
std::optional<AuditVerdict> parseAuditVerdict(std::string_view name);

struct AuditStratum {
    double low = 0, high = 1;  // estimated Jaccard bounds: [low, high), the last one [low, 1]
    uint64_t pairs = 0;        // the run's duplicate pairs in it
};

struct AuditPair {
    uint32_t a = 0, b = 0;  // document indices, a < b
    int stratum = 0;
    double estimated = 0;                 // matches / hashes
    std::optional<AuditVerdict> verdict;  // none until judged
};

struct AuditDraw {
    double threshold = 0;
    uint64_t seed = 0;
    std::vector<AuditStratum> strata;
    std::vector<AuditPair> pairs;  // in presentation order
};

inline constexpr int kDefaultAuditStrata = 4;

// Draws up to `n` of the duplicate pairs of `pairs` (a run's stored pairs) at `threshold`.
AuditDraw drawAuditSample(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                          uint64_t n, uint64_t seed, int strata = kDefaultAuditStrata);

struct PrecisionEstimate {
    uint64_t judged = 0;      // pairs with a verdict of duplicate or not a duplicate
    uint64_t duplicates = 0;  // of those, judged duplicates
    uint64_t unsure = 0;
    double precision = 0;      // stratified estimate; NaN when nothing is judged
    double low = 0, high = 0;  // Wilson interval at `confidence`; NaN when nothing is judged
    double effectiveSize = 0;  // n_eff
    double coverage = 0;       // share of the run's duplicate pairs in strata with a judgement
    // The threshold whose duplicate pairs were drawn (AuditDraw::threshold): a precision is the
    // precision of a run at a threshold. NaN when not known (the strata-and-pairs overload).
    double threshold = std::numeric_limits<double>::quiet_NaN();
};

// z for a two-sided interval: 1.959964 at 0.95.
double normalQuantileTwoSided(double confidence);
// Wilson's score interval for a proportion p out of n trials.
std::pair<double, double> wilsonInterval(double p, double n, double z);
PrecisionEstimate estimatePrecision(const std::vector<AuditStratum>& strata,
                                    const std::vector<AuditPair>& pairs, double confidence = 0.95);
// The estimate of a drawn sample with its verdicts, at the threshold it was drawn at.
PrecisionEstimate estimatePrecision(const AuditDraw& draw, double confidence = 0.95);

}  // namespace neardup
