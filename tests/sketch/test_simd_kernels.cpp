// The SIMD kernels at every level this CPU has (scalar, AVX2, AVX-512) against the reference
// implementations: classic signatures against signatureDirect, the normalizer's fast path
// against a straightforward decode -> NFC -> lowercase -> collapse written here.
#include <QTest>

#include <utf8proc.h>

#include <cstdlib>
#include <random>
#include <string>

#include "hash_math.h"
#include "shingles.h"
#include "signatures.h"
#include "simd.h"
#include "simd_text.h"
#include "sketch_fixture.h"

using namespace neardup;

namespace {

std::vector<SimdLevel> levels() {
    std::vector<SimdLevel> all;
    for (const SimdLevel l : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512})
        if (l <= detectedSimdLevel()) all.push_back(l);
    return all;
}

QString levelName(SimdLevel l) {
    return QString::fromLatin1(toString(l));
}

// ---- reference normalizer ----------------------------------------------------------------------

bool isSpace(uint32_t c) {
    return c == 0x20 || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

// Invalid sequences become U+FFFD, consuming one byte.
std::vector<uint32_t> decode(std::string_view in) {
    std::vector<uint32_t> out;
    std::size_t i = 0;
    while (i < in.size()) {
        const auto b = static_cast<uint8_t>(in[i]);
        const int len = b < 0x80             ? 1
                        : (b & 0xE0) == 0xC0 ? 2
                        : (b & 0xF0) == 0xE0 ? 3
                        : (b & 0xF8) == 0xF0 ? 4
                                             : 0;
        utf8proc_int32_t cp = -1;
        if (len > 0 && i + std::size_t(len) <= in.size()) {
            const auto n = utf8proc_iterate(
                reinterpret_cast<const utf8proc_uint8_t*>(in.data() + i), len, &cp);
            if (n != len) cp = -1;
        }
        if (cp < 0) {
            out.push_back(0xFFFD);
            ++i;
        } else {
            out.push_back(static_cast<uint32_t>(cp));
            i += std::size_t(len);
        }
    }
    return out;
}

std::vector<uint32_t> referenceNormalize(std::string_view in, const NormalizeOptions& o) {
    std::vector<uint32_t> cps = decode(in);
    if (o.nfc) {
        std::string valid;
        for (const uint32_t c : cps) {
            utf8proc_uint8_t buf[4];
            const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buf);
            valid.append(reinterpret_cast<const char*>(buf), std::size_t(n));
        }
        utf8proc_uint8_t* mapped = nullptr;
        const auto n =
            utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(valid.data()),
                         static_cast<utf8proc_ssize_t>(valid.size()), &mapped,
                         static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
        if (n >= 0)
            cps = decode(std::string_view(reinterpret_cast<const char*>(mapped), std::size_t(n)));
        std::free(mapped);
    }
    if (o.lowercase)
        for (uint32_t& c : cps)
            c = static_cast<uint32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
    std::vector<uint32_t> out;
    if (o.collapseWhitespace) {
        bool pending = false;
        for (const uint32_t c : cps) {
            if (isSpace(c)) {
                pending = true;
                continue;
            }
            if (pending && (!out.empty() || !o.trim)) out.push_back(0x20);
            pending = false;
            out.push_back(c);
        }
        if (pending && !o.trim) out.push_back(0x20);
    } else {
        out = cps;
        if (o.trim) {
            std::size_t b = 0, e = out.size();
            while (b < e && isSpace(out[b]))
                ++b;
            while (e > b && isSpace(out[e - 1]))
                --e;
            out = std::vector<uint32_t>(out.begin() + std::ptrdiff_t(b),
                                        out.begin() + std::ptrdiff_t(e));
        }
    }
    return out;
}

