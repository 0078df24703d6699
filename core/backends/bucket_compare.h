// All-pairs comparison inside one bucket, shared by the CPU backend, the CUDA backend's host
// fallback and the out-of-core comparison.
//
// A bucket is compared in two steps: exact copies are collapsed onto group leaders (B - 1 pairs
// for B copies), then every pair of leaders is compared in square tiles of kCompareTile
// signatures, so that both tiles' rows and band keys stay in L1/L2 while 64 x 64 pairs are
// counted instead of every row of a large bucket being streamed from memory once per member
// (the CPU analogue of FED's tiled kernel).
//
// Pairs already joined in the same cluster are not skipped: the project stores every pair at or
// above the store floor so that a later run can re-cluster at another threshold, and a pair that
// is redundant for the clusters at one threshold is not at another. The only pairs that are
// duplicates at every threshold are exact copies, and those are collapsed (step one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"

namespace neardup {

inline constexpr std::size_t kCompareTile = 64;

// Per-thread scratch, reused from bucket to bucket.
struct BucketScratch {
    std::vector<std::pair<uint64_t, uint32_t>> byDigest;  // (digest, document)
    std::vector<uint32_t> leaders;
    std::vector<const uint32_t*> rows;  // tile row pointers
    std::vector<const uint64_t*> keys;  // tile band-key row pointers
};

// True when the band-key rows kx and ky share a key in a band before `band`.
inline bool sharesEarlierKey(const uint64_t* kx, const uint64_t* ky, int band) {
    for (int t = 0; t < band; ++t)
        if (kx[t] == ky[t]) return true;
    return false;
}

// True when documents x and y share a key in a band before `band`, i.e. they were compared
// there already.
inline bool collidedEarlier(const uint64_t* keys, int bands, uint32_t x, uint32_t y, int band) {
    return sharesEarlierKey(keys + std::size_t(x) * std::size_t(bands),
                            keys + std::size_t(y) * std::size_t(bands), band);
}

// Number of equal positions of two signatures, vectorized for the machine it runs on.
int countMatches(const uint32_t* a, const uint32_t* b, int hashes);

// The counting kernel of compareTiles, chosen at first use from what the CPU supports:
// "avx512", "avx2" or "generic". All give the same counts. selectCompareKernel switches to one
// by name ("auto" = the best supported), for tests and benchmarks; false when unsupported.
// Not thread-safe: call it before comparisons start.
const char* compareKernelName();
bool selectCompareKernel(const std::string& name);

// A block of documents for the tiled comparison.
struct CompareTile {
    const uint32_t* ids = nullptr;          // document ids, ascending
    const uint32_t* const* rows = nullptr;  // their signature rows
    const uint64_t* const* keys = nullptr;  // their band-key rows (not read in band 0)
    std::size_t size = 0;
};

struct CompareRule {
    int band = 0;
    int hashes = 0;
    int minMatches = 0;
};

// Decides every pair (x of a, y of b), or every x < y inside a when `same`, under the
// first-collision rule; appends {x, y} pairs with at least minMatches equal positions to out.
// Every id of a must precede every id of b unless `same`. Returns the pairs decided.
uint64_t compareTiles(const CompareTile& a, const CompareTile& b, bool same,
                      const CompareRule& rule, std::vector<ScoredPair>& out);

// Step one: joins each member whose signature equals its digest group's first member to that
// member, and leaves the group leaders, ascending, in scratch.leaders. Returns pairs decided.
uint64_t collapseCopies(const uint32_t* members, std::size_t size, int band,
                        const CompareRequest& req, BucketScratch& scratch,
                        std::vector<ScoredPair>& out);

// Step two: every pair of `leaders` (ascending) whose first document lies in tiles
// [tileBegin, tileEnd) of kCompareTile leaders. Returns pairs decided.
uint64_t compareLeaderTiles(const uint32_t* leaders, std::size_t count, std::size_t tileBegin,
                            std::size_t tileEnd, int band, const CompareRequest& req,
                            BucketScratch& scratch, std::vector<ScoredPair>& out);

inline std::size_t tileCount(std::size_t documents) {
    return (documents + kCompareTile - 1) / kCompareTile;
}

// Compares the members of one bucket (sorted by document index) of band `band`: both steps.
// Returns the number of distinct pairs decided here.
uint64_t compareBucket(const uint32_t* members, std::size_t size, int band,
                       const CompareRequest& req, BucketScratch& scratch,
                       std::vector<ScoredPair>& out);

}  // namespace neardup
