#include "simd_minhash.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "simd.h"

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics initialize their unused pass-through operand from itself and
// warn about it inside the header (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define NEARDUP_X86_KERNELS 1
#define NEARDUP_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
#define NEARDUP_AVX2 __attribute__((target("avx2,bmi2")))
#define NEARDUP_INLINE inline __attribute__((always_inline))
#endif

namespace neardup::simd {

namespace {

using namespace hashmath;

// Portable kernel: the shingle loop outside, the H loop inside (auto-vectorized for SSE2).
void scalarKernel(const uint32_t* symbols, std::size_t count, const HashConstants& c, uint32_t* out,
                  std::vector<uint64_t>& scratch) {
    const FingerprintRoll roll(c);
    const std::size_t n = shingleCount(count, roll.window());
    scratch.resize(n);
    roll.all(symbols, count, scratch.data());
    const auto h = static_cast<std::size_t>(c.hashes);
    const uint64_t* a = c.permA.data();
    const uint64_t* b = c.permB.data();
    std::fill(out, out + h, kEmptySlot);
    for (std::size_t s = 0; s < n; ++s) {
        const uint64_t f = scratch[s];
        for (std::size_t i = 0; i < h; ++i)
            out[i] = std::min(out[i], permute(f, a[i], b[i]));
    }
}

#if defined(NEARDUP_X86_KERNELS)

// The kernels keep a block of minima in registers for the whole document and stream the
// shingles past it, so each shingle costs one broadcast and, per 8 (or 4) functions, a
// multiply, an add and a min; the constants come from L1. Minima are kept as whole 64-bit
// values a * f + b: floor(v / 2^32) is monotone, so the high half of the minimum is the minimum
// of the high halves, and the shift is paid once per document instead of once per shingle.
// The next shingle's fingerprint (a scalar multiply chain) overlaps with the vector work.

// Where the fingerprints of a block come from: rolled from the symbols (first block; stored
// for the next blocks when there are more), or read back.
struct Stream {
    const uint32_t* symbols = nullptr;
    std::size_t count = 0;
    const FingerprintRoll* roll = nullptr;
    uint64_t* store = nullptr;        // where rolled fingerprints are saved, or null
    const uint64_t* saved = nullptr;  // fingerprints to read instead of rolling
    std::size_t shingles = 0;
};

// ---- AVX-512: 16 registers x 8 lanes = 128 functions per pass ---------------------------------
constexpr std::size_t kBlock512 = 128;

template <int V>
NEARDUP_AVX512 NEARDUP_INLINE void update512(__m512i* m, uint64_t f, const uint64_t* a,
                                             const uint64_t* b) {
    const __m512i x = _mm512_set1_epi64(static_cast<long long>(f));
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) {
        const __m512i p = _mm512_mullo_epi64(x, _mm512_load_si512(a + 8 * v));
        m[v] = _mm512_min_epu64(m[v], _mm512_add_epi64(p, _mm512_load_si512(b + 8 * v)));
    }
}

template <int V>
NEARDUP_AVX512 void block512(const Stream& in, const uint64_t* a, const uint64_t* b,
                             uint32_t* out) {
    __m512i m[V];
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v)
        m[v] = _mm512_set1_epi64(-1);
    if (in.saved) {
        for (std::size_t s = 0; s < in.shingles; ++s)
            update512<V>(m, in.saved[s], a, b);
    } else {
        const FingerprintRoll& roll = *in.roll;
        const std::size_t k = roll.window();
        uint64_t poly = roll.start(in.symbols, in.count);
        uint64_t f = roll.finish(poly);
        if (in.store) in.store[0] = f;
        update512<V>(m, f, a, b);
        for (std::size_t j = k; j < in.count; ++j) {
            poly = roll.roll(poly, in.symbols[j - k], in.symbols[j]);
            f = roll.finish(poly);
            if (in.store) in.store[j - k + 1] = f;
            update512<V>(m, f, a, b);
        }
    }
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * v),
                            _mm512_cvtepi64_epi32(_mm512_srli_epi64(m[v], 32)));
}

