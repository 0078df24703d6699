// The sorts of the witness rule (witness_rule.cpp), as radix sorts: sequential passes with a
// few thousand output streams each, where a comparison sort reading the document table, or a
// counting sort by rank, would jump across memory at every step.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace neardup {

// A document with its 64-bit sort key.
struct KeyedDocument {
    uint64_t key = 0;
    uint32_t doc = 0;
};

// Sorts by key, then document (given in document order: a stable sort by key), most significant
// digit first, down to buckets small enough to sort in cache (--keep max:FIELD's keys).
void sortByKey(std::vector<KeyedDocument>& items);

// Sorts by the high 32 bits, stably: a 32-bit key packed with its document in the low half
// (the length of --keep longest fits in a few digits, the others are skipped).
void sortByHigh32(std::vector<uint64_t>& items);

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
