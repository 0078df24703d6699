// Optional exact verification of candidate pairs (--verify exact): the two documents are read
// back from their files by offset and their shingle sets compared.
#pragma once

#include <functional>
#include <vector>

#include "backend.h"
#include "document_table.h"
#include "params.h"

namespace neardup {

// Sets `exact` of every pair. `checkCancel` is called between steps and may throw.
void verifyPairs(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                 const DocumentTable& docs, const RunParams& params, int threads,
                 const std::function<void()>& checkCancel);

}  // namespace neardup
