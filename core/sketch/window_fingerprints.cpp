#include "window_fingerprints.h"

#include <algorithm>

#include "hash_math.h"
#include "simd.h"
#include "simd_minhash.h"

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics initialize their unused pass-through operand from itself and
// warn about it inside the header (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define NEARDUP_WINDOW_KERNELS 1
#define NEARDUP_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
#define NEARDUP_AVX2 __attribute__((target("avx2,bmi2")))
#endif

namespace neardup::simd {

using namespace hashmath;

namespace {

constexpr uint64_t kMix1 = 0xBF58476D1CE4E5B9ull;  // mix64's multipliers
constexpr uint64_t kMix2 = 0x94D049BB133111EBull;
constexpr uint64_t kLow29 = (uint64_t{1} << 29) - 1;

#if defined(NEARDUP_WINDOW_KERNELS)

// Sum of the k products for 8 windows, reduced to the canonical residue, then mix64(. ^ salt).
NEARDUP_AVX512 std::size_t kernel512(const uint32_t* symbols, std::size_t windows, std::size_t k,
                                     const uint64_t* low, const uint64_t* high, uint64_t salt,
                                     uint64_t* out) {
    const __m512i prime = _mm512_set1_epi64(static_cast<long long>(kPrime61));
    const __m512i low29 = _mm512_set1_epi64(static_cast<long long>(kLow29));
    const __m512i saltV = _mm512_set1_epi64(static_cast<long long>(salt));
    const __m512i mix1 = _mm512_set1_epi64(static_cast<long long>(kMix1));
    const __m512i mix2 = _mm512_set1_epi64(static_cast<long long>(kMix2));
    __m512i lowV[WindowFingerprints::kMaxWindow], highV[WindowFingerprints::kMaxWindow];
    for (std::size_t j = 0; j < k; ++j) {
        lowV[j] = _mm512_set1_epi64(static_cast<long long>(low[j]));
        highV[j] = _mm512_set1_epi64(static_cast<long long>(high[j]));
    }
    std::size_t s = 0;
    for (; s + 8 <= windows; s += 8) {
        __m512i a = _mm512_setzero_si512(), b = _mm512_setzero_si512();
        for (std::size_t j = 0; j < k; ++j) {
            const __m512i c = _mm512_cvtepu32_epi64(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(symbols + s + j)));
            a = _mm512_add_epi64(a, _mm512_mul_epu32(c, lowV[j]));
            b = _mm512_add_epi64(b, _mm512_mul_epu32(c, highV[j]));
        }
        // a + b * 2^32 with b * 2^32 = (b >> 29) * 2^61 + (b & (2^29 - 1)) * 2^32 and 2^61 = 1.
        __m512i r = _mm512_add_epi64(
            a, _mm512_add_epi64(_mm512_srli_epi64(b, 29),
                                _mm512_slli_epi64(_mm512_and_si512(b, low29), 32)));
        r = _mm512_add_epi64(_mm512_and_si512(r, prime), _mm512_srli_epi64(r, 61));  // <= p + 1
        r = _mm512_min_epu64(r, _mm512_sub_epi64(r, prime));  // t - p wraps above t when t < p
        __m512i z = _mm512_xor_si512(r, saltV);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), mix1);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), mix2);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
        _mm512_storeu_si512(out + s, z);
    }
    return s;
}

// z * m mod 2^64 from 32x32->64 multiplies: zL*mL + ((zH*mL + zL*mH) << 32).
NEARDUP_AVX2 inline __m256i mullo64(__m256i z, __m256i mLow, __m256i mHigh) {
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(z, 32), mLow),
                                           _mm256_mul_epu32(z, mHigh));
    return _mm256_add_epi64(_mm256_mul_epu32(z, mLow), _mm256_slli_epi64(cross, 32));
}