template <std::size_t... I>
constexpr auto blocks512(std::index_sequence<I...>) {
    return std::array{&block512<static_cast<int>(I) + 1>...};
}

NEARDUP_AVX512 void kernel512(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                              uint32_t* out, std::vector<uint64_t>& scratch) {
    static constexpr auto kBlocks = blocks512(std::make_index_sequence<kBlock512 / 8>());
    const FingerprintRoll roll(c);
    const auto h = static_cast<std::size_t>(c.hashes);
    Stream in{symbols, count, &roll, nullptr, nullptr, shingleCount(count, roll.window())};
    if (h > kBlock512) {
        scratch.resize(in.shingles);
        in.store = scratch.data();
    }
    alignas(64) uint64_t a[kBlock512], b[kBlock512];
    alignas(64) uint32_t result[kBlock512];
    for (std::size_t first = 0; first < h; first += kBlock512) {
        const std::size_t lanes = std::min(kBlock512, h - first);
        const std::size_t vectors = (lanes + 7) / 8;
        // Padding lanes compute 0 * f + 0 and are never copied out.
        std::fill(std::copy_n(c.permA.data() + first, lanes, a), a + vectors * 8, 0);
        std::fill(std::copy_n(c.permB.data() + first, lanes, b), b + vectors * 8, 0);
        kBlocks[vectors - 1](in, a, b, result);
        std::memcpy(out + first, result, lanes * sizeof(uint32_t));
        if (in.store) {
            in.saved = in.store;
            in.store = nullptr;
        }
    }
}

// ---- AVX2: 8 registers x 8 lanes = 64 functions per pass ---------------------------------------
// No 64-bit multiply and no unsigned 64-bit min, so the kernel works on the 32-bit result
// directly. With a = aH:aL, f = fH:fL and b = bH:bL (32-bit halves),
//     (a * f + b) >> 32 mod 2^32 = hi32(aL * fL + bL) + aH * fL + aL * fH + bH   (mod 2^32)
// (aL * fL + bL < 2^64 never carries out). The first term takes two 32x32->64 multiplies for
// 8 lanes (even and odd functions), the rest two 32-bit multiplies.
constexpr std::size_t kBlock2 = 64;

// Per block: the halves of a and b as 32-bit lanes, and the odd functions' aL and the b lows
// laid out for the 64-bit (even-lane) multiplies.
struct Constants2 {
    alignas(32) uint32_t aLow[kBlock2], aHigh[kBlock2], bHigh[kBlock2], aLowOdd[kBlock2];
    alignas(32) uint64_t bLowEven[kBlock2 / 2], bLowOdd[kBlock2 / 2];
};

NEARDUP_AVX2 NEARDUP_INLINE __m256i load(const void* p) {
    return _mm256_load_si256(static_cast<const __m256i*>(p));
}

template <int V>
NEARDUP_AVX2 NEARDUP_INLINE void update2(__m256i* m, uint64_t f, const Constants2& k) {
    const __m256i fLow64 = _mm256_set1_epi64x(static_cast<long long>(f & 0xFFFFFFFFu));
    const __m256i fLow = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(f)));
    const __m256i fHigh = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(f >> 32)));
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) {
        const __m256i aLow = load(k.aLow + 8 * v);
        const __m256i even =
            _mm256_add_epi64(_mm256_mul_epu32(aLow, fLow64), load(k.bLowEven + 4 * v));
        const __m256i odd = _mm256_add_epi64(_mm256_mul_epu32(load(k.aLowOdd + 8 * v), fLow64),
                                             load(k.bLowOdd + 4 * v));
        const __m256i carry = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
        const __m256i cross = _mm256_add_epi32(_mm256_mullo_epi32(load(k.aHigh + 8 * v), fLow),
                                               _mm256_mullo_epi32(aLow, fHigh));
        const __m256i r = _mm256_add_epi32(carry, _mm256_add_epi32(cross, load(k.bHigh + 8 * v)));
        m[v] = _mm256_min_epu32(m[v], r);
    }
}

