// What the band-key and comparison kernels do, per thread, written once for the device and for a
// host emulation that runs the same phases thread by thread (like signature_block.h). Machines
// without a GPU thereby test the kernels' indexing (tiles over the upper triangle, diagonal tiles,
// ragged edges, the first-collision rule, compaction) against the CPU backend.
//
// Tiled kernel (buckets with more than kSmallBucket leaders): one block of 16 x 16 threads per
// 64 x 64 tile of pairs; thread (ty, tx) owns the 4 x 4 pairs (ty + 16 i, tx + 16 j). Signature
// positions are staged in shared memory 32 at a time (transposed, padded against bank
// conflicts), and every thread counts its 16 pairs' equal positions from there, like a GEMM
// accumulates products. Earlier bands' keys are staged the same way, 8 bands at a time, into a
// 16-bit "collided earlier" mask per thread. Then each thread reports its pairs that are
// decided (no earlier collision, inside the bucket's upper triangle) and reach minMatches.
//
// Pair kernel (small buckets): one warp per pair; lane l compares positions l, l + 32, ...; the
// counts are summed across the warp.
//
// Includable from nvcc (C++17) and from host C++20; nothing beyond hash_math.h in device code.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compare_kernel.h"
#include "hash_math.h"

#if !defined(__CUDACC__)
#include <cmath>
#include <vector>
#endif