NEARDUP_AVX2 std::size_t kernel2(const uint32_t* symbols, std::size_t windows, std::size_t k,
                                 const uint64_t* low, const uint64_t* high, uint64_t salt,
                                 uint64_t* out) {
    const __m256i prime = _mm256_set1_epi64x(static_cast<long long>(kPrime61));
    const __m256i low29 = _mm256_set1_epi64x(static_cast<long long>(kLow29));
    const __m256i saltV = _mm256_set1_epi64x(static_cast<long long>(salt));
    const __m256i mix1L = _mm256_set1_epi64x(static_cast<long long>(kMix1 & 0xFFFFFFFFu));
    const __m256i mix1H = _mm256_set1_epi64x(static_cast<long long>(kMix1 >> 32));
    const __m256i mix2L = _mm256_set1_epi64x(static_cast<long long>(kMix2 & 0xFFFFFFFFu));
    const __m256i mix2H = _mm256_set1_epi64x(static_cast<long long>(kMix2 >> 32));
    __m256i lowV[WindowFingerprints::kMaxWindow], highV[WindowFingerprints::kMaxWindow];
    for (std::size_t j = 0; j < k; ++j) {
        lowV[j] = _mm256_set1_epi64x(static_cast<long long>(low[j]));
        highV[j] = _mm256_set1_epi64x(static_cast<long long>(high[j]));
    }
    std::size_t s = 0;
    for (; s + 4 <= windows; s += 4) {
        __m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
        for (std::size_t j = 0; j < k; ++j) {
            const __m256i c = _mm256_cvtepu32_epi64(
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(symbols + s + j)));
            a = _mm256_add_epi64(a, _mm256_mul_epu32(c, lowV[j]));
            b = _mm256_add_epi64(b, _mm256_mul_epu32(c, highV[j]));
        }
        __m256i r = _mm256_add_epi64(
            a, _mm256_add_epi64(_mm256_srli_epi64(b, 29),
                                _mm256_slli_epi64(_mm256_and_si256(b, low29), 32)));
        r = _mm256_add_epi64(_mm256_and_si256(r, prime), _mm256_srli_epi64(r, 61));  // <= p + 1
        // r >= p exactly when r - p does not wrap: r - p as signed is >= 0 (r < 2^62).
        const __m256i reduced = _mm256_sub_epi64(r, prime);
        const __m256i below = _mm256_cmpgt_epi64(_mm256_setzero_si256(), reduced);
        r = _mm256_blendv_epi8(reduced, r, below);
        __m256i z = _mm256_xor_si256(r, saltV);
        z = mullo64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), mix1L, mix1H);
        z = mullo64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), mix2L, mix2H);
        z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + s), z);
    }
    return s;
}

#endif  // NEARDUP_WINDOW_KERNELS

bool symbolsFit(const uint32_t* symbols, std::size_t count) {
    uint32_t top = 0;
    for (std::size_t i = 0; i < count; ++i)
        top |= symbols[i];
    return top < WindowFingerprints::kSymbolLimit;
}

}  // namespace

WindowFingerprints::WindowFingerprints(uint64_t base, uint64_t salt, int k)
    : base_(base), salt_(salt), k_(static_cast<std::size_t>(std::max(k, 1))) {
    if (k_ > kMaxWindow) return;
    uint64_t power = 1;
    for (std::size_t j = k_; j-- > 0;) {
        low_[j] = power & 0xFFFFFFFFu;
        high_[j] = power >> 32;
        power = mulmod61(power, base_);
    }
}

std::size_t WindowFingerprints::scalar(const uint32_t* symbols, std::size_t count,
                                       uint64_t* out) const {
    HashConstants c;
    c.ngram = static_cast<int>(k_);
    c.fpBase = base_;
    c.fpTop = powmod61(base_, static_cast<uint32_t>(k_ - 1));
    c.fpSalt = salt_;
    const FingerprintRoll roll(c);
    roll.all(symbols, count, out);
    return count - k_ + 1;
}

bool WindowFingerprints::vectorized() {
#if defined(NEARDUP_WINDOW_KERNELS)
    return activeSimdLevel() != SimdLevel::Scalar;
#else
    return false;
#endif
}

std::size_t WindowFingerprints::compute(const uint32_t* symbols, std::size_t count,
                                        uint64_t* out) const {
    const std::size_t windows = count - k_ + 1;
#if defined(NEARDUP_WINDOW_KERNELS)
    const SimdLevel level = activeSimdLevel();
    if (level == SimdLevel::Scalar || k_ > kMaxWindow || !symbolsFit(symbols, count))
        return scalar(symbols, count, out);
    const std::size_t done =
        level == SimdLevel::Avx512
            ? kernel512(symbols, windows, k_, low_.data(), high_.data(), salt_, out)
            : kernel2(symbols, windows, k_, low_.data(), high_.data(), salt_, out);
    // The last few windows (fewer than a vector) directly.
    for (std::size_t s = done; s < windows; ++s) {
        uint64_t poly = 0;
        for (std::size_t j = 0; j < k_; ++j)
            poly = fingerprintAppend(poly, base_, symbols[s + j]);
        out[s] = fingerprintFinish(poly, salt_);
    }
    return windows;
#else
    return scalar(symbols, count, out);
#endif
}

}  // namespace neardup::simd