template <int V>
NEARDUP_AVX2 void block2(const Stream& in, const Constants2& k, uint32_t* out) {
    __m256i m[V];
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v)
        m[v] = _mm256_set1_epi32(-1);
    if (in.saved) {
        for (std::size_t s = 0; s < in.shingles; ++s)
            update2<V>(m, in.saved[s], k);
    } else {
        const FingerprintRoll& roll = *in.roll;
        const std::size_t window = roll.window();
        uint64_t poly = roll.start(in.symbols, in.count);
        uint64_t f = roll.finish(poly);
        if (in.store) in.store[0] = f;
        update2<V>(m, f, k);
        for (std::size_t j = window; j < in.count; ++j) {
            poly = roll.roll(poly, in.symbols[j - window], in.symbols[j]);
            f = roll.finish(poly);
            if (in.store) in.store[j - window + 1] = f;
            update2<V>(m, f, k);
        }
    }
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * v), m[v]);
}

template <std::size_t... I>
constexpr auto blocks2(std::index_sequence<I...>) {
    return std::array{&block2<static_cast<int>(I) + 1>...};
}

NEARDUP_AVX2 void kernel2(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                          uint32_t* out, std::vector<uint64_t>& scratch) {
    static constexpr auto kBlocks = blocks2(std::make_index_sequence<kBlock2 / 8>());
    const FingerprintRoll roll(c);
    const auto h = static_cast<std::size_t>(c.hashes);
    Stream in{symbols, count, &roll, nullptr, nullptr, shingleCount(count, roll.window())};
    if (h > kBlock2) {
        scratch.resize(in.shingles);
        in.store = scratch.data();
    }
    Constants2 k;
    alignas(32) uint32_t result[kBlock2];
    for (std::size_t first = 0; first < h; first += kBlock2) {
        const std::size_t lanes = std::min(kBlock2, h - first);
        const std::size_t vectors = (lanes + 7) / 8;
        // Padding lanes compute 0 * f + 0 and are never copied out.
        for (std::size_t i = 0; i < vectors * 8; ++i) {
            const uint64_t a = i < lanes ? c.permA[first + i] : 0;
            const uint64_t b = i < lanes ? c.permB[first + i] : 0;
            k.aLow[i] = static_cast<uint32_t>(a);
            k.aHigh[i] = static_cast<uint32_t>(a >> 32);
            k.bHigh[i] = static_cast<uint32_t>(b >> 32);
            // 64-bit lane q of group v holds function 8v + 2q (even) or 8v + 2q + 1 (odd).
            if (i % 2 == 0) {
                k.bLowEven[i / 2] = static_cast<uint32_t>(b);
            } else {
                k.aLowOdd[i - 1] = static_cast<uint32_t>(a);
                k.aLowOdd[i] = 0;
                k.bLowOdd[i / 2] = static_cast<uint32_t>(b);
            }
        }
        kBlocks[vectors - 1](in, k, result);
        std::memcpy(out + first, result, lanes * sizeof(uint32_t));
        if (in.store) {
            in.saved = in.store;
            in.store = nullptr;
        }
    }
}

#endif  // NEARDUP_X86_KERNELS

}  // namespace

void classicPermute(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                    uint32_t* out, std::vector<uint64_t>& scratch) {
#if defined(NEARDUP_X86_KERNELS)
    switch (activeSimdLevel()) {
        case SimdLevel::Avx512:
            return kernel512(symbols, count, c, out, scratch);
        case SimdLevel::Avx2:
            return kernel2(symbols, count, c, out, scratch);
        case SimdLevel::Scalar:
            break;
    }
#endif
    scalarKernel(symbols, count, c, out, scratch);
}

}  // namespace neardup::simd
