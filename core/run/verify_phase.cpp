// Pairs judged by their exact Jaccard within the memory budget (VerifyPhase, run_phases.h).
#include <algorithm>
#include <string>

#include "run_phases.h"
#include "verify_slices.h"

namespace neardup {

void VerifyPhase::run() {
    s_.report.started("verify");
    const auto t0 = SteadyClock::now();
    const uint64_t working = s_.memory.workingBytes(s_.docs, s_.sigs, s_.pairs);
    const VerifyCounts counts = verifyWithinBudget(
        s_.pairs, s_.files, s_.docs, s_.params, s_.run.threads,
        std::max(working > heldBytes_ ? working - heldBytes_ : 0, kMinVerifyBytes),
        [this] { s_.report.checkCancel(); });
    if (counts.slices > 1)
        s_.report.info("verification beyond the memory budget: " + std::to_string(counts.pairs) +
                       " pairs in " + std::to_string(counts.slices) + " slices, " +
                       std::to_string(counts.documentsRead) + " documents read");
    s_.report.finished(s_.run, {"verify", secondsSince(t0), counts.pairs, 0, false});
}

}  // namespace neardup
