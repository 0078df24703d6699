// The sorts of the witness rule (clustering.cpp), as radix sorts: sequential passes with a
// few thousand output streams each, where a comparison sort reading the document table, or a
// counting sort by rank, would jump across memory at every step.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace neardup {

// A document of a cluster with its 64-bit sort key.
struct KeyedDocument {
    uint64_t key = 0;
    uint32_t doc = 0;
    uint32_t cluster = 0;
};

// Sorts by cluster, then by key, stably: documents with equal keys in one cluster keep their
// order. Digits on which every item agrees are skipped (the length of --keep longest fits in a
// few of them; a key that is the same for all costs nothing).
void sortByClusterThenKey(std::vector<KeyedDocument>& items);

// Edges (earlier rank << 32 | later rank, ranks < `ranks`) to be sorted by their earlier rank,
// with the count of each top digit of the earlier rank, taken as they are added: the sort
// scatters them once by that digit into buckets small enough to finish in cache.
class RankEdges {
  public:
    static constexpr int kBits = 11;
    explicit RankEdges(std::size_t ranks);
    void reserve(std::size_t n) { edges_.reserve(n); }
    void add(uint32_t earlier, uint32_t later) {
        ++count_[earlier >> topShift_];
        edges_.push_back(uint64_t{earlier} << 32 | later);
    }
    // The edges sorted by earlier rank (equal earlier ranks in no particular order); the list
    // is used up.
    std::vector<uint64_t> sorted() &&;

  private:
    int bits_ = 0;      // of a rank
    int topShift_ = 0;  // the top digit: rank >> topShift_
    std::vector<uint64_t> edges_;
    std::array<std::size_t, std::size_t{1} << kBits> count_{};
};

}  // namespace neardup
