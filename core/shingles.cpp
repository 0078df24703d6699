#include "shingles.h"

#include <utf8proc.h>

#include <algorithm>

#include "hash_math.h"

namespace neardup {

namespace {

constexpr uint32_t kReplacement = 0xFFFD;
constexpr auto kNfc = static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE);

bool isSpace(uint32_t c) {
    if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D);
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

struct DecodeResult {
    bool ascii = true;
    bool valid = true;
};

// Decodes UTF-8, replacing each invalid sequence by U+FFFD.
DecodeResult decodeUtf8(std::string_view in, std::vector<uint32_t>& out) {
    out.resize(in.size());
    const auto* s = reinterpret_cast<const uint8_t*>(in.data());
    const std::size_t n = in.size();
    std::size_t i = 0, o = 0;
    DecodeResult r;
    while (i < n) {
        const uint8_t b = s[i];
        if (b < 0x80) {
            out[o++] = b;
            ++i;
            continue;
        }
        r.ascii = false;
        int len = 0;
        uint32_t cp = 0, min = 0;
        if ((b & 0xE0) == 0xC0) {
            len = 2, cp = b & 0x1Fu, min = 0x80;
        } else if ((b & 0xF0) == 0xE0) {
            len = 3, cp = b & 0x0Fu, min = 0x800;
        } else if ((b & 0xF8) == 0xF0) {
            len = 4, cp = b & 0x07u, min = 0x10000;
        }
        bool ok = len > 0 && i + static_cast<std::size_t>(len) <= n;
        for (int j = 1; ok && j < len; ++j) {
            const uint8_t c = s[i + static_cast<std::size_t>(j)];
            if ((c & 0xC0) != 0x80) ok = false;
            cp = (cp << 6) | (c & 0x3Fu);
        }
        if (ok && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
        r.valid = r.valid && ok;
        out[o++] = ok ? cp : kReplacement;
        i += ok ? static_cast<std::size_t>(len) : 1;
    }
    out.resize(o);
    return r;
}

// Whitespace collapse and trim on code points, in place.
void collapseAndTrim(std::vector<uint32_t>& v, bool collapse, bool trim) {
    std::size_t o = 0;
    bool pendingSpace = false;
    bool seenNonSpace = false;
    for (const uint32_t c : v) {
        if (isSpace(c)) {
            if (!collapse) {
                if (trim && !seenNonSpace) continue;
                v[o++] = c;
            } else {
                pendingSpace = true;
            }
            continue;
        }
        if (collapse && pendingSpace && (seenNonSpace || !trim)) v[o++] = 0x20;
        pendingSpace = false;
        seenNonSpace = true;
        v[o++] = c;
    }
    if (collapse && pendingSpace && !trim && (seenNonSpace || o == 0)) v[o++] = 0x20;
    v.resize(o);
    if (trim && !collapse) {
        while (!v.empty() && isSpace(v.back()))
            v.pop_back();
    }
}

}  // namespace

const std::vector<uint32_t>& Normalizer::run(std::string_view utf8) {
    const DecodeResult decoded = decodeUtf8(utf8, decoded_);
    const bool ascii = decoded.ascii;
    std::vector<uint32_t>* cps = &decoded_;
    if (!ascii && options_.nfc) {
        // utf8proc reorders combining marks only when it decomposes itself, so it gets the UTF-8
        // bytes (re-encoded when the input had invalid sequences replaced).
        std::string_view source = utf8;
        std::string reencoded;
        if (!decoded.valid) {
            reencoded.reserve(decoded_.size() * 3);
            for (const uint32_t c : decoded_) {
                utf8proc_uint8_t buf[4];
                const auto len = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buf);
                reencoded.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(len));
            }
            source = reencoded;
        }
        work_.resize(std::max<std::size_t>(work_.size(), decoded_.size() + 16));
        for (;;) {
            const utf8proc_ssize_t n =
                utf8proc_decompose(reinterpret_cast<const utf8proc_uint8_t*>(source.data()),
                                   static_cast<utf8proc_ssize_t>(source.size()),
                                   reinterpret_cast<utf8proc_int32_t*>(work_.data()),
                                   static_cast<utf8proc_ssize_t>(work_.size()), kNfc);
            if (n < 0) break;  // cannot happen after re-encoding; keep the decoded text
            if (static_cast<std::size_t>(n) > work_.size()) {
                work_.resize(static_cast<std::size_t>(n));
                continue;
            }
            const utf8proc_ssize_t m = utf8proc_normalize_utf32(
                reinterpret_cast<utf8proc_int32_t*>(work_.data()), n, kNfc);
            out_.assign(work_.begin(), work_.begin() + (m < 0 ? n : m));
            cps = &out_;
            break;
        }
    }
    if (cps != &out_) out_.swap(*cps);
    if (options_.lowercase) {
        if (ascii) {
            for (uint32_t& c : out_)
                c |= (c - 'A' < 26u) ? 0x20u : 0u;
        } else {
            for (uint32_t& c : out_)
                c = static_cast<uint32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
        }
    }
    if (options_.collapseWhitespace || options_.trim)
        collapseAndTrim(out_, options_.collapseWhitespace, options_.trim);
    return out_;
}

