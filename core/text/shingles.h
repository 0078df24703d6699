// Normalization, symbol streams and exact shingle sets.
//
// A document becomes a stream of 31-bit symbols: Unicode code points for character shingles, or
// one hash per word for word shingles. Both hash families and the exact Jaccard used to verify
// and to evaluate work on the same symbol stream, so they always agree on what a shingle is.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "params.h"

namespace neardup {

// Turns UTF-8 text into normalized code points. Holds its buffers, so one Normalizer per thread
// costs no allocation per document once warmed up. Invalid UTF-8 becomes U+FFFD.
class Normalizer {
  public:
    explicit Normalizer(NormalizeOptions options) : options_(options) {}
    // Returns the normalized code points; valid until the next call.
    const std::vector<uint32_t>& run(std::string_view utf8);
    const NormalizeOptions& options() const { return options_; }

  private:
    NormalizeOptions options_;
    std::vector<uint32_t> decoded_;
    std::vector<uint32_t> work_;
    std::vector<uint32_t> out_;
};

// Symbols for `kind`: code points unchanged (all < 2^31 - 1), or one seed-independent hash per
// whitespace-separated word reduced below 2^31 - 1. Appends to `symbols` after clearing it.
void toSymbols(ShingleKind kind, const std::vector<uint32_t>& codepoints,
               std::vector<uint32_t>& symbols);

// Exact shingle set: sorted, unique 64-bit fingerprints of every window of k symbols; a
// non-empty stream shorter than k is one shingle; an empty stream is the empty set.
void shingleSet(const uint32_t* symbols, std::size_t count, int k, std::vector<uint64_t>& out);

// |A ∩ B| / |A ∪ B| of two sorted unique sets; two empty sets have Jaccard 0 (never duplicates).
double exactJaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b);

}  // namespace neardup
