// One band's (key, document) entries in (key, document) order, gathered from the band keys
// without a comparison sort of the whole band.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lsh_buckets.h"

namespace neardup {

// Fills `entries` with (keys[i * bands + band], i) for every document i with eligible[i] != 0,
// sorted by key, then document: exactly what sorting the gathered entries would give, for any
// thread count.
//
// How: the documents are split into one block per thread. Each block counts its keys by their
// top 16 bits; a prefix over (bin, block) gives every block its place in every bin, so the
// blocks write their entries straight into their bins, in document order. Only the bins (a
// handful of entries each, on hashed keys) are then sorted. A full sort of the band costs
// about 75 ns an entry on one core (the largest part of the buckets phase); this costs two
// strided reads of the keys and a few ns an entry. Bands too small for it to pay are sorted
// whole. Runs on the threads of the caller's task arena.
void gatherSortedBandEntries(const uint64_t* keys, std::size_t documents, int bands, int band,
                             const std::vector<uint8_t>& eligible,
                             std::vector<BucketEntry>& entries);

}  // namespace neardup
