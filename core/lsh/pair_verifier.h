// Optional exact verification of candidate pairs (--verify exact): the two documents are read
// back from their files by offset and their shingle sets compared.
#pragma once

#include <functional>
#include <vector>

#include "backend.h"
#include "document_table.h"
#include "params.h"

namespace neardup {

// True when the estimate of a pair with `matches` equal positions out of `hashes` lies within
// three binomial standard deviations of the threshold, where the estimate alone is unreliable.
bool isBorderline(uint32_t matches, int hashes, double threshold);

// Whether verification mode params.compare.verify verifies pair `p` at all: every pair under
// exact verification, borderline ones under borderline verification.
bool modeVerifies(const ScoredPair& p, const RunParams& params);

// Three binomial standard deviations of an estimate at the threshold: the half-width of the
// borderline band.
double borderlineMargin(double threshold, int hashes);

// The lowest estimated Jaccard a stored pair can have and still change a run's result: the
// threshold without verification, the bottom of the borderline band with borderline
// verification, anything stored (0) with exact verification.
double lowestDecisiveEstimate(const RunParams& params);

// True when the stored pair can change the result of a run with `params`: its mode verifies it,
// or its estimate makes it a duplicate. Any other pair is only stored (for later runs at lower
// thresholds) and, as verifyPairs would, has its exact Jaccard cleared: a run whose pairs exceed
// its memory budget keeps these on disk (core/run/pairs_aside.h).
bool canChangeRun(const ScoredPair& p, const RunParams& params);

// The store floor a run uses when none is given: 0.5 (what later runs at other thresholds
// usually need), lowered to the bottom of the borderline band when verification reaches below
// it (θ < 0.63 with 128 hashes), so that a pair whose estimate falls just below 0.5 but whose
// exact Jaccard reaches θ is still verified and found.
double defaultStoreFloor(double threshold, int hashes, VerifyMode verify);

// The highest store floor an earlier run may have had for its stored pairs to serve a run with
// `params` exactly as its own comparison would: every pair that can change this run's result
// was stored. (Pairs the earlier run stored below this run's floor are dropped when they are
// loaded, so the run stores what its own comparison would have.)
double highestServingStoreFloor(const RunParams& params);

// The matches (out of H) at or above which a pair is stored: the store floor in matches.
int storeMinMatches(const RunParams& params);

// Brings the pairs to what params.compare.verify calls for: pairs the mode verifies get their
// exact Jaccard (computed when missing, e.g. for pairs reused from another run), all others
// have it cleared, so a run's result never depends on what an earlier run verified. Returns
// the number of pairs whose exact Jaccard had to be computed. `checkCancel` may throw.
std::size_t verifyPairs(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                        const DocumentTable& docs, const RunParams& params, int threads,
                        const std::function<void()>& checkCancel);

}  // namespace neardup
