// Stored pairs that are not in memory, visited in (a, b) order a block at a time: how a run whose
// pairs exceed its memory budget hands the ones it set aside (core/outofcore/pair_runs.h) to the
// project store, which merges them with the pairs in memory as it writes them.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "run_result.h"

namespace neardup {

class SortedPairBlocks {
  public:
    virtual ~SortedPairBlocks() = default;
    // How many pairs there are.
    virtual uint64_t size() const = 0;
    // Calls `visit` with consecutive blocks of the pairs, in (a, b) order over all blocks; may be
    // called again, and starts from the first pair each time. Throws what reading throws.
    virtual void forEachBlock(
        const std::function<void(std::span<const ScoredPair>)>& visit) const = 0;
};

}  // namespace neardup
