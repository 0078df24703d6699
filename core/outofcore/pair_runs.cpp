#include "pair_runs.h"

#include <algorithm>
#include <queue>
#include <stdexcept>

namespace neardup {

namespace {

constexpr std::size_t kMinBufferPairs = 4096;
constexpr std::size_t kBlockPairs = 4096;  // handed to the visitor at a time

}  // namespace

PairRuns::PairRuns(WorkDir& dir, const std::string& name, uint64_t bufferBytes)
    : file_(dir, name),
      bufferPairs_(std::max<std::size_t>(
          kMinBufferPairs, static_cast<std::size_t>(bufferBytes / sizeof(ScoredPair)))) {
    buffer_.reserve(bufferPairs_);
}

void PairRuns::writeRun() {
    if (buffer_.empty()) return;
    std::sort(buffer_.begin(), buffer_.end());
    runs_.push_back({count_, buffer_.size()});
    file_.append(buffer_.data(), buffer_.size() * sizeof(ScoredPair));
    count_ += buffer_.size();
    buffer_.clear();
}

void PairRuns::finish() {
    writeRun();
    std::vector<ScoredPair>().swap(buffer_);
}

void PairRuns::forEachBlock(const std::function<void(std::span<const ScoredPair>)>& visit) const {
    if (!buffer_.empty()) throw std::logic_error("PairRuns: read before finish()");
    if (runs_.empty()) return;
    // One read buffer per run: the merge reads each run forward, a buffer at a time.
    const std::size_t perRun =
        std::max<std::size_t>(kMinBufferPairs / 4, bufferPairs_ / runs_.size());
    struct Cursor {
        uint64_t next = 0;  // next pair of the run to read into the buffer, from the run's start
        std::size_t at = 0;
        std::vector<ScoredPair> pairs;
    };
    std::vector<Cursor> cursors(runs_.size());
    auto refill = [&](std::size_t r) {
        Cursor& c = cursors[r];
        const Run& run = runs_[r];
        const auto take = static_cast<std::size_t>(std::min<uint64_t>(perRun, run.count - c.next));
        c.pairs.resize(take);
        c.at = 0;
        if (take > 0)
            file_.readAt((run.first + c.next) * sizeof(ScoredPair), c.pairs.data(),
                         take * sizeof(ScoredPair));
        c.next += take;
        return take > 0;
    };
    // Runs by their current pair, lowest first (no pair is in two runs).
    auto later = [&](std::size_t x, std::size_t y) {
        return cursors[y].pairs[cursors[y].at] < cursors[x].pairs[cursors[x].at];
    };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
    for (std::size_t r = 0; r < runs_.size(); ++r)
        if (refill(r)) heap.push(r);
    std::vector<ScoredPair> block;
    block.reserve(kBlockPairs);
    while (!heap.empty()) {
        const std::size_t r = heap.top();
        heap.pop();
        Cursor& c = cursors[r];
        block.push_back(c.pairs[c.at++]);
        if (c.at < c.pairs.size() || refill(r)) heap.push(r);
        if (block.size() == kBlockPairs) {
            visit(block);
            block.clear();
        }
    }
    if (!block.empty()) visit(block);
}

}  // namespace neardup
