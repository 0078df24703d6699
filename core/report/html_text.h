// Small pieces of HTML for the run report (run_report.h): escaping every string that comes from
// the data, numbers as people read them, and a duplicate pair's texts with their word
// differences marked. Plain functions over std::string; no templating engine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "params.h"

namespace neardup::report {

// `text` with &, <, >, " and ' replaced by entities: safe inside element content and inside a
// quoted attribute value. Bytes that are not valid UTF-8 become U+FFFD, so that a broken input
// line cannot swallow the markup after it.
std::string escapeHtml(std::string_view text);

// 1234567 -> "1,234,567".
std::string groupedNumber(uint64_t n);

// Seconds with a precision that suits their size: "0.004 s", "1.25 s", "73.4 s".
std::string secondsText(double seconds);

// Bytes in binary units: "812 B", "4.2 KiB", "1.31 GiB".
std::string byteSizeText(uint64_t bytes);

// The longest prefix of `text` of at most `maxBytes` bytes that ends on a UTF-8 character
// boundary.
std::string_view utf8Prefix(std::string_view text, std::size_t maxBytes);

// Both texts of a pair as HTML, each word that the other text lacks wrapped in <del> (left)
// or <ins> (right); whitespace is kept as it is. Words are compared as the matcher saw them,
// normalized by `normalize` (core/text/word_diff.h): a copy that changed only case or spacing
// shows no marks, as in the workbench's comparison.
struct MarkedPair {
    std::string left, right;
    std::size_t changedWords = 0;  // words marked on either side
};
MarkedPair markWordDifferences(std::string_view left, std::string_view right,
                               const NormalizeOptions& normalize = {});

}  // namespace neardup::report
