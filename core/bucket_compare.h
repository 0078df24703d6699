// All-pairs comparison inside one bucket, shared by the CPU backend and the CUDA backend's host
// fallback.
#pragma once

#include <cstdint>
#include <vector>

#include "backend.h"

namespace neardup {

// Per-thread scratch, reused from bucket to bucket.
struct BucketScratch {
    std::vector<std::pair<uint64_t, uint32_t>> byDigest;  // (digest, document)
    std::vector<uint32_t> leaders;
};

// True when documents x and y share a key in a band before `band`, i.e. they were compared
// there already.
inline bool collidedEarlier(const uint64_t* keys, int bands, uint32_t x, uint32_t y, int band) {
    const uint64_t* kx = keys + std::size_t(x) * std::size_t(bands);
    const uint64_t* ky = keys + std::size_t(y) * std::size_t(bands);
    for (int t = 0; t < band; ++t)
        if (kx[t] == ky[t]) return true;
    return false;
}

// Compares the members of one bucket (sorted by document index) of band `band`. Returns the
// number of distinct pairs decided here.
uint64_t compareBucket(const uint32_t* members, std::size_t size, int band,
                       const CompareRequest& req, BucketScratch& scratch,
                       std::vector<ScoredPair>& out);

}  // namespace neardup
