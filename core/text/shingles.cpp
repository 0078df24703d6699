#include "shingles.h"

#include <utf8proc.h>

#include <algorithm>
#include <bit>

#include "hash_math.h"
#include "simd_text.h"
#include "window_fingerprints.h"

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

// ---- Fast path --------------------------------------------------------------------------------
// One pass from UTF-8 to normalized code points for text whose NFC form is itself: decode,
// lowercase and collapse whitespace fused, no allocation once the buffer has grown. Code points
// below U+0300 (Latin, IPA, spacing modifiers), the CJK unified ideographs and U+FFFD have
// canonical combining class 0, no canonical decomposition, and never compose with a neighbour,
// so a text made of them only is already in NFC. Any other code point sends the document to
// the general path (when NFC is on); the tests check both paths agree.

constexpr uint32_t kTableSize = 0x300;

bool nfcInert(uint32_t c) {
    return c < kTableSize || c - 0x4E00u < 0x5200u || c == kReplacement;
}

// utf8proc_tolower for the code points below kTableSize, computed once.
const uint32_t* lowerTable() {
    static const auto table = [] {
        std::vector<uint32_t> t(kTableSize);
        for (uint32_t c = 0; c < kTableSize; ++c)
            t[c] = static_cast<uint32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
        return t;
    }();
    return table.data();
}

// Decodes the multi-byte sequence at s[0] (s[0] >= 0x80) exactly as decodeUtf8 does and
// returns the number of bytes consumed.
std::size_t decodeMultiByte(const uint8_t* s, std::size_t left, uint32_t& cp) {
    const uint8_t b = s[0];
    std::size_t len = 0;
    uint32_t c = 0, min = 0;
    if ((b & 0xE0) == 0xC0) {
        len = 2, c = b & 0x1Fu, min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
        len = 3, c = b & 0x0Fu, min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
        len = 4, c = b & 0x07u, min = 0x10000;
    }
    bool ok = len > 0 && len <= left;
    for (std::size_t j = 1; ok && j < len; ++j) {
        const uint8_t t = s[j];
        if ((t & 0xC0) != 0x80) ok = false;
        c = (c << 6) | (t & 0x3Fu);
    }
    if (ok && (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))) ok = false;
    cp = ok ? c : kReplacement;
    return ok ? len : 1;
}

// Returns false (leaving `out` unspecified) when the text needs the general path. With
// collapse, a whitespace character is written as one space unless the previous character was
// whitespace too; `pending` starts true under trim so that leading whitespace is dropped, and a
// trailing space is removed at the end.
template <bool kLower, bool kCollapse>
bool fastNormalize(std::string_view in, bool nfc, bool trim, std::vector<uint32_t>& out,
                   std::size_t& segment) {
    const auto* s = reinterpret_cast<const uint8_t*>(in.data());
    const std::size_t n = in.size();
    if (out.size() < n + simd::kAsciiRunSlack) out.resize(n + simd::kAsciiRunSlack);
    uint32_t* const begin = out.data();
    uint32_t* o = begin;
    const uint32_t* lower = lowerTable();
    bool previousSpace = trim;
    std::size_t i = 0;
    std::size_t last = 0;  // where the last decoded character starts
    while (i < n) {
        if (s[i] < 0x80) {
            const simd::AsciiRun run =
                simd::asciiRun(s + i, n - i, o, kLower, kCollapse, previousSpace);
            i += run.consumed;
            o += run.written;
            last = i - 1;
            continue;
        }
        uint32_t c = 0;
        const std::size_t start = i;
        i += decodeMultiByte(s + i, n - i, c);
        if (nfc && !nfcInert(c)) {
            // NFC may change this character's segment, which starts at the (inert) character
            // before it.
            segment = start == 0 ? 0 : last;
            return false;
        }
        last = start;
        const bool space = isSpace(c);
        if constexpr (kLower)
            c = c < kTableSize
                    ? lower[c]
                    : static_cast<uint32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
        if constexpr (kCollapse) {
            *o = space ? 0x20u : c;
            o += !(space && previousSpace);
            previousSpace = space;
        } else {
            *o++ = c;
        }
    }
    if (kCollapse && trim && previousSpace && o != begin) --o;
    out.resize(static_cast<std::size_t>(o - begin));
    return true;
}

