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

// Brings the pairs to what params.compare.verify calls for: pairs the mode verifies get their
// exact Jaccard (computed when missing, e.g. for pairs reused from another run), all others
// have it cleared, so a run's result never depends on what an earlier run verified. Returns
// the number of pairs whose exact Jaccard had to be computed. `checkCancel` may throw.
std::size_t verifyPairs(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                        const DocumentTable& docs, const RunParams& params, int threads,
                        const std::function<void()>& checkCancel);

}  // namespace neardup
