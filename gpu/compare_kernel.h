// Launch interface of the band-key and bucket-comparison kernels. Free of CUDA types so that
// host code compiled as C++20 (and the CPU tests) can use it; the kernels are in
// compare_kernel.cu and their per-thread logic in compare_block.h.
#pragma once

#include <cstdint>

namespace neardup::gpu {

// ---- Band keys ---------------------------------------------------------------------------------

struct BandKeyArgs {
    const uint32_t* signatures = nullptr;  // docs x hashes, row-major
    uint64_t* keys = nullptr;              // docs x bands, row-major
    uint64_t docs = 0;
    int hashes = 0;
    int bands = 0;
    int rows = 0;
    int sumScheme = 0;     // 0: hash scheme, 1: sum scheme
    uint64_t modulus = 0;  // 0: no reduction
};

// Enqueues the band-key kernel on `stream` (a cudaStream_t); returns a cudaError_t value.
int launchBandKeyKernel(const BandKeyArgs& args, void* stream);

// ---- Bucket comparison -------------------------------------------------------------------------
// The comparison works on a "pass": rows of signatures gathered on the host (each row one group
// leader of one bucket, see bucket_compare.h), described by segments:
//  - TileSegment: rows A = [aBegin, aBegin + aCount) against rows B = [bBegin, bBegin + bCount),
//    or the strict upper triangle of A when `same`. Cut into 64 x 64 tiles ("tasks"), one thread
//    block each. A bucket is one same-segment, or, when it is larger than a pass, one segment per
//    pair of chunks (I <= J) of its leaders, each in a pass of its own.
//  - PairSegment: a small bucket (at most kSmallBucket leaders); each of its pairs is one task,
//    one warp each.
// Rows of A always hold smaller document ids than rows of B (leaders are ascending), so every
// reported pair has a < b.

inline constexpr int kTileRows = 64;  // documents per tile side
inline constexpr int kTileSide = 16;  // threads per tile side
inline constexpr int kTileThreads = kTileSide * kTileSide;
inline constexpr int kPerThread = kTileRows / kTileSide;  // 4 x 4 pairs per thread
inline constexpr int kSigChunk = 32;                      // signature positions staged per step
inline constexpr int kKeyChunk = 8;                       // earlier bands' keys staged per step
inline constexpr int kSmallBucket = 16;  // leaders up to this: warp-per-pair kernel
inline constexpr int kWarpSize = 32;
// The largest number of pairs one task can report: a full off-diagonal tile.
inline constexpr uint64_t kMaxPairsPerTask = uint64_t(kTileRows) * uint64_t(kTileRows);

struct TileSegment {
    uint64_t taskBegin = 0;  // index of its first tile task within the pass
    uint32_t aBegin = 0, aCount = 0;
    uint32_t bBegin = 0, bCount = 0;  // ignored when same
    uint32_t same = 1;
    uint32_t reserved = 0;
};

struct PairSegment {
    uint64_t pairBegin = 0;  // index of its first pair within the pass
    uint32_t rowBegin = 0;
    uint32_t count = 0;  // leaders, 2 .. kSmallBucket
};

struct FoundPair {
    uint32_t a = 0, b = 0, matches = 0;
};

// Counters written by the kernels: pairs found (counts past the capacity, so that an overflow
// tells the exact size needed) and pairs decided (compared under the first-collision rule).
struct CompareCounters {
    unsigned long long found = 0;
    unsigned long long decided = 0;
};

struct CompareArgs {
    const uint32_t* signatures = nullptr;  // rows x hashes
    const uint64_t* keys = nullptr;        // rows x keyBands: keys of bands 0 .. keyBands - 1
    const uint32_t* ids = nullptr;         // rows: document ids
    int hashes = 0;
    int keyBands = 0;  // the band being compared when the first-collision rule applies, else 0
    int minMatches = 0;
    const TileSegment* tileSegments = nullptr;
    uint32_t tileSegmentCount = 0;
    const PairSegment* pairSegments = nullptr;
    uint32_t pairSegmentCount = 0;
    // The tasks to run: tile tasks [tileBegin, tileEnd) and pair tasks [pairBegin, pairEnd).
    uint64_t tileBegin = 0, tileEnd = 0;
    uint64_t pairBegin = 0, pairEnd = 0;
    FoundPair* out = nullptr;
    uint64_t capacity = 0;
    CompareCounters* counters = nullptr;
};

// Enqueues both comparison kernels (for the non-empty task ranges) on `stream`; returns a
// cudaError_t value. The counters must be zeroed before.
int launchCompareKernels(const CompareArgs& args, void* stream);

}  // namespace neardup::gpu