// False when NFC is on and `in` has a character that is not NFC-inert; `segment` is then the
// byte offset of the first NFC segment that needs normalizing.
bool fastNormalize(std::string_view in, const NormalizeOptions& o, std::vector<uint32_t>& out,
                   std::size_t& segment) {
    if (o.lowercase)
        return o.collapseWhitespace ? fastNormalize<true, true>(in, o.nfc, o.trim, out, segment)
                                    : fastNormalize<true, false>(in, o.nfc, o.trim, out, segment);
    return o.collapseWhitespace ? fastNormalize<false, true>(in, o.nfc, o.trim, out, segment)
                                : fastNormalize<false, false>(in, o.nfc, o.trim, out, segment);
}

// ---- NFC by segments ------------------------------------------------------------------------
// An NFC-inert character has combining class 0 and never composes with what precedes it, so
// nothing before it interacts with anything after it: NFC of a text is the concatenation of NFC
// of its segments, each an inert character (or the text's start) followed by the non-inert
// characters up to the next inert one. Only the segments holding a non-inert character go
// through utf8proc; the rest is copied. The result is NFC UTF-8, which the fast path then
// lowercases and collapses.

std::size_t decodeAt(const uint8_t* s, std::size_t n, std::size_t i, uint32_t& cp) {
    if (s[i] < 0x80) {
        cp = s[i];
        return 1;
    }
    return decodeMultiByte(s + i, n - i, cp);
}

void appendUtf8(std::string& out, uint32_t c) {
    utf8proc_uint8_t buf[4];
    const auto len = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buf);
    out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(len));
}

// Appends NFC of the valid UTF-8 `segment`; false if utf8proc fails.
bool appendNfc(std::string_view segment, std::string& out, std::vector<uint32_t>& work) {
    work.resize(std::max<std::size_t>(work.size(), segment.size() * 3 + 16));
    for (;;) {
        const utf8proc_ssize_t n =
            utf8proc_decompose(reinterpret_cast<const utf8proc_uint8_t*>(segment.data()),
                               static_cast<utf8proc_ssize_t>(segment.size()),
                               reinterpret_cast<utf8proc_int32_t*>(work.data()),
                               static_cast<utf8proc_ssize_t>(work.size()), kNfc);
        if (n < 0) return false;
        if (static_cast<std::size_t>(n) > work.size()) {
            work.resize(static_cast<std::size_t>(n));
            continue;
        }
        const utf8proc_ssize_t m =
            utf8proc_normalize_utf32(reinterpret_cast<utf8proc_int32_t*>(work.data()), n, kNfc);
        if (m < 0) return false;
        for (utf8proc_ssize_t j = 0; j < m; ++j)
            appendUtf8(out, work[static_cast<std::size_t>(j)]);
        return true;
    }
}

// NFC of `in` into `out` (UTF-8; invalid sequences stay as they are, and still decode to U+FFFD
// later), given that everything before byte `from` is inert and copied as is.
bool nfcBySegments(std::string_view in, std::size_t from, std::string& out,
                   std::vector<uint32_t>& work) {
    const auto* s = reinterpret_cast<const uint8_t*>(in.data());
    const std::size_t n = in.size();
    out.assign(in.data(), from);
    std::size_t i = from;
    while (i < n) {
        // The segment: the character at i, then every non-inert character after it.
        uint32_t c = 0;
        std::size_t len = decodeAt(s, n, i, c);
        if (c == kReplacement && len == 1) {
            out.push_back(in[i]);  // an invalid byte is inert (U+FFFD) and composes with nothing
            i += 1;
            continue;
        }
        std::size_t end = i + len;
        while (end < n) {
            len = decodeAt(s, n, end, c);
            if (nfcInert(c)) break;
            end += len;
        }
        if (!appendNfc(in.substr(i, end - i), out, work)) return false;
        // Copy the inert run after it, up to the character before the next non-inert one.
        i = end;
        std::size_t last = i;
        std::size_t j = i;
        while (j < n) {
            len = decodeAt(s, n, j, c);
            if (!nfcInert(c)) break;
            last = j;
            j += len;
        }
        if (j >= n) {
            out.append(in.data() + i, n - i);
            break;
        }
        out.append(in.data() + i, last - i);
        i = last;
    }
    return true;
}

}  // namespace

