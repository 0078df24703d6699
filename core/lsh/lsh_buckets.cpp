#include "lsh_buckets.h"

#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "band_entries.h"

namespace neardup {

namespace {

// Output order of outliers (size descending, then key); as a heap order, the top is the bucket
// to drop first when a larger one arrives.
bool ranksBefore(const OutlierBucket& x, const OutlierBucket& y) {
    return x.size != y.size ? x.size > y.size : x.key < y.key;
}

}  // namespace

double candidateProbability(double s, int bands, int rows) {
    return 1.0 - std::pow(1.0 - std::pow(s, rows), bands);
}

BandStatsBuilder::BandStatsBuilder(int band) {
    stats_.band = band;
}

void BandStatsBuilder::add(uint64_t key, uint64_t size) {
    ++stats_.buckets;
    sum_ += size;
    sumSquares_ += size * size;
    stats_.maxSize = std::max(stats_.maxSize, size);
    const auto bin = static_cast<std::size_t>(std::bit_width(size) - 1);
    if (stats_.histogram.size() <= bin) stats_.histogram.resize(bin + 1, 0);
    ++stats_.histogram[bin];
    if (size >= 2) {
        ++stats_.multiBuckets;
        stats_.comparisons += size * (size - 1) / 2;
    }
    // Nearly every bucket is small (singletons above all): those are counted in an array, as
    // a map insertion per bucket would cost more than the rest of this function.
    if (size < kSmallSizes)
        ++smallCounts_[size];
    else
        ++sizeCounts_[size];
    const OutlierBucket candidate{key, size, size * (size - 1) / 2};
    if (largest_.size() < BandStats::kMaxOutliersStored) {
        largest_.push_back(candidate);
        std::push_heap(largest_.begin(), largest_.end(), ranksBefore);
    } else if (ranksBefore(candidate, largest_.front())) {
        std::pop_heap(largest_.begin(), largest_.end(), ranksBefore);
        largest_.back() = candidate;
        std::push_heap(largest_.begin(), largest_.end(), ranksBefore);
    }
}

BandStats BandStatsBuilder::finish() const {
    BandStats stats = stats_;
    if (stats.buckets == 0) return stats;
    // The sums are exact integers, so the result does not depend on the order buckets came in.
    const double n = static_cast<double>(stats.buckets);
    stats.meanSize = static_cast<double>(sum_) / n;
    stats.stddevSize = std::sqrt(
        std::max(0.0, static_cast<double>(sumSquares_) / n - stats.meanSize * stats.meanSize));
    // A bucket is an outlier when it is larger than mean + 2 sigma (SEDD appendix G) and costs
    // at least kOutlierShare of the band's comparisons. Mean + 2 sigma alone marks every
    // bucket of two or more members when the keys are exact (nearly all buckets are singletons:
    // mean + 2 sigma is below 2), although a pair costs one comparison; the share singles out
    // the buckets that make the band expensive. Both bounds are bounds on the size, so the
    // outliers are a prefix of the buckets ordered by size and the largest buckets kept hold the
    // ones listed. (The workbench's Buckets view says the same in its tooltip.)
    constexpr double kOutlierShare = 0.01;
    const double share = kOutlierShare * static_cast<double>(stats.comparisons);
    // The smallest size s with s (s - 1) / 2 >= share; sizes above s - 1 qualify.
    auto cost = [](double size) { return size * (size - 1) / 2; };
    double smallest = std::max(1.0, std::ceil((1 + std::sqrt(1 + 8 * share)) / 2));
    while (smallest > 1 && cost(smallest - 1) >= share)
        smallest -= 1;
    while (cost(smallest) < share)
        smallest += 1;
    const double limit = std::max(stats.meanSize + 2.0 * stats.stddevSize, smallest - 1);
    for (auto it = sizeCounts_.rbegin(); it != sizeCounts_.rend(); ++it) {
        if (static_cast<double>(it->first) <= limit) break;
        stats.outlierCount += it->second;
    }
    for (uint64_t size = kSmallSizes; size-- > 0;) {
        if (static_cast<double>(size) <= limit) break;
        stats.outlierCount += smallCounts_[size];
    }
    std::vector<OutlierBucket> outliers;
    for (const OutlierBucket& b : largest_)
        if (static_cast<double>(b.size) > limit) outliers.push_back(b);
    std::sort(outliers.begin(), outliers.end(), ranksBefore);
    stats.outliers = std::move(outliers);
    return stats;
}

void groupBuckets(const BucketEntry* entries, std::size_t count, BandStatsBuilder& stats,
                  BucketBatch& batch) {
    forEachBucket(entries, count, [&](const BucketEntry* members, std::size_t size) {
        stats.add(members->first, size);
        if (size < 2) return;
        if (batch.bucketBegin.empty()) batch.bucketBegin.push_back(batch.members.size());
        for (std::size_t m = 0; m < size; ++m)
            batch.members.push_back(members[m].second);
        batch.bucketBegin.push_back(batch.members.size());
    });
}

void buildBuckets(const uint64_t* keys, std::size_t documents, int bands, int band,
                  const std::vector<uint8_t>& eligible, int threads,
                  std::vector<BucketEntry>& entries, BucketBatch& batch, BandStats& stats) {
    // Sorting by (key, document) makes buckets and their member order independent of threads.
    tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
    arena.execute(
        [&] { gatherSortedBandEntries(keys, documents, bands, band, eligible, entries); });

    batch.band = band;
    batch.members.clear();
    batch.bucketBegin.clear();
    BandStatsBuilder builder(band);
    groupBuckets(entries.data(), entries.size(), builder, batch);
    stats = builder.finish();
}

}  // namespace neardup
