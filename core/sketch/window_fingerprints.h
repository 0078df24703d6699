// Internal to the CPU shingle code: the permutation family's shingle fingerprints computed for
// many windows at once with SIMD, exactly the values FingerprintRoll rolls one after another.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace neardup::simd {

// Fingerprint of the window starting at symbol s is mix64(P(s) ^ salt) with
//     P(s) = sum_j symbols[s + j] * base^(k-1-j)  mod 2^61 - 1.
// The roll computes P(s) from P(s - 1): a chain of dependent 64x64->128 multiplies, one window
// at a time. Here each window's P(s) is computed on its own, 8 (AVX-512) or 4 (AVX2) windows per
// vector: with each power split into 32-bit halves, every product of a symbol below 2^24 with a
// half fits a 32x32->64 lane multiply and the k terms sum without overflow for k <= 16, so one
// reduction per window gives the same residue. Streams with a larger symbol (word hashes) or
// longer windows, and machines without AVX2, take the roll.
class WindowFingerprints {
  public:
    WindowFingerprints(uint64_t base, uint64_t salt, int k);

    std::size_t window() const { return k_; }

    // Fingerprints of every full window of symbols[0 .. count) into out[0 .. count - k + 1);
    // count must be at least k. Returns the number of windows.
    std::size_t compute(const uint32_t* symbols, std::size_t count, uint64_t* out) const;

    // Whether compute() has vector kernels at the active SIMD level (simd.h); without them it
    // rolls, and a caller that interleaves two rolls of its own does better.
    static bool vectorized();

    static constexpr std::size_t kMaxWindow = 16;
    static constexpr uint32_t kSymbolLimit = uint32_t{1} << 24;

  private:
    std::size_t scalar(const uint32_t* symbols, std::size_t count, uint64_t* out) const;

    uint64_t base_, salt_;
    std::size_t k_;
    // base^(k-1-j) mod p, split: low 32 bits and high 29 bits, one per window position j.
    std::array<uint64_t, kMaxWindow> low_{}, high_{};
};

}  // namespace neardup::simd