// Text that exercises every path: long ASCII runs across vector boundaries, all ASCII
// whitespace, Latin-1 letters (table lowercase), combining marks and Ohm sign (NFC changes
// them), CJK (inert), Hangul jamo (compose), Unicode spaces, invalid and overlong sequences.
std::string randomText(std::mt19937_64& rng, std::size_t pieces) {
    static const char* const kPieces[] = {
        "the ",
        "Quick ",
        "BROWN",
        "fox",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\v",
        "\f",
        ".",
        ",",
        "0",
        "Z",
        "\xC3\xA9",
        "\xC3\x89",
        "\xC3\x9F",
        "e\xCC\x81",
        "a\xCC\x88\xCC\x81",
        "\xC2\xA0",
        "\xE2\x80\x83",
        "\xE3\x80\x80",
        "\xE4\xB8\xAD",
        "\xE6\x96\x87",
        "\xC4\xB0",
        "\xC8\xBA",
        "\xE2\x84\xA6",
        "\xCE\xA9",
        "\xE1\x84\x80\xE1\x85\xA1",
        "e\xCC\xA3\xCC\x81",
        "\xC3\xA9\xCC\xA3",
        "\xEA\xB0\x80\xE1\x86\xA8",
        "\xCC\x81",
        "\xED\x95\x9C",
        "\xF0\x9F\x98\x80",
        "\xEF\xBF\xBD",
        "\xFF",
        "\xC3",
        "\xE0\x80\x80",
        "\xED\xA0\x80",
        "\xF4\x90\x80\x80",
        "\xC2\x85",
        "\x7F",
        "\x01",
    };
    std::string s;
    const std::size_t kinds = std::size(kPieces);
    for (std::size_t i = 0; i < pieces; ++i) {
        // Mostly plain words so that ASCII runs get long.
        if (rng() % 4 != 0) {
            const std::size_t len = 1 + rng() % 12;
            for (std::size_t j = 0; j < len; ++j)
                s += static_cast<char>('a' + rng() % 26 - (rng() % 5 == 0 ? 32 : 0));
            s += rng() % 6 == 0 ? "   " : " ";
        } else {
            s += kPieces[rng() % kinds];
        }
    }
    return s;
}

using sketchtest::randomStream;

// The stream with one symbol, at a random place, set to the alphabet's largest, so that each
// bound is met exactly: 2^24 - 1 still takes the window kernels, 2^24 the roll.
std::vector<uint32_t> withLargest(std::vector<uint32_t> v, uint32_t alphabet,
                                  std::mt19937_64& rng) {
    if (!v.empty()) v[rng() % v.size()] = alphabet - 1;
    return v;
}

}  // namespace

class TestSimdKernels : public QObject {
    Q_OBJECT
  private slots:
    void cleanup() { overrideSimdLevel(SimdLevel::Avx512); }

    void levelsAreOrderedAndCapped() {
        QVERIFY(activeSimdLevel() <= detectedSimdLevel());
        overrideSimdLevel(SimdLevel::Scalar);
        QCOMPARE(activeSimdLevel(), SimdLevel::Scalar);
        overrideSimdLevel(SimdLevel::Avx512);
        QCOMPARE(activeSimdLevel(), detectedSimdLevel());
        QCOMPARE(QString::fromLatin1(toString(SimdLevel::Avx2)), QStringLiteral("avx2"));
    }

    void signaturesEqualReferenceAtEveryLevel_data() {
        QTest::addColumn<int>("sketch");
        QTest::newRow("classic") << static_cast<int>(SketchKind::Classic);
        QTest::newRow("oph") << static_cast<int>(SketchKind::Oph);
    }

    // Classic signatures (permutation family) and one-permutation sketches, whose fingerprints
    // come from the SIMD window kernels, against the direct recomputation.
    void signaturesEqualReferenceAtEveryLevel() {
        QFETCH(int, sketch);
        std::mt19937_64 rng(11);
        std::vector<uint64_t> scratch;
        for (const SimdLevel level : levels()) {
            overrideSimdLevel(level);
            for (const int k : {1, 2, 5, 9, 16, 17}) {
                for (const int h : {1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200, 256, 300}) {
                    SignatureParams p;
                    p.sketch = static_cast<SketchKind>(sketch);
                    p.family = HashFamily::Permute;
                    p.ngram = k;
                    p.hashes = h;
                    p.seed = static_cast<uint64_t>(k * 1000 + h);
                    const auto c = HashConstants::derive(p);
                    std::vector<uint32_t> fast(static_cast<std::size_t>(h)),
                        ref(static_cast<std::size_t>(h));
                    for (const std::size_t len :
                         {std::size_t(0), std::size_t(1), std::size_t(k - 1 > 0 ? k - 1 : 1),
                          std::size_t(k), std::size_t(k + 1), std::size_t(97), std::size_t(700)}) {
                        // Small alphabets repeat shingles; 0x110000 leaves the drop table;
                        // 2^24 is the largest the window kernels take (window_fingerprints.h);
                        // 2^31 - 1 covers word-symbol values.
                        for (const uint32_t alphabet :
                             {3u, 256u, 0x110000u, 0x1000000u, 0x1000001u, 0x7FFFFFFFu}) {
                            const auto s =
                                withLargest(randomStream(rng, len, alphabet), alphabet, rng);
                            std::fill(fast.begin(), fast.end(), 123u);
                            signatureRolling(s.data(), s.size(), c, fast.data(), scratch);
                            signatureDirect(s.data(), s.size(), c, ref.data());
                            if (fast != ref)
                                QFAIL(
                                    qPrintable(QStringLiteral("%1: k=%2 H=%3 len=%4 alphabet=%5")
                                                   .arg(levelName(level) + QString::number(sketch))
                                                   .arg(k)
                                                   .arg(h)
                                                   .arg(len)
                                                   .arg(alphabet)));
                        }
                    }
                }
            }
        }
    }

