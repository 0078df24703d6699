// Field paths and id checks shared by the JSON Lines reader and the Parquet reader, so that
// `--text-field a.b` and an id's validity mean the same in both formats.
#pragma once

#include <cstdint>
#include <cstring>
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

// The first character of `s` that ends a line for some reader of an id list, or -1: a control
// character (below 0x20, or DEL: "\n", "\r", "\v" and "\f" among them) or one of the line
// breaks beyond ASCII that Python's str.splitlines, JavaScript and editors also split at,
// NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029). Returns its code point.
inline int firstIdBreak(std::string_view s) {
    const std::size_t n = s.size();
    // Printable ASCII, the usual id's every byte, is passed over eight bytes at a time: a word
    // with no byte below 0x20, none equal to 0x7F and none from 0x80 up cannot hold one.
    constexpr uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = 0;
        std::memcpy(&w, s.data() + i, 8);
        const uint64_t del = w ^ (kOnes * 0x7F);
        if ((((w - kOnes * 0x20) & ~w) | ((del - kOnes) & ~del) | w) & kHigh) break;
    }
    for (; i < n; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (static_cast<unsigned char>(c - 0x20) < 0x5F) continue;
        if (c < 0x20 || c == 0x7F) return c;
        if (c == 0xC2 && i + 1 < n && static_cast<unsigned char>(s[i + 1]) == 0x85) return 0x85;
        if (c == 0xE2 && i + 2 < n && static_cast<unsigned char>(s[i + 1]) == 0x80) {
            const auto last = static_cast<unsigned char>(s[i + 2]);
            if (last == 0xA8) return 0x2028;
            if (last == 0xA9) return 0x2029;
        }
    }
    return -1;
}

// firstIdBreak's character as an invalid_id detail says it: "the control character 0x0a",
// "the line break U+2028".
inline std::string describeIdBreak(int codePoint) {
    if (codePoint < 0x80) {
        static constexpr char kHex[] = "0123456789abcdef";
        std::string s = "the control character 0x";
        s += kHex[(codePoint >> 4) & 0xF];
        s += kHex[codePoint & 0xF];
        return s;
    }
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string s = "the line break U+";
    for (int shift = 12; shift >= 0; shift -= 4)
        s += kHex[(codePoint >> shift) & 0xF];
    return s;
}

// `name` (a file's path, for default ids "<file>:<line>") with every character that
// firstIdBreak finds replaced by '?', so that a default id is one line of an id list.
inline std::string idSafeName(std::string_view name) {
    std::string safe;
    safe.reserve(name.size());
    for (std::size_t i = 0; i < name.size();) {
        // The width of a break starting at i: no shorter prefix breaks, so one found in these
        // bytes starts at i.
        std::size_t width = 0;
        if (firstIdBreak(name.substr(i, 1)) >= 0) {
            width = 1;
        } else if (firstIdBreak(name.substr(i, 2)) == 0x85) {
            width = 2;
        } else if (firstIdBreak(name.substr(i, 3)) >= 0x2028) {
            width = 3;
        }
        if (width == 0) {
            safe += name[i++];
        } else {
            safe += '?';
            i += width;
        }
    }
    return safe;
}

}  // namespace neardup
