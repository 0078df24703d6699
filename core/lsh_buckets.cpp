#include "lsh_buckets.h"

#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <cmath>

namespace neardup {

double candidateProbability(double s, int bands, int rows) {
    return 1.0 - std::pow(1.0 - std::pow(s, rows), bands);
}

void buildBuckets(const uint64_t* keys, std::size_t documents, int bands, int band,
                  const std::vector<uint8_t>& eligible, int threads,
                  std::vector<std::pair<uint64_t, uint32_t>>& entries, BucketBatch& batch,
                  BandStats& stats) {
    entries.clear();
    for (std::size_t i = 0; i < documents; ++i)
        if (eligible[i])
            entries.emplace_back(keys[i * std::size_t(bands) + std::size_t(band)],
                                 static_cast<uint32_t>(i));
    // Sorting by (key, document) makes buckets and their member order independent of threads.
    tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
    arena.execute([&] { tbb::parallel_sort(entries.begin(), entries.end()); });

    batch.band = band;
    batch.members.clear();
    batch.bucketBegin.clear();
    stats = BandStats{};
    stats.band = band;
    double sum = 0, sumSquares = 0;
    std::vector<OutlierBucket> all;
    std::vector<uint64_t> sizes;  // size of each bucket, for the outlier pass
    std::vector<uint64_t> keysOfBuckets;
    for (std::size_t i = 0; i < entries.size();) {
        std::size_t j = i + 1;
        while (j < entries.size() && entries[j].first == entries[i].first)
            ++j;
        const uint64_t size = j - i;
        ++stats.buckets;
        sum += static_cast<double>(size);
        sumSquares += static_cast<double>(size) * static_cast<double>(size);
        stats.maxSize = std::max(stats.maxSize, size);
        const auto bin = static_cast<std::size_t>(std::bit_width(size) - 1);
        if (stats.histogram.size() <= bin) stats.histogram.resize(bin + 1, 0);
        ++stats.histogram[bin];
        if (size >= 2) {
            ++stats.multiBuckets;
            stats.comparisons += size * (size - 1) / 2;
            batch.bucketBegin.push_back(batch.members.size());
            for (std::size_t m = i; m < j; ++m)
                batch.members.push_back(entries[m].second);
        }
        sizes.push_back(size);
        keysOfBuckets.push_back(entries[i].first);
        i = j;
    }
    if (!batch.bucketBegin.empty()) batch.bucketBegin.push_back(batch.members.size());
    if (stats.buckets == 0) return;
    const double n = static_cast<double>(stats.buckets);
    stats.meanSize = sum / n;
    stats.stddevSize = std::sqrt(std::max(0.0, sumSquares / n - stats.meanSize * stats.meanSize));
    // SEDD appendix G: a bucket is an outlier when larger than mean + 2 sigma.
    const double limit = stats.meanSize + 2.0 * stats.stddevSize;
    for (std::size_t b = 0; b < sizes.size(); ++b) {
        if (static_cast<double>(sizes[b]) <= limit) continue;
        ++stats.outlierCount;
        all.push_back({keysOfBuckets[b], sizes[b], sizes[b] * (sizes[b] - 1) / 2});
    }
    const std::size_t keep = std::min(all.size(), BandStats::kMaxOutliersStored);
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                      [](const OutlierBucket& x, const OutlierBucket& y) {
                          return x.size != y.size ? x.size > y.size : x.key < y.key;
                      });
    all.resize(keep);
    stats.outliers = std::move(all);
}

}  // namespace neardup
