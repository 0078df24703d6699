// The read and signatures phases, streamed: chunks are cut sequentially, parsed and normalized
// in parallel, then signed in order by the backend (in the parallel stage instead, by a backend
// that signs concurrently or reads chunks itself, e.g. on other MPI ranks). The serial stage
// keeps the signature matrix in memory while the budget allows and appends rows (with their raw
// band keys) to the spill files from the chunk where it no longer does; it also leaves the rows
// signed so far in the read's checkpoint now and then, for a run killed while reading.
#pragma once

#include "run_state.h"

namespace neardup {

class ReadSignPhase {
  public:
    // `resume`: the read goes on from the checkpoint a killed run left (run_plan.h).
    ReadSignPhase(RunState& state, bool resume) : s_(state), resume_(resume) {}

    // Reads state.files into state.docs, state.sigs (or the spill files) and state.dataset
    // (its files with their fingerprints, counts and rejections). Throws InputError with
    // --on-error fail, Cancelled, or what the backend throws.
    void run();

  private:
    RunState& s_;
    bool resume_;
};

}  // namespace neardup
