// The stored pairs within the run's memory budget. Where they do not fit beside the documents'
// floor, the pairs that cannot change this run's result (canChangeRun, pair_verifier.h: neither
// verified nor duplicates by their estimate; they are stored only for later runs at lower
// thresholds) go to sorted runs on disk (PairRuns) and reach the project store from there
// (ExportPhase); the pairs the run verifies, clusters and exports stay in memory. A run whose
// pairs fit keeps all of them in memory, as before.
#pragma once

#include <cstdint>
#include <functional>

#include "run_state.h"
#include "spill_files.h"

namespace neardup {

// Whether `pairBytes` of pairs fit in the budget beside the documents' floor, the signatures a run
// holds in memory and the project's page cache.
bool pairsFitBudget(const RunState& s, uint64_t pairBytes);

// The in-memory comparison's s.pairs (sorted), when they do not fit: those that cannot change
// the run move to s.pairsAside and s.pairs keeps the others, in order. Says what it did, and
// warns when what stays still does not fit.
void setAsidePairsBeyondBudget(RunState& s);

// Pairs handed to a visitor one at a time; a source visits the same pairs each time it is called.
using PairVisitor = std::function<void(const ScoredPair&)>;
using PairSource = std::function<void(const PairVisitor&)>;

// The pairs of `source` (at most `count`, in any order) into s.pairs, sorted; when they do not
// fit, only those that can change the run, the others going to s.pairsAside. Never holds more
// than the source's own buffer beside what it keeps. Says what it did, and warns when what stays
// still does not fit. Returns the seconds spent sorting.
double loadPairsWithinBudget(RunState& s, uint64_t count, const PairSource& source);

// The pairs of a file of raw ScoredPair records (the spilled comparison's), a block at a time.
PairSource pairsOfFile(const SpillFile& file);

}  // namespace neardup
