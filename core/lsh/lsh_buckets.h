// Grouping documents into the buckets of one band, and the statistics of those buckets.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "backend.h"
#include "run_result.h"

namespace neardup {

// Probability that a pair of Jaccard similarity s becomes a candidate with b bands of r rows.
double candidateProbability(double s, int bands, int rows);

// One band's (key, document) entries; sorted, equal keys form a bucket.
using BucketEntry = std::pair<uint64_t, uint32_t>;

// The statistics of one band, fed bucket by bucket in any order, so a band processed in
// several partitions (out of core) yields exactly what the whole band yields. Memory is bounded
// by the number of distinct bucket sizes plus the outliers kept, not by the number of buckets.
class BandStatsBuilder {
  public:
    explicit BandStatsBuilder(int band);
    void add(uint64_t key, uint64_t size);
    BandStats finish() const;

  private:
    BandStats stats_;
    uint64_t sum_ = 0;
    uint64_t sumSquares_ = 0;  // < 2^64: fewer than 2^32 documents
    static constexpr uint64_t kSmallSizes = 64;
    std::array<uint64_t, kSmallSizes> smallCounts_{};  // bucket size -> buckets, below 64
    std::map<uint64_t, uint64_t> sizeCounts_;          // the same, from 64 on
    // The largest buckets, at most BandStats::kMaxOutliersStored, as a heap whose top is the
    // one to drop first (smallest size, then largest key).
    std::vector<OutlierBucket> largest_;
};

// Calls visit(first member, size) for each run of equal keys of sorted entries: each bucket.
template <typename Visit>
void forEachBucket(const BucketEntry* entries, std::size_t count, Visit&& visit) {
    for (std::size_t i = 0; i < count;) {
        std::size_t j = i + 1;
        while (j < count && entries[j].first == entries[i].first)
            ++j;
        visit(entries + i, j - i);
        i = j;
    }
}

// Groups sorted entries into buckets: every bucket is counted in `stats`; those with two or
// more members are appended to `batch` (whose band must already be set).
void groupBuckets(const BucketEntry* entries, std::size_t count, BandStatsBuilder& stats,
                  BucketBatch& batch);

// Builds the buckets of band `band` from keys (n x bands, row-major). Documents with
// eligible[i] == 0 (shorter than a shingle) take no part. Fills `batch` with the buckets of two
// or more members and `stats` with the statistics over all buckets of the band. `entries` is
// scratch reused between bands.
void buildBuckets(const uint64_t* keys, std::size_t documents, int bands, int band,
                  const std::vector<uint8_t>& eligible, int threads,
                  std::vector<BucketEntry>& entries, BucketBatch& batch, BandStats& stats);

}  // namespace neardup
