// Word-level differences between two texts, for the side-by-side comparison of a duplicate pair:
// the texts are cut into words (maximal runs of non-whitespace bytes) and the shortest edit
// script between the two word sequences is found with Myers' O(ND) algorithm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "params.h"

namespace neardup {

struct WordToken {
    uint32_t begin = 0;   // byte offset in the text
    uint32_t length = 0;  // bytes
};

// Words of `text` in order; whitespace is ASCII space, tab, CR, LF, VT and FF.
std::vector<WordToken> tokenizeWords(std::string_view text);

enum class DiffKind : uint8_t { Equal, Delete, Insert, Replace };

// A run of tokens: a[aBegin, aEnd) against b[bBegin, bEnd). Equal runs have the same length on
// both sides; Delete runs are empty in b, Insert runs empty in a; Replace runs (only produced
// when the edit budget is exhausted) are the unaligned middle of both texts.
struct DiffRun {
    DiffKind kind = DiffKind::Equal;
    std::size_t aBegin = 0, aEnd = 0;
    std::size_t bBegin = 0, bEnd = 0;
};

struct WordDiff {
    std::vector<WordToken> a, b;
    std::vector<DiffRun> runs;  // cover both token sequences in order, adjacent runs differ
    std::size_t equalTokens = 0;
    // True when the texts differ by more than the edit budget: the unaligned middle is then one
    // Replace run instead of a minimal script.
    bool truncated = false;
};

// Words in a that are not in b are deleted, words in b not in a inserted. `maxEdits` bounds
// the work: O((N + M) * maxEdits) time and about 2 * maxEdits^2 bytes; near-duplicates need
// few edits.
WordDiff diffWords(std::string_view a, std::string_view b, std::size_t maxEdits = 2000);
// The same, with words compared as the matcher sees them: each word normalized by `normalize`
// (NFC, lowercase as the run's parameters say; whitespace never counts, words are cut at it),
// so that a copy that changed only case or spacing shows as equal. Tokens keep the offsets of
// the original texts.
WordDiff diffWords(std::string_view a, std::string_view b, const NormalizeOptions& normalize,
                   std::size_t maxEdits = 2000);

}  // namespace neardup
