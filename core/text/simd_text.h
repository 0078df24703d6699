// Internal to the normalizer: the ASCII fast path of decode + lowercase + whitespace collapse,
// in SIMD where the CPU has it (simd.h picks the level at run time).
#pragma once

#include <cstddef>
#include <cstdint>

namespace neardup::simd {

struct AsciiRun {
    std::size_t consumed = 0;  // input bytes
    std::size_t written = 0;   // code points
};

// Extra code points `out` must have room for beyond the input length: the vector kernels store
// whole registers and let the next store overwrite the unused tail.
inline constexpr std::size_t kAsciiRunSlack = 64;

// Normalizes the ASCII bytes at the start of s[0 .. n): each becomes its code point, lowercased
// when `lower`; with `collapse`, whitespace (tab..CR, space) becomes one space unless the
// previous character was whitespace, tracked across calls by `previousSpace`. Stops before the
// first byte >= 0x80. `out` has room for n + kAsciiRunSlack code points.
AsciiRun asciiRun(const uint8_t* s, std::size_t n, uint32_t* out, bool lower, bool collapse,
                  bool& previousSpace);

}  // namespace neardup::simd
