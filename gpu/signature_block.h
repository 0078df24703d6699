// What one thread block of the signature kernel does with one document, written once for the
// device and for a host emulation that runs the same phases thread by thread. Machines without a
// GPU thereby test the kernel's tiling and indexing against the CPU backend, not just its math.
//
// Layout of the work: thread t owns hash functions t, t + threads, ... and keeps their running
// minima (and, for the rolling family, their running polynomials) in shared memory. The stream
// is processed in tiles staged in shared memory so that every thread reads the same element at
// the same time (a broadcast):
//  - Rolling: a tile of `tile` symbols plus the k symbols before it; every thread rolls its
//    functions' polynomials through the tile with rollingStep, exactly as the CPU loop does.
//  - Permute: each thread computes the 64-bit fingerprints of some shingles of the tile directly
//    (k multiply-adds, no carried state), then every thread scans all fingerprints of the tile
//    for its functions.
//  - Oph: the fingerprints as for Permute; each thread then drops its own shingles into their
//    bins (a shared-memory atomic minimum), and at the end every thread densifies its empty
//    bins from a snapshot of the bins filled by shingles, exactly as ophDensify does.
// Includable from nvcc (C++17) and from host C++20; nothing beyond hash_math.h and <cstdint>
// in device code.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hash_math.h"
#include "signature_kernel.h"

#if !defined(__CUDACC__)
#include <vector>
#endif

