// The stored pairs within the run's memory budget. Where they do not fit beside the documents'
// floor, the pairs that cannot change this run's result (canChangeRun, pair_verifier.h: neither
// verified nor duplicates by their estimate; they are stored only for later runs at lower
// thresholds) go to sorted runs on disk (PairRuns) and reach the project store from there
// (ExportPhase); the pairs the run verifies, clusters and exports stay in memory. A run whose
// pairs fit keeps all of them in memory, as before.
#pragma once

#include <cstdint>

#include "run_state.h"
#include "spill_files.h"

namespace neardup {

// Whether `pairBytes` of pairs fit in the budget beside the documents' floor.
bool pairsFitBudget(const RunState& s, uint64_t pairBytes);

// s.pairs (sorted), when they do not fit and none were set aside yet: those that cannot change
// the run move to s.pairsAside and s.pairs keeps the others, in order. Says what it did, and
// warns when what stays still does not fit.
void setAsidePairsBeyondBudget(RunState& s);

// The spilled comparison's pairs from `file` (in no order) into s.pairs, sorted; when they do
// not fit, only those that can change the run, the others going to s.pairsAside (and
// setAsidePairsBeyondBudget does nothing more). Never holds more than one block of the file
// beside what it keeps. Returns the seconds spent sorting.
double loadPairsWithinBudget(RunState& s, const SpillFile& file);

}  // namespace neardup
