// The plan of a run: before any work, what the project already holds for these inputs and
// parameters (ProjectFacts, looked up by lookUpProject) decides where the signatures come from,
// whether the pairs of an earlier run are reused, whether the read goes on from a checkpoint a
// killed run left, and whether a new dataset is saved while its pairs are compared. planRun is
// a plain function of those facts, so each decision can be tested on its own.
#pragma once

#include <cstdint>
#include <optional>

#include "params.h"

namespace neardup {

struct RunState;

// What the project holds for this run, as far as the plan needs to know.
struct ProjectFacts {
    // A dataset read from these very files (path, size, mtime) with these reader options.
    bool datasetStored = false;
    // Its signature matrix fits the memory budget next to its document table.
    bool signaturesFit = false;
    // Its signatures are cached under this run's signature key, with its rows and H.
    bool signaturesCached = false;
    // Its signatures do not fit but are cached in a file, opened to be streamed (its digests
    // and flags in the state, its rows read where they lie).
    bool signaturesStreamable = false;
    // A finished run on that dataset whose stored pairs serve these parameters.
    std::optional<int64_t> reusablePairs;
    // A read checkpoint of these inputs, read and signed as this run would, is left.
    bool checkpointLeft = false;
};

struct RunPlan {
    enum class Signatures {
        FromCache,        // the stored dataset and its cached signatures
        StreamFromCache,  // the same, too large for the budget: streamed out of core
        ReadNew,          // read and signed; a new dataset is saved
        ReadAgain,        // the stored dataset, read and signed again and cached this time
        ReadBeyondBudget  // the stored dataset, read and signed again out of core (too large,
                          // and no cache file to stream: another key, or an in-memory project)
    };
    Signatures signatures = Signatures::ReadNew;
    // The read goes on from the checkpoint left, instead of from the beginning.
    bool resumeRead = false;
    // The new dataset and its signatures are saved on a second thread while its pairs are
    // compared and verified (unless the read spills, which leaves nothing to save them from).
    bool compareWhileSaving = false;
    // The run whose compared pairs this run takes instead of comparing.
    std::optional<int64_t> reusePairsOf;
    // Pairs go through verification: as asked, and always for reused pairs (they come with the
    // earlier run's exact values; those this run's verify mode does not ask for are cleared).
    bool verify = false;

    bool readsInputs() const {
        return signatures != Signatures::FromCache && signatures != Signatures::StreamFromCache;
    }
};

RunPlan planRun(const ProjectFacts& facts, const RunParams& params, int threads);

// Looks the run's inputs up in the project and fills the state with what it holds: the stored
// dataset (its files with their fingerprints, its documents) and, when they are cached, its
// signatures: whole when they fit, else their cache file opened to be streamed. A stored dataset
// with rejected lines fails a run with --on-error fail here, as reading it would have. Also sets up
// the read's checkpoint (checkpoint.h), named after the files as the project pinned them.
ProjectFacts lookUpProject(RunState& state);

}  // namespace neardup