    void asciiRunsAgreeAcrossLevels() {
        std::mt19937_64 rng(12);
        for (int trial = 0; trial < 2000; ++trial) {
            const std::size_t n = rng() % 200;
            std::string s(n, ' ');
            for (auto& ch : s) {
                const auto r = rng() % 10;
                ch = static_cast<char>(r < 3   ? " \t\n\r\v\f"[rng() % 6]
                                       : r < 4 ? static_cast<char>(rng() % 128)
                                               : 'A' + rng() % 58);
            }
            if (n > 0 && rng() % 3 == 0) s[rng() % n] = static_cast<char>(0x80 + rng() % 128);
            const auto* bytes = reinterpret_cast<const uint8_t*>(s.data());
            for (const bool lower : {false, true}) {
                for (const bool collapse : {false, true}) {
                    const bool before = rng() % 2 == 0;
                    std::vector<uint32_t> want(n + simd::kAsciiRunSlack);
                    overrideSimdLevel(SimdLevel::Scalar);
                    bool wantSpace = before;
                    const auto w =
                        simd::asciiRun(bytes, n, want.data(), lower, collapse, wantSpace);
                    want.resize(w.written);
                    for (const SimdLevel level : levels()) {
                        overrideSimdLevel(level);
                        std::vector<uint32_t> got(n + simd::kAsciiRunSlack);
                        bool gotSpace = before;
                        const auto g =
                            simd::asciiRun(bytes, n, got.data(), lower, collapse, gotSpace);
                        got.resize(g.written);
                        QCOMPARE(g.consumed, w.consumed);
                        QCOMPARE(got, want);
                        QCOMPARE(gotSpace, wantSpace);
                    }
                }
            }
        }
    }

    // Prose with single spaces: whole 64-byte blocks kept as they are (the AVX-512 path's fast
    // case), a space as a block's last byte followed by one at the next block's start.
    void proseBlocksAgreeAcrossLevels() {
        std::mt19937_64 rng(15);
        for (int trial = 0; trial < 500; ++trial) {
            std::string s;
            const std::size_t n = 64 + rng() % 400;
            while (s.size() < n) {
                s.append(1 + rng() % 9, static_cast<char>('A' + rng() % 58));
                s += (rng() % 7 == 0 && s.size() % 64 == 63) ? "  " : " ";
            }
            if (trial % 3 == 0 && s.size() > 64) s[63] = ' ', s[64] = ' ';
            const auto* bytes = reinterpret_cast<const uint8_t*>(s.data());
            for (const bool lower : {false, true}) {
                for (const bool collapse : {false, true}) {
                    std::vector<uint32_t> want(s.size() + simd::kAsciiRunSlack);
                    overrideSimdLevel(SimdLevel::Scalar);
                    bool wantSpace = false;
                    const auto w =
                        simd::asciiRun(bytes, s.size(), want.data(), lower, collapse, wantSpace);
                    want.resize(w.written);
                    for (const SimdLevel level : levels()) {
                        overrideSimdLevel(level);
                        std::vector<uint32_t> got(s.size() + simd::kAsciiRunSlack);
                        bool gotSpace = false;
                        const auto g =
                            simd::asciiRun(bytes, s.size(), got.data(), lower, collapse, gotSpace);
                        got.resize(g.written);
                        QCOMPARE(g.consumed, w.consumed);
                        QCOMPARE(got, want);
                        QCOMPARE(gotSpace, wantSpace);
                    }
                }
            }
        }
    }

