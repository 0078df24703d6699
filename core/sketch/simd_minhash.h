// Internal to the CPU signature code: the shingle fingerprint roll shared by the classic and the
// one-permutation sketches, and the classic permutation-family kernels for each SIMD level.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hash_math.h"
#include "signatures.h"

namespace neardup::simd {

// Number of shingles of a stream: every window of k, or one shingle for a short non-empty one.
inline std::size_t shingleCount(std::size_t count, std::size_t k) {
    if (count == 0) return 0;
    return count < k ? 1 : count - k + 1;
}

// Rolls the permutation family's polynomial fingerprint (mod p = 2^61 - 1) along a symbol
// stream. fingerprintStep computes ((poly - out * base^(k-1)) * base + in) mod p with two
// multiplies on the loop-carried chain; here it is poly * base + (in - out * base^k), whose
// second term does not depend on poly and comes from a table for small symbols, and the chain
// value is kept only partly reduced (congruent to the polynomial, below 2^63) until finish()
// makes it canonical. Same residues, so exactly the fingerprints of fingerprintFinish.
class FingerprintRoll {
  public:
    explicit FingerprintRoll(const HashConstants& c)
        : base_(c.fpBase),
          baseK_(hashmath::mulmod61(c.fpTop, c.fpBase)),
          salt_(c.fpSalt),
          negDrop_(c.fpNegDrop.data()),
          dropTable_(c.fpNegDrop.size() >= HashConstants::kDropTableSize
                         ? HashConstants::kDropTableSize
                         : 0),
          k_(static_cast<std::size_t>(c.ngram)) {}

    std::size_t window() const { return k_; }

    // Polynomial of the first min(count, k) symbols.
    uint64_t start(const uint32_t* symbols, std::size_t count) const {
        uint64_t poly = 0;
        const std::size_t width = count < k_ ? count : k_;
        for (std::size_t j = 0; j < width; ++j)
            poly = hashmath::fingerprintAppend(poly, base_, symbols[j]);
        return poly;
    }
    // Polynomial of the window after dropping `out` and appending `in`; v < 2^63 stays so.
    uint64_t roll(uint64_t v, uint32_t out, uint32_t in) const {
        const uint64_t drop =
            out < dropTable_ ? negDrop_[out] : hashmath::kPrime61 - hashmath::mulmod61(out, baseK_);
        return mulLazy(v) + (in + drop);  // < 2^61 + 8 + 2^32 + 2^61 < 2^63
    }
    uint64_t finish(uint64_t v) const {
        using hashmath::kPrime61;
        const uint64_t t = (v & kPrime61) + (v >> 61);  // <= p + 3
        return hashmath::fingerprintFinish(t >= kPrime61 ? t - kPrime61 : t, salt_);
    }

    // Fingerprints of every shingle, into fp[0 .. shingleCount).
    void all(const uint32_t* symbols, std::size_t count, uint64_t* fp) const {
        uint64_t poly = start(symbols, count);
        fp[0] = finish(poly);
        for (std::size_t j = k_; j < count; ++j) {
            poly = roll(poly, symbols[j - k_], symbols[j]);
            fp[j - k_ + 1] = finish(poly);
        }
    }

  private:
    // v * base, congruent mod p and below 2^61 + 8, for v < 2^63: the product is below 2^124,
    // so its high word shifted by 3 still fits.
    uint64_t mulLazy(uint64_t v) const {
        __extension__ typedef unsigned __int128 u128;
        const u128 product = static_cast<u128>(v) * base_;
        const auto lo = static_cast<uint64_t>(product);
        const auto hi = static_cast<uint64_t>(product >> 64);
        const uint64_t r = (lo & hashmath::kPrime61) + ((lo >> 61) | (hi << 3));
        return (r & hashmath::kPrime61) + (r >> 61);
    }

    uint64_t base_, baseK_, salt_;
    const uint64_t* negDrop_;
    uint32_t dropTable_;
    std::size_t k_;
};

// Classic sketch, permutation family: out[i] = min over shingles of permute(f, permA[i],
// permB[i]) for a non-empty stream (count > 0). Picks the kernel for activeSimdLevel().
void classicPermute(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                    uint32_t* out, std::vector<uint64_t>& scratch);

}  // namespace neardup::simd