const std::vector<uint32_t>& Normalizer::run(std::string_view utf8) {
    // Trim without collapse keeps inner whitespace as it is; that rare setting takes the
    // general path below.
    if (!options_.trim || options_.collapseWhitespace) {
        std::size_t segment = 0;
        if (fastNormalize(utf8, options_, out_, segment)) return out_;
        // One buffer per thread for the NFC text: the Normalizer's own buffers hold code points.
        thread_local std::string nfcText;
        if (nfcBySegments(utf8, segment, nfcText, work_)) {
            NormalizeOptions composed = options_;
            composed.nfc = false;
            fastNormalize(nfcText, composed, out_, segment);
            return out_;
        }
    }
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

namespace {

// Sorts fingerprints, which are uniformly distributed (mix64 output), into `sorted`: one
// distribution pass on the top bits leaves about one element per bucket, in bucket order, and an
// insertion sort finishes each bucket. Linear time in practice, several times faster than
// std::sort on the few thousand shingles of a document; equal values (repeated shingles) never
// move.
void sortFingerprints(const std::vector<uint64_t>& v, std::vector<uint64_t>& sorted) {
    const std::size_t n = v.size();
    sorted.resize(n);
    if (n < 256) {
        std::copy(v.begin(), v.end(), sorted.begin());
        std::sort(sorted.begin(), sorted.end());
        return;
    }
    const int bits = std::clamp(static_cast<int>(std::bit_width(n)), 8, 16);
    const int shift = 64 - bits;
    thread_local std::vector<uint32_t> starts;
    starts.assign((std::size_t{1} << bits) + 1, 0);
    for (const uint64_t x : v)
        ++starts[(x >> shift) + 1];
    for (std::size_t b = 1; b < starts.size(); ++b)
        starts[b] += starts[b - 1];
    for (const uint64_t x : v)
        sorted[starts[x >> shift]++] = x;
    for (std::size_t i = 1; i < n; ++i) {
        const uint64_t x = sorted[i];
        std::size_t j = i;
        for (; j > 0 && x < sorted[j - 1]; --j)
            sorted[j] = sorted[j - 1];
        sorted[j] = x;
    }
}

}  // namespace

void shingleSet(const uint32_t* symbols, std::size_t count, int k, std::vector<uint64_t>& out) {
    using namespace hashmath;
    // Fixed (seed-independent) fingerprint: exact sets must not depend on the MinHash seed.
    constexpr uint64_t kBase = 0x1F3D5B79A2C4E681ull % kPrime61;
    constexpr uint64_t kSalt = 0xA0761D6478BD642Full;
    out.clear();
    if (count == 0) return;
    // The permutation family's fingerprints with these constants, so the same values as
    // fingerprintAppend over every window; a stream shorter than k is one shingle.
    const auto window = static_cast<std::size_t>(k);
    if (count < window) {
        uint64_t poly = 0;
        for (std::size_t j = 0; j < count; ++j)
            poly = fingerprintAppend(poly, kBase, symbols[j]);
        out.assign(1, fingerprintFinish(poly, kSalt));
        return;
    }
    // Fingerprints and their sorted copy live in this thread's buffers, reused from document
    // to document; `out` (often kept for many pairs) gets the distinct values only, written once.
    thread_local std::vector<uint64_t> fingerprints, sorted;
    const simd::WindowFingerprints windows(kBase, kSalt, k);
    fingerprints.resize(count - window + 1);
    windows.compute(symbols, count, fingerprints.data());
    sortFingerprints(fingerprints, sorted);
    out.assign(sorted.begin(), std::unique(sorted.begin(), sorted.end()));
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
