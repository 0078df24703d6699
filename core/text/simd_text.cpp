#include "simd_text.h"

#include <array>
#include <bit>

#include "simd.h"

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics initialize their unused pass-through operand from itself and
// warn about it inside the header (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define NEARDUP_X86_KERNELS 1
#define NEARDUP_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,bmi,bmi2,popcnt")))
#define NEARDUP_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
#endif

namespace neardup::simd {

namespace {

constexpr bool asciiSpace(uint32_t c) {
    return c == 0x20 || c - 0x09u < 5u;
}

// Per ASCII byte: the output code point (a space for whitespace) and, in bit 8, "whitespace".
template <bool kLower>
constexpr std::array<uint16_t, 128> makeAsciiTable() {
    std::array<uint16_t, 128> t{};
    for (uint32_t c = 0; c < 128; ++c) {
        const uint32_t lowered = kLower && c - 'A' < 26u ? c + 0x20 : c;
        t[c] = static_cast<uint16_t>(asciiSpace(c) ? 0x120 : lowered);
    }
    return t;
}
constexpr auto kLowerTable = makeAsciiTable<true>();
constexpr auto kKeepTable = makeAsciiTable<false>();

AsciiRun asciiRunScalar(const uint8_t* s, std::size_t n, uint32_t* out, bool lower, bool collapse,
                        bool& previousSpace) {
    const uint16_t* table = lower ? kLowerTable.data() : kKeepTable.data();
    std::size_t i = 0;
    uint32_t* o = out;
    if (collapse) {
        uint32_t previous = previousSpace;
        for (; i < n && s[i] < 0x80; ++i) {
            const uint32_t e = table[s[i]];
            const uint32_t space = e >> 8;
            *o = e & 0xFF;
            o += 1 - (space & previous);
            previous = space;
        }
        previousSpace = previous != 0;
    } else {
        for (; i < n && s[i] < 0x80; ++i) {
            const uint32_t c = s[i];
            *o++ = lower && c - 'A' < 26u ? c + 0x20 : c;
        }
    }
    return {i, static_cast<std::size_t>(o - out)};
}

#if defined(NEARDUP_X86_KERNELS)

// Whitespace is collapsed by dropping every whitespace byte whose predecessor is whitespace
// too: keep = ~(space & (space << 1 | previous)); the kept bytes are widened to 32 bits and
// packed together (vpcompressd on AVX-512, a shuffle table on AVX2).

NEARDUP_AVX512 AsciiRun asciiRun512(const uint8_t* s, std::size_t n, uint32_t* out, bool lower,
                                    bool collapse, bool& previousSpace) {
    const __m512i blank = _mm512_set1_epi8(0x20);
    const __m512i tab = _mm512_set1_epi8(0x09);
    const __m512i four = _mm512_set1_epi8(4);
    const __m512i upperA = _mm512_set1_epi8('A');
    const __m512i z25 = _mm512_set1_epi8(25);
    uint64_t previous = previousSpace;
    std::size_t i = 0;
    uint32_t* o = out;
    while (i < n) {
        const std::size_t left = n - i;
        const uint64_t valid = left >= 64 ? ~uint64_t{0} : (uint64_t{1} << left) - 1;
        __m512i v = _mm512_maskz_loadu_epi8(valid, s + i);
        const uint64_t high = _mm512_movepi8_mask(v) & valid;
        const uint64_t take = high ? (high & (0 - high)) - 1 : valid;
        if (take == 0) break;
        const uint64_t space = (_mm512_cmpeq_epi8_mask(v, blank) |
                                _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, tab), four)) &
                               take;
        if (lower) {
            const uint64_t upper = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, upperA), z25);
            v = _mm512_mask_add_epi8(v, upper, v, blank);
        }
        uint64_t keep = take;
        if (collapse) {
            v = _mm512_mask_mov_epi8(v, space, blank);
            keep &= ~(space & ((space << 1) | previous));
        }
        const auto consumed = static_cast<std::size_t>(std::popcount(take));
        if (keep == ~uint64_t{0}) {
            // A whole block kept (prose with single spaces, usually): widened and stored as it
            // is, without the four compresses.
            _mm512_storeu_si512(o, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(v)));
            _mm512_storeu_si512(o + 16, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 1)));
            _mm512_storeu_si512(o + 32, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 2)));
            _mm512_storeu_si512(o + 48, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 3)));
            o += 64;
            previous = space >> 63;
            i += 64;
            continue;
        }
        for (std::size_t q = 0; q * 16 < consumed; ++q) {
            const auto k = static_cast<__mmask16>(keep >> (16 * q));
            const __m512i wide = _mm512_cvtepu8_epi32(q == 0   ? _mm512_castsi512_si128(v)
                                                      : q == 1 ? _mm512_extracti32x4_epi32(v, 1)
                                                      : q == 2 ? _mm512_extracti32x4_epi32(v, 2)
                                                               : _mm512_extracti32x4_epi32(v, 3));
            _mm512_storeu_si512(o, _mm512_maskz_compress_epi32(k, wide));
            o += std::popcount(static_cast<unsigned>(k));
        }
        previous = (space >> (consumed - 1)) & 1;
        i += consumed;
        if (take != valid) break;
    }
    if (collapse) previousSpace = previous != 0;
    return {i, static_cast<std::size_t>(o - out)};
}

