// Host side of the GPU comparison, free of CUDA types so that the CPU tests run it: exact copies
// are collapsed on the host with the CPU backend's own code (bucket_compare.h), the remaining
// group leaders are cut into passes that fit the device memory budget, and a pass whose pairs
// overflow the output buffer is re-run with a bigger buffer or in halves, never dropped.
#pragma once

#include <cstdint>
#include <vector>

#include "backend.h"
#include "compare_kernel.h"

namespace neardup::gpu {

// Leaders of every bucket after collapsing exact copies: bucket j's leaders (ascending) are
// leaders[begin[j] .. begin[j] + count[j]), begin[j] being the bucket's offset in the batch.
struct CollapsedBatch {
    std::vector<uint32_t> leaders;
    std::vector<uint64_t> begin;
    std::vector<uint32_t> count;
    std::vector<ScoredPair> copies;  // pairs joined as exact copies (the CPU's step one)
    uint64_t copiesDecided = 0;
};

// Step one of compareBucket for every bucket, in parallel (TBB, in the caller's arena). Buckets
// of two are not collapsed, exactly as on the CPU.
void collapseBatch(const BucketBatch& buckets, const CompareRequest& req, CollapsedBatch& out);

// The first-collision rule applies from band 1 on, when keys are given.
inline int keyBandsFor(const BucketBatch& buckets, const CompareRequest& req) {
    return buckets.band > 0 && req.keys != nullptr ? buckets.band : 0;
}

// One pass: the rows to gather (documents, in row order) and the segments over them.
struct PassPlan {
    std::vector<uint32_t> docs;
    std::vector<TileSegment> tiles;
    std::vector<PairSegment> pairs;
    uint64_t tileTasks = 0, pairTasks = 0;

    uint64_t tasks() const { return tileTasks + pairTasks; }
    void clear();
};

// Cuts a collapsed batch into passes of at most maxRows rows. Buckets stay whole in one pass
// when they fit; a bucket with more leaders than that is split into chunks of leaders, and each
// pair of chunks (I <= J) becomes a pass of its own, so every pair is covered exactly once.
class PassPlanner {
  public:
    // maxRows is raised to 2 * kTileRows when smaller.
    PassPlanner(const CollapsedBatch& batch, uint64_t maxRows);

    // Fills the next pass; false when there is none left.
    bool next(PassPlan& plan);

    uint64_t maxRows() const { return maxRows_; }

  private:
    void addBucket(PassPlan& plan, std::size_t j) const;
    void emitChunkPair(PassPlan& plan);

    const CollapsedBatch& batch_;
    uint64_t maxRows_;
    std::size_t bucket_ = 0;
    // The bucket being split, its chunk size and chunk count, and the next chunk pair.
    std::size_t huge_ = 0;
    uint64_t chunk_ = 0, chunks_ = 0, chunkI_ = 0, chunkJ_ = 0;
    bool splitting_ = false;
};

// The unified task index of a pass: tile tasks first, then pair tasks.
inline void taskRanges(const PassPlan& plan, uint64_t begin, uint64_t end, CompareArgs& a) {
    const uint64_t t = plan.tileTasks;
    a.tileBegin = begin < t ? begin : t;
    a.tileEnd = end < t ? end : t;
    a.pairBegin = begin > t ? begin - t : 0;
    a.pairEnd = end > t ? end - t : 0;
}

// Settles tasks [begin, end) of a pass whose run gave `result` with the output buffer holding
// `capacity` pairs: collects them when they fit, else grows the buffer (up to maxCapacity) and
// runs again, else runs the two halves. launch(begin, end) runs synchronously and returns the
// counters; grow(n) makes the buffer hold n pairs and returns its capacity (or throws);
// collect(found) takes the buffer's first `found` pairs. Returns the pairs decided.
template <class Launch, class Grow, class Collect>
uint64_t settleTasks(uint64_t begin, uint64_t end, CompareCounters result, uint64_t& capacity,
                     uint64_t maxCapacity, const Launch& launch, const Grow& grow,
                     const Collect& collect) {
    for (;;) {
        if (result.found <= capacity) {
            collect(result.found);
            return result.decided;
        }
        if (result.found <= maxCapacity || end - begin <= 1) {
            capacity = grow(result.found);
            result = launch(begin, end);
            continue;
        }
        const uint64_t mid = begin + (end - begin) / 2;
        const uint64_t left = settleTasks(begin, mid, launch(begin, mid), capacity, maxCapacity,
                                          launch, grow, collect);
        return left + settleTasks(mid, end, launch(mid, end), capacity, maxCapacity, launch, grow,
                                  collect);
    }
}

}  // namespace neardup::gpu