void toSymbols(ShingleKind kind, const std::vector<uint32_t>& codepoints,
               std::vector<uint32_t>& symbols) {
    symbols.clear();
    if (kind == ShingleKind::Char) {
        symbols.assign(codepoints.begin(), codepoints.end());
        return;
    }
    uint64_t h = 0;
    bool inWord = false;
    for (const uint32_t c : codepoints) {
        if (isSpace(c)) {
            if (inWord) symbols.push_back(hashmath::reduce31(hashmath::mix64(h) >> 2));
            inWord = false;
            continue;
        }
        h = inWord ? hashmath::mix64(h ^ c) : hashmath::mix64(0x5851F42D4C957F2Dull ^ c);
        inWord = true;
    }
    if (inWord) symbols.push_back(hashmath::reduce31(hashmath::mix64(h) >> 2));
}

void shingleSet(const uint32_t* symbols, std::size_t count, int k, std::vector<uint64_t>& out) {
    using namespace hashmath;
    // Fixed (seed-independent) fingerprint: exact sets must not depend on the MinHash seed.
    constexpr uint64_t kBase = 0x1F3D5B79A2C4E681ull % kPrime61;
    constexpr uint64_t kSalt = 0xA0761D6478BD642Full;
    out.clear();
    if (count == 0) return;
    const auto window = static_cast<std::size_t>(k);
    if (count < window) {
        uint64_t poly = 0;
        for (std::size_t j = 0; j < count; ++j)
            poly = fingerprintAppend(poly, kBase, symbols[j]);
        out.push_back(fingerprintFinish(poly, kSalt));
        return;
    }
    const uint64_t top = powmod61(kBase, static_cast<uint32_t>(k - 1));
    out.reserve(count - window + 1);
    uint64_t poly = 0;
    for (std::size_t j = 0; j < window; ++j)
        poly = fingerprintAppend(poly, kBase, symbols[j]);
    out.push_back(fingerprintFinish(poly, kSalt));
    for (std::size_t j = window; j < count; ++j) {
        poly = fingerprintStep(poly, kBase, top, symbols[j - window], symbols[j]);
        out.push_back(fingerprintFinish(poly, kSalt));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

double exactJaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
    if (a.empty() || b.empty()) return 0.0;
    std::size_t i = 0, j = 0, common = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i] < b[j]) {
            ++i;
        } else if (b[j] < a[i]) {
            ++j;
        } else {
            ++common, ++i, ++j;
        }
    }
    const std::size_t unionSize = a.size() + b.size() - common;
    return static_cast<double>(common) / static_cast<double>(unionSize);
}

}  // namespace neardup
