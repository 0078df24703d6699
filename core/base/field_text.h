// Field paths and id checks shared by the JSON Lines reader and the Parquet reader, so that
// `--text-field a.b` and an id's validity mean the same in both formats.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace neardup {

// A dotted field path ("meta.content") as its parts; a name without dots is one part.
inline std::vector<std::string> splitFieldPath(const std::string& dotted) {
    std::vector<std::string> parts;
    std::size_t begin = 0;
    for (;;) {
        const std::size_t dot = dotted.find('.', begin);
        parts.push_back(dotted.substr(begin, dot - begin));
        if (dot == std::string::npos) break;
        begin = dot + 1;
    }
    return parts;
}

// The first control character (below 0x20, or DEL) in `s`, or -1: an id is one line of an id
// list, so such a character makes it invalid.
inline int firstControlCharacter(std::string_view s) {
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7F) return c;
    }
    return -1;
}

}  // namespace neardup
