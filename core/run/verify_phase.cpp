// Pairs judged by their exact Jaccard within the memory budget (VerifyPhase, run_phases.h).
#include <algorithm>
#include <optional>
#include <string>

#include "pair_verifier.h"
#include "run_phases.h"
#include "verify_slices.h"

namespace neardup {

namespace {

// Gives each pair the verification would compute the exact verdict an earlier run of the same
// dataset stored for it, when the shingle sets are made alike: re-banding a corpus then reads
// and shingles only the documents of pairs no run verified. A reference taken from a dataset of
// the project (RunState::referenceDatasetId) is this run's first documents, numbered alike, so
// the runs of that dataset serve the pairs among them: its documents are not read again for
// them. Returns how many were given.
std::size_t reuseStoredVerdicts(RunState& s, std::optional<int64_t> storedDataset) {
    if (s.params.compare.verify == VerifyMode::None) return 0;
    const auto wanted = [&params = s.params](const ScoredPair& p) {
        return modeVerifies(p, params);
    };
    std::size_t given = 0;
    for (const std::optional<int64_t>& dataset : {storedDataset, s.referenceDatasetId})
        if (dataset)
            given += s.store.fillStoredVerdicts(*dataset, s.params.signature, s.pairs, wanted);
    return given;
}

}  // namespace

void VerifyPhase::run() {
    s_.report.started("verify");
    const auto t0 = SteadyClock::now();
    if (const std::size_t reused = reuseStoredVerdicts(s_, storedDataset_); reused > 0)
        s_.report.info("reusing the exact Jaccard of " + std::to_string(reused) +
                       " pairs that earlier runs of this dataset or of the reference verified");
    const uint64_t working = s_.memory.workingBytes(s_.docs, s_.sigs, s_.pairs);
    const uint64_t left = working > heldBytes_ ? working - heldBytes_ : 0;
    const uint64_t allowance = std::clamp(left, kMinVerifyBytes, kMaxVerifyBytes);
    const VerifyCounts counts =
        verifyWithinBudget(s_.pairs, s_.files, s_.docs, s_.params, s_.run.threads, allowance,
                           [this] { s_.report.checkCancel(); });
    if (counts.slices > 1)
        s_.report.info(std::string(left < kMaxVerifyBytes
                                       ? "verification beyond the memory budget: "
                                       : "verification in slices: ") +
                       std::to_string(counts.pairs) + " pairs in " + std::to_string(counts.slices) +
                       " slices, " + std::to_string(counts.documentsRead) + " documents read");
    s_.report.finished(s_.run, {"verify", secondsSince(t0), counts.pairs, 0, false});
}

}  // namespace neardup