namespace neardup::gpu {

// Threads per block and elements per tile (symbols for Rolling, shingles for Permute).
struct BlockShape {
    int threads = 128;
    int tile = 128;
};

// One thread per hash function up to 256; fewer than 64 threads per block wastes the SM.
inline BlockShape signatureBlockShape(int hashes, SignatureFamily family) {
    int threads = (hashes + 31) / 32 * 32;
    threads = threads < 64 ? 64 : (threads > 256 ? 256 : threads);
    // Rolling tiles are cheap to stage and each thread walks them serially: longer tiles halve
    // the barriers without costing occupancy (4 KiB of symbols).
    return {threads, family == SignatureFamily::Rolling ? 4 * threads : threads};
}

// Views into one block's shared memory.
struct BlockShared {
    uint64_t* fingerprints = nullptr;  // [tile], Permute and Oph
    uint32_t* minima = nullptr;        // [hashes]
    uint32_t* original = nullptr;      // [hashes], Oph: the bins before densification
    uint32_t* poly = nullptr;          // [hashes], Rolling
    uint32_t* symbols = nullptr;       // [tile + ngram], Rolling
};

NEARDUP_HD std::size_t signatureSharedBytes(const SignatureArgs& a, BlockShape s) {
    const auto h = static_cast<std::size_t>(a.hashes);
    const auto tile = static_cast<std::size_t>(s.tile);
    if (a.family == SignatureFamily::Rolling)
        return 2 * h * sizeof(uint32_t) +
               (tile + static_cast<std::size_t>(a.ngram)) * sizeof(uint32_t);
    return tile * sizeof(uint64_t) +
           (a.family == SignatureFamily::Oph ? 2 : 1) * h * sizeof(uint32_t);
}

// The 64-bit region comes first so that `base` (8-byte aligned) aligns everything.
NEARDUP_HD BlockShared carveShared(uint64_t* base, const SignatureArgs& a, BlockShape s) {
    BlockShared sh;
    const auto h = static_cast<std::size_t>(a.hashes);
    if (a.family != SignatureFamily::Rolling) {
        sh.fingerprints = base;
        sh.minima = reinterpret_cast<uint32_t*>(base + s.tile);
        if (a.family == SignatureFamily::Oph) sh.original = sh.minima + h;
    } else {
        sh.minima = reinterpret_cast<uint32_t*>(base);
        sh.poly = sh.minima + h;
        sh.symbols = sh.poly + h;
    }
    return sh;
}

// ophDensify's probes per empty bin before its cyclic scan (kOphProbes in core/sketch/oph_sketch.h;
// the test of this header checks that they agree).
inline constexpr uint32_t kOphProbeCount = 32;

NEARDUP_HD uint32_t minU32(uint32_t a, uint32_t b) {
    return b < a ? b : a;
}

// ---- Per-thread phases (no barrier inside a phase; thread t touches only what it owns or what
// it stages for the next phase) ------------------------------------------------------------------

// Rolling: the first window (or the whole stream when it is shorter than k), by appends.
NEARDUP_HD void rollingFirstWindow(const SignatureArgs& a, const uint32_t* sym, uint64_t width,
                                   const BlockShared& sh, int t, int threads) {
    for (int i = t; i < a.hashes; i += threads) {
        const uint32_t base = a.rollBase[i];
        uint32_t poly = 0;
        for (uint64_t j = 0; j < width; ++j)
            poly = hashmath::rollingAppend(poly, base, sym[j]);
        sh.poly[i] = poly;
        sh.minima[i] = hashmath::rollingFinish(poly, a.rollMul[i], a.rollAdd[i]);
    }
}

// Rolling: stages symbols [s0 - k, s0 + len) so that step s0 + q reads its leaving symbol at q
// and its entering symbol at q + k.
NEARDUP_HD void rollingStageTile(const uint32_t* sym, uint64_t s0, int k, int len,
                                 const BlockShared& sh, int t, int threads) {
    const uint32_t* src = sym + (s0 - static_cast<uint64_t>(k));
    for (int q = t; q < len + k; q += threads)
        sh.symbols[q] = src[q];
}

NEARDUP_HD void rollingConsumeTile(const SignatureArgs& a, int k, int len, const BlockShared& sh,
                                   int t, int threads) {
    for (int i = t; i < a.hashes; i += threads) {
        const uint32_t base = a.rollBase[i], top = a.rollTop[i];
        const uint32_t mul = a.rollMul[i], add = a.rollAdd[i];
        uint32_t poly = sh.poly[i];
        uint32_t m = sh.minima[i];
        for (int q = 0; q < len; ++q) {
            poly = hashmath::rollingStep(poly, base, top, sh.symbols[q], sh.symbols[q + k]);
            m = minU32(m, hashmath::rollingFinish(poly, mul, add));
        }
        sh.poly[i] = poly;
        sh.minima[i] = m;
    }
}

NEARDUP_HD void fillMinima(const SignatureArgs& a, const BlockShared& sh, uint32_t value, int t,
                           int threads) {
    for (int i = t; i < a.hashes; i += threads)
        sh.minima[i] = value;
}

// Permute: fingerprints of shingles p0 .. p0 + len, each computed directly from its window;
// equal to the CPU's rolled value because both are the same polynomial mod p61.
NEARDUP_HD void permuteFingerprintTile(const SignatureArgs& a, const uint32_t* sym, uint64_t p0,
                                       uint64_t width, int len, const BlockShared& sh, int t,
                                       int threads) {
    for (int q = t; q < len; q += threads) {
        const uint32_t* w = sym + p0 + static_cast<uint64_t>(q);
        uint64_t poly = 0;
        for (uint64_t j = 0; j < width; ++j)
            poly = hashmath::fingerprintAppend(poly, a.fpBase, w[j]);
        sh.fingerprints[q] = hashmath::fingerprintFinish(poly, a.fpSalt);
    }
}

NEARDUP_HD void permuteConsumeTile(const SignatureArgs& a, int len, const BlockShared& sh, int t,
                                   int threads) {
    for (int i = t; i < a.hashes; i += threads) {
        const uint64_t pa = a.permA[i], pb = a.permB[i];
        uint32_t m = sh.minima[i];
        for (int q = 0; q < len; ++q)
            m = minU32(m, hashmath::permute(sh.fingerprints[q], pa, pb));
        sh.minima[i] = m;
    }
}

// Oph: bin and value of a shingle fingerprint, as ophBin and ophValue (core/sketch/oph_sketch.h).
NEARDUP_HD uint32_t ophBinOf(uint64_t fingerprint, uint32_t bins) {
    return static_cast<uint32_t>(((fingerprint >> 32) * bins) >> 32);
}

NEARDUP_HD uint32_t ophValueOf(uint64_t fingerprint) {
    const auto v = static_cast<uint32_t>(fingerprint);
    return v < hashmath::kEmptySlot ? v : hashmath::kEmptySlot - 1;
}

// Oph: thread t drops shingles t, t + threads, ... of the tile into their bins.
// `atomicMin(p, v)` lowers *p to v atomically (the bins are shared by all threads).
template <class AtomicMin>
NEARDUP_HD void ophConsumeTile(const SignatureArgs& a, int len, const BlockShared& sh, int t,
                               int threads, const AtomicMin& atomicMin) {
    const auto h = static_cast<uint32_t>(a.hashes);
    for (int q = t; q < len; q += threads) {
        const uint64_t f = sh.fingerprints[q];
        atomicMin(sh.minima + ophBinOf(f, h), ophValueOf(f));
    }
}

NEARDUP_HD void ophSnapshot(const SignatureArgs& a, const BlockShared& sh, int t, int threads) {
    for (int i = t; i < a.hashes; i += threads)
        sh.original[i] = sh.minima[i];
}

// Oph: every empty bin borrows from a bin that shingles filled, by ophDensify's probe sequence.
// At least one bin is filled (the document has a shingle), so the cyclic scan ends.
NEARDUP_HD void ophDensifyBins(const SignatureArgs& a, const BlockShared& sh, int t, int threads) {
    const auto h = static_cast<uint32_t>(a.hashes);
    for (int ii = t; ii < a.hashes; ii += threads) {
        const auto i = static_cast<uint32_t>(ii);
        if (sh.original[i] != hashmath::kEmptySlot) continue;
        uint32_t j = 0;
        bool found = false;
        for (uint32_t probe = 1; probe <= kOphProbeCount && !found; ++probe) {
            j = ophBinOf(hashmath::mix64(a.ophSalt ^ (uint64_t{i} << 32 | probe)), h);
            found = sh.original[j] != hashmath::kEmptySlot;
        }
        while (!found) {
            j = j + 1 == h ? 0 : j + 1;
            found = sh.original[j] != hashmath::kEmptySlot;
        }
        sh.minima[i] = sh.original[j];
    }
}

NEARDUP_HD void writeMinima(const SignatureArgs& a, const BlockShared& sh, uint32_t* out, int t,
                            int threads) {
    for (int i = t; i < a.hashes; i += threads)
        out[i] = sh.minima[i];
}

// ---- The block's schedule ---------------------------------------------------------------------
// `block.run(f)` runs phase f on every thread of the block, then waits for all of them;
// `block.atomicMin(p, v)` lowers a shared-memory value atomically.

template <class Block>
NEARDUP_HD void signatureBlock(const SignatureArgs& a, uint32_t doc, const BlockShared& sh,
                               int tile, const Block& block) {
    const int threads = block.threads();
    const uint64_t begin = doc == 0 ? 0 : a.docEnd[doc - 1];
    const uint64_t count = a.docEnd[doc] - begin;
    const uint32_t* sym = a.symbols + begin;
    uint32_t* out = a.out + static_cast<uint64_t>(doc) * static_cast<uint64_t>(a.hashes);
    if (count == 0) {
        block.run([&](int t) {
            for (int i = t; i < a.hashes; i += threads)
                out[i] = hashmath::kEmptySlot;
        });
        return;
    }
    const auto k = static_cast<uint64_t>(a.ngram);
    // A stream shorter than k is one shingle made of all its symbols.
    const uint64_t width = count < k ? count : k;
    const auto tileLen = static_cast<uint64_t>(tile);
    if (a.family == SignatureFamily::Rolling) {
        block.run([&](int t) { rollingFirstWindow(a, sym, width, sh, t, threads); });
        for (uint64_t s0 = width; s0 < count; s0 += tileLen) {
            const int len = static_cast<int>(count - s0 < tileLen ? count - s0 : tileLen);
            block.run([&](int t) { rollingStageTile(sym, s0, a.ngram, len, sh, t, threads); });
            block.run([&](int t) { rollingConsumeTile(a, a.ngram, len, sh, t, threads); });
        }
    } else {
        const bool oph = a.family == SignatureFamily::Oph;
        const uint64_t shingles = count - width + 1;
        block.run([&](int t) { fillMinima(a, sh, hashmath::kEmptySlot, t, threads); });
        for (uint64_t p0 = 0; p0 < shingles; p0 += tileLen) {
            const int len = static_cast<int>(shingles - p0 < tileLen ? shingles - p0 : tileLen);
            block.run(
                [&](int t) { permuteFingerprintTile(a, sym, p0, width, len, sh, t, threads); });
            if (oph)
                block.run([&](int t) {
                    ophConsumeTile(a, len, sh, t, threads,
                                   [&](uint32_t* p, uint32_t v) { block.atomicMin(p, v); });
                });
            else
                block.run([&](int t) { permuteConsumeTile(a, len, sh, t, threads); });
        }
        if (oph) {
            block.run([&](int t) { ophSnapshot(a, sh, t, threads); });
            block.run([&](int t) { ophDensifyBins(a, sh, t, threads); });
        }
    }
    block.run([&](int t) { writeMinima(a, sh, out, t, threads); });
}

#if !defined(__CUDACC__)

// Host emulation: a block whose threads run one after another, phase by phase.
struct HostBlock {
    int count = 128;
    int threads() const { return count; }
    template <class F>
    void run(const F& phase) const {
        for (int t = 0; t < count; ++t)
            phase(t);
    }
    void atomicMin(uint32_t* p, uint32_t v) const { *p = minU32(*p, v); }
};

// Runs the kernel's schedule on the host for every document of `a` (host pointers).
inline void emulateSignatureKernel(const SignatureArgs& a, BlockShape shape) {
    std::vector<uint64_t> shared((signatureSharedBytes(a, shape) + 7) / 8);
    const BlockShared sh = carveShared(shared.data(), a, shape);
    const HostBlock block{shape.threads};
    for (uint32_t doc = 0; doc < a.docs; ++doc)
        signatureBlock(a, doc, sh, shape.tile, block);
}

#endif

}  // namespace neardup::gpu
