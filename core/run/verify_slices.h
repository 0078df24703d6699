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
// Nor more than this, however large the budget: a slice's documents and shingle sets are held
// at once, and past a few hundred MiB they fit no cache and their first touch of fresh pages
// costs more than slicing does (slices are whole components, so each document is still read
// once).
inline constexpr uint64_t kMaxVerifyBytes = uint64_t{256} << 20;

// What verifyWithinBudget did: the pairs whose exact Jaccard it computed, the documents it read
// (and shingled) to do so, counting each time a document was read, and the slices it took.
struct VerifyCounts {
    std::size_t pairs = 0;
    std::size_t documentsRead = 0;
    std::size_t slices = 0;
};

// verifyPairs holds every involved document's line and shingle set at once; where that would
// exceed the allowance, the pairs are verified in slices that each fit, made of whole connected
// components of the pairs' graph, so that each document is read once. Only a component that
// alone exceeds the allowance is cut, in the order of its pairs (a document of two of its
// slices is read twice). Each pair's result does not depend on the slicing.
VerifyCounts verifyWithinBudget(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                                const DocumentTable& docs, const RunParams& params, int threads,
                                uint64_t allowance, const std::function<void()>& checkCancel);

}  // namespace neardup
