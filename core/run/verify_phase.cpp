// Pairs judged by their exact Jaccard within the memory budget (VerifyPhase, run_phases.h).
#include <algorithm>

#include "run_phases.h"
#include "verify_slices.h"

namespace neardup {

void VerifyPhase::run() {
    s_.report.started("verify");
    const auto t0 = SteadyClock::now();
    const uint64_t working = s_.memory.workingBytes(s_.docs, s_.sigs, s_.pairs);
    const std::size_t verified = verifyWithinBudget(
        s_.pairs, s_.files, s_.docs, s_.params, s_.run.threads,
        std::max(working > heldBytes_ ? working - heldBytes_ : 0, kMinVerifyBytes),
        [this] { s_.report.checkCancel(); });
    s_.report.finished(s_.run, {"verify", secondsSince(t0), verified, 0, false});
}

}  // namespace neardup