// Shuffle indices that pack the kept lanes of 8 to the front, per 8-bit keep mask.
constexpr std::array<uint64_t, 256> makePackTable() {
    std::array<uint64_t, 256> t{};
    for (unsigned m = 0; m < 256; ++m) {
        uint64_t entry = 0;
        unsigned at = 0;
        for (unsigned lane = 0; lane < 8; ++lane)
            if (m & (1u << lane)) entry |= uint64_t{lane} << (8 * at++);
        t[m] = entry;
    }
    return t;
}
constexpr auto kPackTable = makePackTable();

// (x - lo) <= span, unsigned, per byte: min(x - lo, span) == x - lo.
NEARDUP_AVX2 inline __m256i inRange(__m256i x, __m256i lo, __m256i span) {
    const __m256i d = _mm256_sub_epi8(x, lo);
    return _mm256_cmpeq_epi8(_mm256_min_epu8(d, span), d);
}

NEARDUP_AVX2 AsciiRun asciiRun2(const uint8_t* s, std::size_t n, uint32_t* out, bool lower,
                                bool collapse, bool& previousSpace) {
    const __m256i blank = _mm256_set1_epi8(0x20);
    const __m256i tab = _mm256_set1_epi8(0x09);
    const __m256i four = _mm256_set1_epi8(4);
    const __m256i upperA = _mm256_set1_epi8('A');
    const __m256i z25 = _mm256_set1_epi8(25);
    uint32_t previous = previousSpace;
    std::size_t i = 0;
    uint32_t* o = out;
    while (n - i >= 32) {
        __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
        const auto high = static_cast<uint32_t>(_mm256_movemask_epi8(v));
        const uint32_t take = high ? (high & (0 - high)) - 1 : ~0u;
        if (take == 0) break;
        const __m256i spaceV = _mm256_or_si256(_mm256_cmpeq_epi8(v, blank), inRange(v, tab, four));
        const uint32_t space = static_cast<uint32_t>(_mm256_movemask_epi8(spaceV)) & take;
        if (lower) v = _mm256_add_epi8(v, _mm256_and_si256(inRange(v, upperA, z25), blank));
        uint32_t keep = take;
        if (collapse) {
            v = _mm256_blendv_epi8(v, blank, spaceV);
            keep &= ~(space & ((space << 1) | previous));
        }
        const auto consumed = static_cast<std::size_t>(std::popcount(take));
        alignas(32) uint8_t bytes[32];
        _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), v);
        for (std::size_t q = 0; q * 8 < consumed; ++q) {
            const unsigned k = (keep >> (8 * q)) & 0xFFu;
            const __m256i wide = _mm256_cvtepu8_epi32(
                _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes + 8 * q)));
            const __m256i index =
                _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kPackTable[k])));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(o),
                                _mm256_permutevar8x32_epi32(wide, index));
            o += std::popcount(k);
        }
        previous = (space >> (consumed - 1)) & 1u;
        i += consumed;
        if (take != ~0u) break;
    }
    bool previousOut = collapse ? previous != 0 : previousSpace;
    AsciiRun tail{};
    if (i < n && s[i] < 0x80) tail = asciiRunScalar(s + i, n - i, o, lower, collapse, previousOut);
    previousSpace = previousOut;
    return {i + tail.consumed, static_cast<std::size_t>(o - out) + tail.written};
}

#endif  // NEARDUP_X86_KERNELS

}  // namespace

AsciiRun asciiRun(const uint8_t* s, std::size_t n, uint32_t* out, bool lower, bool collapse,
                  bool& previousSpace) {
#if defined(NEARDUP_X86_KERNELS)
    switch (activeSimdLevel()) {
        case SimdLevel::Avx512:
            return asciiRun512(s, n, out, lower, collapse, previousSpace);
        case SimdLevel::Avx2:
            return asciiRun2(s, n, out, lower, collapse, previousSpace);
        case SimdLevel::Scalar:
            break;
    }
#endif
    return asciiRunScalar(s, n, out, lower, collapse, previousSpace);
}

}  // namespace neardup::simd
