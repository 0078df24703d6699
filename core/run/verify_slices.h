// Exact verification of candidate pairs within a memory allowance (core/lsh/pair_verifier.h does
// the work; this cuts the pairs into slices whose documents fit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "document_table.h"
#include "params.h"
#include "run_result.h"

namespace neardup {

// Verification slices never get less than this, whatever the budget (a slice holds at least
// one pair, however long its documents).
inline constexpr uint64_t kMinVerifyBytes = uint64_t{2} << 20;

// verifyPairs holds every involved document's line and shingle set at once; where that would
// exceed the budget, the pairs are verified in consecutive slices that each fit (a document
// shared by two slices is read twice). Each pair's result does not depend on the slicing.
std::size_t verifyWithinBudget(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                               const DocumentTable& docs, const RunParams& params, int threads,
                               uint64_t allowance, const std::function<void()>& checkCancel);

}  // namespace neardup
