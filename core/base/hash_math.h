// Hash arithmetic shared by the CPU backend and the CUDA kernels.
//
// Everything in this header is a pure function of its arguments so that the CPU test suite
// checks exactly what the GPU computes. It must stay includable from host C++20 code and from
// nvcc (C++17), and must not include anything beyond <cstdint>.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define NEARDUP_HD __host__ __device__ __forceinline__
#else
#define NEARDUP_HD inline
#endif

namespace neardup::hashmath {

// Mersenne prime 2^31 - 1: products of two residues fit in 62 bits and reduction is a shift and
// an add, so the rolling update costs two multiplies per hash function and needs no division.
inline constexpr uint32_t kPrime31 = 0x7FFFFFFFu;
// Mersenne prime 2^61 - 1 for the 64-bit shingle fingerprints of the permutation family.
inline constexpr uint64_t kPrime61 = (uint64_t{1} << 61) - 1;

// Signature value of an empty document: larger than any value a hash function produces, so an
// empty document never agrees with a non-empty one (and is excluded from LSH anyway).
inline constexpr uint32_t kEmptySlot = 0xFFFFFFFFu;

NEARDUP_HD uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Finalizer of splitmix64: a bijective 64-bit mixer.
NEARDUP_HD uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

NEARDUP_HD uint32_t reduce31(uint64_t x) {
    // x < 2^62: fold twice, then one conditional subtract.
    x = (x & kPrime31) + (x >> 31);
    x = (x & kPrime31) + (x >> 31);
    return static_cast<uint32_t>(x >= kPrime31 ? x - kPrime31 : x);
}

NEARDUP_HD uint32_t mulmod31(uint32_t a, uint32_t b) {
    return reduce31(static_cast<uint64_t>(a) * b);
}

NEARDUP_HD uint64_t mulmod61(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
    const uint64_t lo = a * b;
    const uint64_t hi = __umul64hi(a, b);
#else
    __extension__ typedef unsigned __int128 u128;
    const u128 p = static_cast<u128>(a) * b;
    const uint64_t lo = static_cast<uint64_t>(p);
    const uint64_t hi = static_cast<uint64_t>(p >> 64);
#endif
    // p = hi * 2^64 + lo; 2^61 = 1 (mod p61) so 2^64 = 8.
    uint64_t r = (lo & kPrime61) + ((lo >> 61) | (hi << 3));
    r = (r & kPrime61) + (r >> 61);
    return r >= kPrime61 ? r - kPrime61 : r;
}

NEARDUP_HD uint64_t addmod61(uint64_t a, uint64_t b) {
    uint64_t r = a + b;
    return r >= kPrime61 ? r - kPrime61 : r;
}

NEARDUP_HD uint64_t submod61(uint64_t a, uint64_t b) {
    return a >= b ? a - b : a + kPrime61 - b;
}

// base^exp by squaring, in the field whose product is `MulMod` (mulmod31 or mulmod61).
template <typename T, T (*MulMod)(T, T)>
NEARDUP_HD T powmodBy(T base, uint32_t exp) {
    T result = 1;
    while (exp) {
        if (exp & 1u) result = MulMod(result, base);
        base = MulMod(base, base);
        exp >>= 1;
    }
    return result;
}

NEARDUP_HD uint32_t powmod31(uint32_t base, uint32_t exp) {
    return powmodBy<uint32_t, mulmod31>(base, exp);
}

NEARDUP_HD uint64_t powmod61(uint64_t base, uint32_t exp) {
    return powmodBy<uint64_t, mulmod61>(base, exp);
}

// ---- Rolling family (the papers' Rabin-Karp scheme, corrected) ---------------------------------
// Hash function i sees shingle s = (c_0 .. c_{k-1}) as the polynomial
//     P_i(s) = sum_j c_j * base_i^(k-1-j)  mod p31
// followed by an affine bijection of Z_p31, h_i(s) = (mul_i * P_i(s) + add_i) mod p31, which
// makes the per-function minimum behave like a random permutation's. Symbols are Unicode code
// points (<= 0x10FFFF < p31) or word hashes reduced below p31.

// One rolling step: drop `out` (the symbol leaving the window, weighted by base^(k-1) = `top`),
// shift and add `in`.
NEARDUP_HD uint32_t rollingStep(uint32_t hash, uint32_t base, uint32_t top, uint32_t out,
                                uint32_t in) {
    const uint32_t dropped = hash + kPrime31 - mulmod31(out, top);  // < 2^32, no overflow
    return reduce31(static_cast<uint64_t>(dropped) * base + in);
}

NEARDUP_HD uint32_t rollingAppend(uint32_t hash, uint32_t base, uint32_t in) {
    return reduce31(static_cast<uint64_t>(hash) * base + in);
}

NEARDUP_HD uint32_t rollingFinish(uint32_t poly, uint32_t mul, uint32_t add) {
    return reduce31(static_cast<uint64_t>(poly) * mul + add);
}

// ---- Permutation family (hash once, permute H times; datasketch / rensa style) ----------------
// Each shingle gets one 64-bit fingerprint: its polynomial mod p61 (rolled like above, with a
// single seed-derived base) passed through mix64. Hash function i is the multiply-shift
// h_i(x) = (a_i * x + b_i) >> 32 with odd 64-bit a_i, a 2-universal family on 64-bit keys.

NEARDUP_HD uint64_t fingerprintStep(uint64_t poly, uint64_t base, uint64_t top, uint32_t out,
                                    uint32_t in) {
    return addmod61(mulmod61(submod61(poly, mulmod61(out, top)), base), in);
}

NEARDUP_HD uint64_t fingerprintAppend(uint64_t poly, uint64_t base, uint32_t in) {
    return addmod61(mulmod61(poly, base), in);
}

NEARDUP_HD uint64_t fingerprintFinish(uint64_t poly, uint64_t salt) {
    return mix64(poly ^ salt);
}

NEARDUP_HD uint32_t permute(uint64_t fingerprint, uint64_t a, uint64_t b) {
    return static_cast<uint32_t>((a * fingerprint + b) >> 32);
}

// ---- Band keys ----------------------------------------------------------------------------------
// `hash` scheme: a 64-bit hash of the band's r values, salted by the band index so that equal
// values in different bands do not share a key. `sum` scheme (FED/SEDD): the plain sum.

NEARDUP_HD uint64_t bandKeyHash(const uint32_t* values, int rows, uint32_t band) {
    uint64_t h = 0x243F6A8885A308D3ull ^ (static_cast<uint64_t>(band) * 0x9E3779B97F4A7C15ull);
    for (int i = 0; i < rows; ++i)
        h = mix64(h ^ values[i]) + 0x9E3779B97F4A7C15ull;
    return mix64(h);
}

NEARDUP_HD uint64_t bandKeySum(const uint32_t* values, int rows) {
    uint64_t s = 0;
    for (int i = 0; i < rows; ++i)
        s += values[i];
    return s;
}

// Signature digest: identical signatures are collapsed before comparison by this 64-bit value
// (and then confirmed value by value, so a digest collision costs time, never correctness).
NEARDUP_HD uint64_t signatureDigest(const uint32_t* values, int count) {
    uint64_t h = 0x13198A2E03707344ull;
    for (int i = 0; i < count; ++i)
        h = mix64(h ^ values[i]) + static_cast<uint64_t>(i);
    return h;
}

}  // namespace neardup::hashmath
