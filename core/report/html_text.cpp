// Escaping, number formatting and word-difference marking for the run report.
#include "html_text.h"

#include <fmt/format.h>

#include <vector>

#include "word_diff.h"

namespace neardup::report {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    uint32_t min = 0;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + n > text.size()) return 0;
    uint32_t cp = c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not valid UTF-8.
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

void appendEscaped(std::string& out, std::string_view text) {
    out.reserve(out.size() + text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8SequenceLength(text, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
            ++i;
            continue;
        }
        if (n == 1) {
            switch (text[i]) {
                case '&':
                    out += "&amp;";
                    break;
                case '<':
                    out += "&lt;";
                    break;
                case '>':
                    out += "&gt;";
                    break;
                case '"':
                    out += "&quot;";
                    break;
                case '\'':
                    out += "&#39;";
                    break;
                case '\0':
                    out += "\xEF\xBF\xBD";
                    break;  // NUL is not allowed in HTML text
                default:
                    out += text[i];
            }
        } else {
            out.append(text.substr(i, n));
        }
        i += n;
    }
}

// Appends text[from, to) escaped, and the words of `tokens` in [wordBegin, wordEnd) wrapped in
// `tag` when `marked`.
void appendWords(std::string& out, std::string_view text, const std::vector<WordToken>& tokens,
                 std::size_t wordBegin, std::size_t wordEnd, bool marked, const char* tag,
                 std::size_t& cursor) {
    for (std::size_t w = wordBegin; w < wordEnd; ++w) {
        const WordToken& t = tokens[w];
        appendEscaped(out, text.substr(cursor, t.begin - cursor));  // the whitespace before it
        if (marked) out += fmt::format("<{}>", tag);
        appendEscaped(out, text.substr(t.begin, t.length));
        if (marked) out += fmt::format("</{}>", tag);
        cursor = t.begin + t.length;
    }
}

}  // namespace

std::string escapeHtml(std::string_view text) {
    std::string out;
    appendEscaped(out, text);
    return out;
}

std::string groupedNumber(uint64_t n) {
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string secondsText(double seconds) {
    if (seconds < 0.1) return fmt::format("{:.3f} s", seconds);
    if (seconds < 10) return fmt::format("{:.2f} s", seconds);
    return fmt::format("{:.1f} s", seconds);
}

std::string byteSizeText(uint64_t bytes) {
    if (bytes < 1024) return fmt::format("{} B", bytes);
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = double(bytes) / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < 3) {
        v /= 1024.0;
        ++u;
    }
    return v < 10 ? fmt::format("{:.2f} {}", v, units[u]) : fmt::format("{:.1f} {}", v, units[u]);
}

std::string_view utf8Prefix(std::string_view text, std::size_t maxBytes) {
    if (text.size() <= maxBytes) return text;
    std::size_t end = maxBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;  // back to the first byte of the character that would be cut
    return text.substr(0, end);
}

MarkedPair markWordDifferences(std::string_view left, std::string_view right,
                               const NormalizeOptions& normalize) {
    const WordDiff diff = diffWords(left, right, normalize);
    MarkedPair out;
    std::size_t leftCursor = 0, rightCursor = 0;
    for (const DiffRun& run : diff.runs) {
        const bool changed = run.kind != DiffKind::Equal;
        if (changed) out.changedWords += (run.aEnd - run.aBegin) + (run.bEnd - run.bBegin);
        appendWords(out.left, left, diff.a, run.aBegin, run.aEnd, changed, "del", leftCursor);
        appendWords(out.right, right, diff.b, run.bBegin, run.bEnd, changed, "ins", rightCursor);
    }
    appendEscaped(out.left, left.substr(leftCursor));  // trailing whitespace
    appendEscaped(out.right, right.substr(rightCursor));
    return out;
}

}  // namespace neardup::report
