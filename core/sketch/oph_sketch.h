// One-permutation hashing (Li, Owen, Zhang 2012) with optimal densification (Shrivastava 2017).
//
// Each shingle is hashed once (the permutation family's 64-bit fingerprint): its high half picks
// one of H bins, its low half is the value, and each bin keeps its minimum. That is one hash
// per shingle instead of H. A document with fewer shingles than bins leaves bins empty; each
// empty bin then copies the value of a non-empty bin chosen by a seeded probe sequence that
// depends only on the bin index, so two documents borrow from the same place and the fraction
// of equal slots still estimates the Jaccard similarity. The result is H uint32 values per
// document, used by LSH and comparison exactly like a classic signature.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hash_math.h"
#include "signatures.h"

namespace neardup {

// Bin of a shingle fingerprint: multiply-shift range reduction of its high half.
inline uint32_t ophBin(uint64_t fingerprint, uint32_t bins) {
    return static_cast<uint32_t>(((fingerprint >> 32) * bins) >> 32);
}

// Value of a shingle fingerprint: its low half, kept below kEmptySlot so that an empty bin is
// never mistaken for a filled one.
inline uint32_t ophValue(uint64_t fingerprint) {
    const auto v = static_cast<uint32_t>(fingerprint);
    return v < hashmath::kEmptySlot ? v : hashmath::kEmptySlot - 1;
}

// Reference: every window's fingerprint computed directly, then densified.
void ophSketchDirect(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                     uint32_t* out);

// Fast path (fingerprints of a block of windows side by side, window_fingerprints.h, then each
// into its bin); exactly ophSketchDirect's values.
void ophSketch(const uint32_t* symbols, std::size_t count, const HashConstants& c, uint32_t* out,
               std::vector<uint64_t>& scratch);

// Fills every empty bin (kEmptySlot) of bins[0 .. hashes) from the bins that were non-empty
// before the call; leaves an all-empty sketch (an empty document) as it is. Returns the number
// of bins filled. Probe j of bin i goes to ophBin(mix64(salt ^ (i << 32 | j)), hashes); after
// kOphProbes misses it takes the next non-empty bin after the last probe, cyclically, so tiny
// documents with large H stay cheap.
std::size_t ophDensify(uint32_t* bins, int hashes, uint64_t salt, std::vector<uint64_t>& scratch);
inline constexpr uint32_t kOphProbes = 32;

}  // namespace neardup
