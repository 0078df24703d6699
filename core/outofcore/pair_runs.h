// Pairs kept on disk in sorted runs: appended in any order, each buffer-full sorted and written
// as one run, and read back as one sequence in (a, b) order by merging the runs. The stored
// pairs that cannot change a run's result go here when the pairs exceed the memory budget
// (core/run/pairs_aside.h), so they reach the project store without being held in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sorted_pair_blocks.h"
#include "spill_files.h"

namespace neardup {

class PairRuns final : public SortedPairBlocks {
  public:
    // `bufferBytes`: memory for the pairs gathered into one run, and for the read buffers of the
    // merge (at least a few thousand pairs either way).
    PairRuns(WorkDir& dir, const std::string& name, uint64_t bufferBytes);

    void add(const ScoredPair& p) {
        buffer_.push_back(p);
        if (buffer_.size() == bufferPairs_) writeRun();
    }
    // Writes what is buffered and frees the buffer; add() may not follow.
    void finish();

    uint64_t size() const override { return count_; }
    std::size_t runs() const { return runs_.size(); }
    // Merges the runs (finish() first) with one read buffer each, bufferBytes in all.
    void forEachBlock(const std::function<void(std::span<const ScoredPair>)>& visit) const override;

  private:
    void writeRun();

    struct Run {
        uint64_t first = 0;  // in pairs from the start of the file
        uint64_t count = 0;
    };
    SpillFile file_;
    std::size_t bufferPairs_;
    std::vector<ScoredPair> buffer_;
    std::vector<Run> runs_;
    uint64_t count_ = 0;
};

}  // namespace neardup
