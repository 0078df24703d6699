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
// How: each block of documents (one per thread) writes its eligible entries, in document
// order, into the second half of `entries` (which keeps twice the band's entries as capacity
// from band to band: the passes' other buffer). Three stable radix passes of 11 bits over the
// keys' top 33 bits then order them by key, documents staying in order within a key; entries
// whose keys agree on those bits but not below them (rare on hashed keys) are sorted among
// themselves at the end. Each pass counts per block, then scatters per block; what is left is
// mostly the strided read of the band's keys out of the document-major key matrix
// (docs/performance.md). Bands too small for it to pay are sorted whole.
// Runs on the threads of the caller's task arena.
void gatherSortedBandEntries(const uint64_t* keys, std::size_t documents, int bands, int band,
                             const std::vector<uint8_t>& eligible,
                             std::vector<BucketEntry>& entries);

// The sort of gatherSortedBandEntries on its own, for entries gathered elsewhere (the spilled
// comparison's, read back from its spill files): puts the `n` entries at `entries` in (key,
// document) order, as a comparison sort would, with `buffer` (room for n) as the passes' other
// buffer. `keyBits` is at least as wide as the widest key (their OR, or that of a larger set):
// its width is what the passes sort. Both buffers are overwritten; returns the one that holds
// the sorted entries. The passes are stable, so entries given in document order need no more
// sorting within a key (any other order is sorted within its keys afterwards). Fewer than 4 Ki
// entries are sorted in place by a comparison sort. Runs on the threads of the caller's task
// arena.
BucketEntry* radixSortBandEntries(BucketEntry* entries, BucketEntry* buffer, std::size_t n,
                                  uint64_t keyBits);

}  // namespace neardup
