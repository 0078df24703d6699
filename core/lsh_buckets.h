// Grouping documents into the buckets of one band, and the statistics of those buckets.
#pragma once

#include <cstdint>
#include <vector>

#include "backend.h"
#include "run_result.h"

namespace neardup {

// Probability that a pair of Jaccard similarity s becomes a candidate with b bands of r rows.
double candidateProbability(double s, int bands, int rows);

// Builds the buckets of band `band` from keys (n x bands, row-major). Documents with
// eligible[i] == 0 (shorter than a shingle) take no part. Fills `batch` with the buckets of two
// or more members and `stats` with the statistics over all buckets of the band. `entries` is
// scratch reused between bands.
void buildBuckets(const uint64_t* keys, std::size_t documents, int bands, int band,
                  const std::vector<uint8_t>& eligible, int threads,
                  std::vector<std::pair<uint64_t, uint32_t>>& entries, BucketBatch& batch,
                  BandStats& stats);

}  // namespace neardup