    void normalizerEqualsReferenceAtEveryLevel() {
        std::mt19937_64 rng(13);
        std::vector<std::string> texts = {
            "",
            " ",
            "   ",
            "A",
            "\xC3\x89",
            " x ",
            "\t\tHello  World\n",
            std::string(200, 'a') + "  " + std::string(70, ' ') + "Z"};
        for (int i = 0; i < 300; ++i)
            texts.push_back(randomText(rng, 1 + rng() % 120));
        for (const SimdLevel level : levels()) {
            overrideSimdLevel(level);
            for (int mask = 0; mask < 16; ++mask) {
                NormalizeOptions o;
                o.nfc = mask & 1;
                o.lowercase = mask & 2;
                o.collapseWhitespace = mask & 4;
                o.trim = mask & 8;
                Normalizer normalizer(o);
                for (const std::string& t : texts) {
                    const auto want = referenceNormalize(t, o);
                    if (normalizer.run(t) != want)
                        QFAIL(
                            qPrintable(QStringLiteral("%1 options %2 text '%3'")
                                           .arg(levelName(level))
                                           .arg(mask)
                                           .arg(QString::fromUtf8(t.data(), qsizetype(t.size())))));
                }
            }
        }
    }

    void shingleSetsEqualReference() {
        // Fingerprints by fingerprintAppend over every window, sorted with std::sort.
        auto reference = [](const std::vector<uint32_t>& s, int k) {
            constexpr uint64_t kBase = 0x1F3D5B79A2C4E681ull % hashmath::kPrime61;
            constexpr uint64_t kSalt = 0xA0761D6478BD642Full;
            std::vector<uint64_t> out;
            const std::size_t width = std::min(s.size(), std::size_t(k));
            for (std::size_t start = 0; start + width <= s.size() && !s.empty(); ++start) {
                uint64_t poly = 0;
                for (std::size_t j = 0; j < width; ++j)
                    poly = hashmath::fingerprintAppend(poly, kBase, s[start + j]);
                out.push_back(hashmath::fingerprintFinish(poly, kSalt));
                if (width < std::size_t(k)) break;
            }
            std::sort(out.begin(), out.end());
            out.erase(std::unique(out.begin(), out.end()), out.end());
            return out;
        };
        std::mt19937_64 rng(14);
        std::vector<uint64_t> got;
        for (const SimdLevel level : levels()) {
            overrideSimdLevel(level);
            for (const int k : {1, 3, 5, 9, 16, 17}) {
                for (const std::size_t len : {0, 1, 4, 5, 6, 7, 8, 9, 200, 300, 3000, 40000}) {
                    for (const uint32_t alphabet :
                         {1u, 4u, 300u, 0x110000u, 0x1000000u, 0x1000001u}) {
                        const auto s = withLargest(randomStream(rng, len, alphabet), alphabet, rng);
                        shingleSet(s.data(), s.size(), k, got);
                        QCOMPARE(got, reference(s, k));
                    }
                }
            }
        }
    }

    void fastPathCodePointsAreNfcInert() {
        // The normalizer skips NFC for text made of these; check the claim against utf8proc.
        auto inert = [](uint32_t c) {
            const auto* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
            utf8proc_uint8_t buf[4];
            const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buf);
            utf8proc_uint8_t* mapped = nullptr;
            const auto m =
                utf8proc_map(buf, n, &mapped,
                             static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
            const bool same = m == n && std::equal(buf, buf + n, mapped);
            std::free(mapped);
            // Never the second character of a canonical composition (utf8proc marks those >=
            // 0x8000).
            const bool second = p->comb_index != UINT16_MAX && p->comb_index >= 0x8000;
            return p->combining_class == 0 && same && !second;
        };
        for (uint32_t c = 0; c < 0x300; ++c)
            QVERIFY2(inert(c), qPrintable(QString::number(c, 16)));
        for (uint32_t c = 0x4E00; c < 0xA000; ++c)
            QVERIFY2(inert(c), qPrintable(QString::number(c, 16)));
        QVERIFY(inert(0xFFFD));
        QVERIFY(!inert(0x301));   // combining acute
        QVERIFY(!inert(0x2126));  // Ohm sign becomes Omega
    }
};

QTEST_GUILESS_MAIN(TestSimdKernels)
#include "test_simd_kernels.moc"