namespace neardup::gpu {

// ---- Band keys ---------------------------------------------------------------------------------

// Key of band `band` of one signature row, exactly as the CPU backend computes it.
NEARDUP_HD uint64_t bandKeyOf(const uint32_t* row, int rows, int band, bool sumScheme,
                              uint64_t modulus) {
    const uint32_t* v = row + static_cast<std::size_t>(band) * static_cast<std::size_t>(rows);
    const uint64_t key = sumScheme ? hashmath::bandKeySum(v, rows)
                                   : hashmath::bandKeyHash(v, rows, static_cast<uint32_t>(band));
    return modulus ? key % modulus : key;
}

// Element e of the key matrix (e = doc * bands + band); one thread per element.
NEARDUP_HD void bandKeyElement(const BandKeyArgs& a, uint64_t e) {
    const auto bands = static_cast<uint64_t>(a.bands);
    const uint64_t doc = e / bands;
    const auto band = static_cast<int>(e - doc * bands);
    a.keys[e] = bandKeyOf(a.signatures + doc * static_cast<uint64_t>(a.hashes), a.rows, band,
                          a.sumScheme != 0, a.modulus);
}

// ---- Task indexing -----------------------------------------------------------------------------

NEARDUP_HD uint32_t tilesOf(uint32_t rows) {
    return (rows + static_cast<uint32_t>(kTileRows) - 1) / static_cast<uint32_t>(kTileRows);
}

// Tile tasks of a segment: the upper triangle with its diagonal, or the whole rectangle.
NEARDUP_HD uint64_t segmentTasks(const TileSegment& s) {
    const uint64_t ta = tilesOf(s.aCount);
    return s.same ? ta * (ta + 1) / 2 : ta * static_cast<uint64_t>(tilesOf(s.bCount));
}

// Decodes q < tiles (tiles + 1) / 2 into (ti, tj), ti <= tj, row-major over the upper triangle
// with its diagonal. Closed form in double precision, then corrected exactly in integers.
NEARDUP_HD void triangleDecode(uint64_t q, uint64_t tiles, uint64_t& ti, uint64_t& tj) {
    const double b = 2.0 * static_cast<double>(tiles) + 1.0;
    double root = b * b - 8.0 * static_cast<double>(q);
    root = root > 0 ? root : 0;
#if defined(__CUDA_ARCH__)
    double guess = (b - ::sqrt(root)) / 2.0;
#else
    double guess = (b - std::sqrt(root)) / 2.0;
#endif
    guess = guess < 0 ? 0 : guess;
    uint64_t row = static_cast<uint64_t>(guess);
    if (row >= tiles) row = tiles - 1;
    // start(row) = row * tiles - row (row - 1) / 2 pairs precede row `row`.
    auto start = [tiles](uint64_t r) { return r * tiles - r * (r - (r > 0 ? 1 : 0)) / 2; };
    while (row > 0 && start(row) > q)
        --row;
    while (row + 1 < tiles && start(row + 1) <= q)
        ++row;
    ti = row;
    tj = row + (q - start(row));
}

// Last segment whose first task is <= task (segments have at least one task each, ascending).
template <class Segment, class Begin>
NEARDUP_HD uint32_t findSegment(const Segment* segs, uint32_t count, uint64_t task, Begin begin) {
    uint32_t lo = 0, hi = count;  // answer in [lo, hi)
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (begin(segs[mid]) <= task)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// Where one tile task lies: its A rows, its B rows, and whether it is a diagonal tile.
struct TileWork {
    uint32_t aRow = 0, aCount = 0;  // pass rows [aRow, aRow + aCount)
    uint32_t bRow = 0, bCount = 0;
    bool diagonal = false;  // same segment, ti == tj: only pairs with local a < local b
};

NEARDUP_HD TileWork locateTile(const CompareArgs& a, uint64_t task) {
    const uint32_t s = findSegment(a.tileSegments, a.tileSegmentCount, task,
                                   [](const TileSegment& x) { return x.taskBegin; });
    const TileSegment& seg = a.tileSegments[s];
    const uint64_t q = task - seg.taskBegin;
    uint64_t ti = 0, tj = 0;
    if (seg.same) {
        triangleDecode(q, tilesOf(seg.aCount), ti, tj);
    } else {
        const uint64_t tb = tilesOf(seg.bCount);
        ti = q / tb;
        tj = q - ti * tb;
    }
    const auto rows = static_cast<uint64_t>(kTileRows);
    TileWork w;
    const uint64_t bBegin = seg.same ? seg.aBegin : seg.bBegin;
    const uint64_t bCount = seg.same ? seg.aCount : seg.bCount;
    w.aRow = static_cast<uint32_t>(seg.aBegin + ti * rows);
    w.bRow = static_cast<uint32_t>(bBegin + tj * rows);
    const uint64_t aLeft = seg.aCount - ti * rows, bLeft = bCount - tj * rows;
    w.aCount = static_cast<uint32_t>(aLeft < rows ? aLeft : rows);
    w.bCount = static_cast<uint32_t>(bLeft < rows ? bLeft : rows);
    w.diagonal = seg.same && ti == tj;
    return w;
}

// Pair p < n (n - 1) / 2 of a small bucket of n leaders as (i, j), i < j, row-major.
NEARDUP_HD void smallPairDecode(uint32_t p, uint32_t n, uint32_t& i, uint32_t& j) {
    i = 0;
    while (p >= n - 1 - i) {
        p -= n - 1 - i;
        ++i;
    }
    j = i + 1 + p;
}

// ---- Reporting ---------------------------------------------------------------------------------

// Writes a found pair at the slot the counter gave it, when the slot fits the buffer; the
// counter keeps counting past the capacity so the host learns the size it needs.
NEARDUP_HD void storePair(const CompareArgs& a, uint64_t slot, uint32_t x, uint32_t y,
                          uint32_t matches) {
    if (slot < a.capacity) a.out[slot] = FoundPair{x, y, matches};
}

// ---- Tiled kernel ------------------------------------------------------------------------------

struct TileShared {
    // Transposed: [position][row], one padding column so that a warp staging one row's 32
    // positions writes 32 different banks.
    uint32_t sigA[kSigChunk][kTileRows + 1];
    uint32_t sigB[kSigChunk][kTileRows + 1];
    uint64_t keyA[kKeyChunk][kTileRows + 1];
    uint64_t keyB[kKeyChunk][kTileRows + 1];
};

// What one thread carries from phase to phase (registers on the device).
struct TileThread {
    uint32_t counts[kPerThread * kPerThread];
    uint32_t collided;  // bit i * 4 + j: pair (i, j) shares a key in an earlier band
};

NEARDUP_HD void tileInit(TileThread& s) {
    for (int p = 0; p < kPerThread * kPerThread; ++p)
        s.counts[p] = 0;
    s.collided = 0;
}

// Stages positions [c0, c0 + len) of the tile's A and B rows; rows past the edge read as 0
// (their pairs are never reported).
NEARDUP_HD void tileStageSignatures(const CompareArgs& a, const TileWork& w, int c0, int len,
                                    TileShared& sh, int t) {
    const auto h = static_cast<uint64_t>(a.hashes);
    for (int e = t; e < kTileRows * kSigChunk; e += kTileThreads) {
        const int r = e / kSigChunk, k = e % kSigChunk;
        if (k >= len) continue;
        const auto ur = static_cast<uint32_t>(r);
        const uint64_t pos = static_cast<uint64_t>(c0 + k);
        sh.sigA[k][r] =
            ur < w.aCount ? a.signatures[static_cast<uint64_t>(w.aRow + ur) * h + pos] : 0u;
        sh.sigB[k][r] =
            ur < w.bCount ? a.signatures[static_cast<uint64_t>(w.bRow + ur) * h + pos] : 0u;
    }
}

NEARDUP_HD void tileCountChunk(int len, const TileShared& sh, int t, TileThread& s) {
    const int ty = t / kTileSide, tx = t % kTileSide;
    for (int k = 0; k < len; ++k) {
        uint32_t x[kPerThread], y[kPerThread];
        for (int i = 0; i < kPerThread; ++i) {
            x[i] = sh.sigA[k][ty + kTileSide * i];
            y[i] = sh.sigB[k][tx + kTileSide * i];
        }
        for (int i = 0; i < kPerThread; ++i)
            for (int j = 0; j < kPerThread; ++j)
                s.counts[i * kPerThread + j] += x[i] == y[j] ? 1u : 0u;
    }
}

NEARDUP_HD void tileStageKeys(const CompareArgs& a, const TileWork& w, int b0, int len,
                              TileShared& sh, int t) {
    const auto bands = static_cast<uint64_t>(a.keyBands);
    for (int e = t; e < kTileRows * kKeyChunk; e += kTileThreads) {
        const int r = e / kKeyChunk, k = e % kKeyChunk;
        if (k >= len) continue;
        const auto ur = static_cast<uint32_t>(r);
        const uint64_t band = static_cast<uint64_t>(b0 + k);
        sh.keyA[k][r] =
            ur < w.aCount ? a.keys[static_cast<uint64_t>(w.aRow + ur) * bands + band] : uint64_t{0};
        sh.keyB[k][r] =
            ur < w.bCount ? a.keys[static_cast<uint64_t>(w.bRow + ur) * bands + band] : uint64_t{0};
    }
}

NEARDUP_HD void tileMarkCollisions(int len, const TileShared& sh, int t, TileThread& s) {
    const int ty = t / kTileSide, tx = t % kTileSide;
    for (int k = 0; k < len; ++k)
        for (int i = 0; i < kPerThread; ++i) {
            const uint64_t x = sh.keyA[k][ty + kTileSide * i];
            for (int j = 0; j < kPerThread; ++j)
                if (x == sh.keyB[k][tx + kTileSide * j])
                    s.collided |= 1u << static_cast<unsigned>(i * kPerThread + j);
        }
}

// Reports this thread's pairs; returns how many it decided. `reserve(n)` atomically adds n to
// the found counter and returns its previous value.
template <class Reserve>
NEARDUP_HD uint32_t tileReport(const CompareArgs& a, const TileWork& w, int t, const TileThread& s,
                               const Reserve& reserve) {
    const int ty = t / kTileSide, tx = t % kTileSide;
    uint32_t decided = 0;
    for (int i = 0; i < kPerThread; ++i) {
        const auto la = static_cast<uint32_t>(ty + kTileSide * i);
        if (la >= w.aCount) continue;
        for (int j = 0; j < kPerThread; ++j) {
            const auto lb = static_cast<uint32_t>(tx + kTileSide * j);
            const int p = i * kPerThread + j;
            if (lb >= w.bCount || (w.diagonal && lb <= la) || ((s.collided >> p) & 1u)) continue;
            ++decided;
            if (s.counts[p] >= static_cast<uint32_t>(a.minMatches))
                storePair(a, reserve(1), a.ids[w.aRow + la], a.ids[w.bRow + lb], s.counts[p]);
        }
    }
    return decided;
}

// The block's schedule for one tile task. `block.run(f)` runs f(t, state_of_t) on every thread,
// then waits for all of them; block.reserve(n) reserves n output slots; block.decided(t, n)
// adds thread t's decided pairs to the counter (called by every thread, last).
template <class Block>
NEARDUP_HD void compareTileBlock(const CompareArgs& a, uint64_t task, TileShared& sh,
                                 const Block& block) {
    const TileWork w = locateTile(a, task);
    block.run([&](int, TileThread& s) { tileInit(s); });
    for (int c0 = 0; c0 < a.hashes; c0 += kSigChunk) {
        const int len = a.hashes - c0 < kSigChunk ? a.hashes - c0 : kSigChunk;
        block.run([&](int t, TileThread&) { tileStageSignatures(a, w, c0, len, sh, t); });
        block.run([&](int t, TileThread& s) { tileCountChunk(len, sh, t, s); });
    }
    for (int b0 = 0; b0 < a.keyBands; b0 += kKeyChunk) {
        const int len = a.keyBands - b0 < kKeyChunk ? a.keyBands - b0 : kKeyChunk;
        block.run([&](int t, TileThread&) { tileStageKeys(a, w, b0, len, sh, t); });
        block.run([&](int t, TileThread& s) { tileMarkCollisions(len, sh, t, s); });
    }
    block.run([&](int t, TileThread& s) {
        block.decided(t, tileReport(a, w, t, s, [&](uint64_t n) { return block.reserve(n); }));
    });
}

// ---- Pair kernel -------------------------------------------------------------------------------

// Where one pair task lies: the two pass rows.
struct PairWork {
    uint32_t x = 0, y = 0;
};

NEARDUP_HD PairWork locatePair(const CompareArgs& a, uint64_t task) {
    const uint32_t s = findSegment(a.pairSegments, a.pairSegmentCount, task,
                                   [](const PairSegment& x) { return x.pairBegin; });
    const PairSegment& seg = a.pairSegments[s];
    uint32_t i = 0, j = 0;
    smallPairDecode(static_cast<uint32_t>(task - seg.pairBegin), seg.count, i, j);
    return {seg.rowBegin + i, seg.rowBegin + j};
}

// Lane `lane`'s share of the equal positions: positions lane, lane + 32, ...
NEARDUP_HD uint32_t laneMatches(const CompareArgs& a, const PairWork& w, int lane) {
    const auto h = static_cast<uint64_t>(a.hashes);
    const uint32_t* x = a.signatures + static_cast<uint64_t>(w.x) * h;
    const uint32_t* y = a.signatures + static_cast<uint64_t>(w.y) * h;
    uint32_t m = 0;
    for (int k = lane; k < a.hashes; k += kWarpSize)
        m += x[k] == y[k] ? 1u : 0u;
    return m;
}

// True when lane `lane`'s earlier bands (lane, lane + 32, ...) give both documents one key.
NEARDUP_HD bool laneCollided(const CompareArgs& a, const PairWork& w, int lane) {
    const auto bands = static_cast<uint64_t>(a.keyBands);
    const uint64_t* x = a.keys + static_cast<uint64_t>(w.x) * bands;
    const uint64_t* y = a.keys + static_cast<uint64_t>(w.y) * bands;
    for (int k = lane; k < a.keyBands; k += kWarpSize)
        if (x[k] == y[k]) return true;
    return false;
}

// One warp's work for one pair. `warp.sum(f)` sums f(lane) over the lanes, `warp.any(f)` ors
// them, both returning the result to every lane; `warp.leader()` is true on one lane. Returns
// 1 when the pair was decided (on every lane).
template <class Warp>
NEARDUP_HD uint32_t comparePairWarp(const CompareArgs& a, uint64_t task, const Warp& warp) {
    const PairWork w = locatePair(a, task);
    const bool collided =
        a.keyBands > 0 && warp.any([&](int lane) { return laneCollided(a, w, lane); });
    if (collided) return 0;
    const uint32_t m = warp.sum([&](int lane) { return laneMatches(a, w, lane); });
    if (warp.leader() && m >= static_cast<uint32_t>(a.minMatches))
        storePair(a, warp.reserve(1), a.ids[w.x], a.ids[w.y], m);
    return 1;
}

#if !defined(__CUDACC__)

// ---- Host emulation ----------------------------------------------------------------------------

// A block whose threads run one after another, phase by phase; counters updated in place.
struct HostTileBlock {
    std::vector<TileThread>* states = nullptr;
    CompareCounters* counters = nullptr;
    int threads() const { return kTileThreads; }
    template <class F>
    void run(const F& phase) const {
        for (int t = 0; t < kTileThreads; ++t)
            phase(t, (*states)[static_cast<std::size_t>(t)]);
    }
    uint64_t reserve(uint64_t n) const {
        const uint64_t slot = counters->found;
        counters->found += n;
        return slot;
    }
    void decided(int, uint32_t n) const { counters->decided += n; }
};

struct HostWarp {
    CompareCounters* counters = nullptr;
    template <class F>
    uint32_t sum(const F& f) const {
        uint32_t s = 0;
        for (int lane = 0; lane < kWarpSize; ++lane)
            s += f(lane);
        return s;
    }
    template <class F>
    bool any(const F& f) const {
        bool r = false;
        for (int lane = 0; lane < kWarpSize; ++lane)
            r = f(lane) || r;
        return r;
    }
    bool leader() const { return true; }
    uint64_t reserve(uint64_t n) const {
        const uint64_t slot = counters->found;
        counters->found += n;
        return slot;
    }
};

// Runs the kernels' schedule on the host for the tasks of `a` (host pointers), tile tasks in the
// order given by `tileOrder` (task indices; empty = ascending) to show that the result does not
// depend on the order in which blocks finish.
inline void emulateCompareKernels(const CompareArgs& a,
                                  const std::vector<uint64_t>& tileOrder = {}) {
    std::vector<TileThread> states(kTileThreads);
    std::vector<TileShared> shared(1);
    const HostTileBlock block{&states, a.counters};
    if (tileOrder.empty()) {
        for (uint64_t task = a.tileBegin; task < a.tileEnd; ++task)
            compareTileBlock(a, task, shared[0], block);
    } else {
        for (uint64_t task : tileOrder)
            compareTileBlock(a, task, shared[0], block);
    }
    const HostWarp warp{a.counters};
    for (uint64_t task = a.pairBegin; task < a.pairEnd; ++task)
        a.counters->decided += comparePairWarp(a, task, warp);
}

inline void emulateBandKeyKernel(const BandKeyArgs& a) {
    const uint64_t n = a.docs * static_cast<uint64_t>(a.bands);
    for (uint64_t e = 0; e < n; ++e)
        bandKeyElement(a, e);
}

#endif

}  // namespace neardup::gpu
