// A run against a reference (`neardup run --reference`): which reference documents removed new
// documents, and how many each — for decontamination, which benchmark items leaked and how often.
// Told by --summary-json and the HTML report alike.
#pragma once

#include <cstdint>
#include <vector>

#include "run_result.h"

namespace neardup {

struct ReferenceMatch {
    uint32_t document = 0;  // a reference document
    uint64_t removed = 0;   // the new documents removed for it (it is their witness)
};

// Every reference document that a removal names as its witness, most removals first, then in
// input order; empty for a run without a reference.
std::vector<ReferenceMatch> referenceMatches(const RunResult& run);

}  // namespace neardup
