// Hand-written JSON output: string literals and numbers, shared by every JSON writer in core.
#pragma once

#include <charconv>
#include <string>
#include <string_view>

namespace neardup::json {

// Appends s as a JSON string literal. s must be UTF-8; bytes >= 0x80 pass through unchanged.
inline void appendString(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (c < 0x20) {
                    out += "\\u00";
                    out += kHex[c >> 4];
                    out += kHex[c & 0xF];
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

inline std::string quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    appendString(out, s);
    return out;
}

// Shortest representation that reads back as the same double.
inline void appendNumber(std::string& out, double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

// Shortest representation that reads back as the same float.
inline void appendNumber(std::string& out, float v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

}  // namespace neardup::json
