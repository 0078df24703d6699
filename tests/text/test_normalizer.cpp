// Normalization and symbol streams: what counts as "the same text".
#include <QTest>

#include "shingles.h"

using namespace neardup;

namespace {

std::vector<uint32_t> cps(std::u32string_view s) {
    return {s.begin(), s.end()};
}

std::vector<uint32_t> norm(std::string_view utf8, NormalizeOptions o = {}) {
    Normalizer n(o);
    return n.run(utf8);
}

}  // namespace

class TestNormalizer : public QObject {
    Q_OBJECT
  private slots:
    void asciiLowercaseAndWhitespace() {
        QCOMPARE(norm("  Hello,\t\tWORLD \n\n again  "), cps(U"hello, world again"));
    }
    void nfcAndNfdAreEqual() {
        // "café naïve Zürich" precomposed vs decomposed (combining marks).
        const std::string nfc = "caf\xC3\xA9 na\xC3\xAFve Z\xC3\xBCrich";
        const std::string nfd = "cafe\xCC\x81 nai\xCC\x88ve Zu\xCC\x88rich";
        QVERIFY(nfc != nfd);
        QCOMPARE(norm(nfc), norm(nfd));
        QCOMPARE(norm(nfc), cps(U"caf\u00e9 na\u00efve z\u00fcrich"));
        NormalizeOptions noNfc;
        noNfc.nfc = false;
        QVERIFY(norm(nfc, noNfc) != norm(nfd, noNfc));
    }
    void combiningMarksAreReordered() {
        // a + dot below + ring above is canonically ordered regardless of input order.
        QCOMPARE(norm("a\xCC\x8A\xCC\xA3"), norm("a\xCC\xA3\xCC\x8A"));
    }
    void unicodeLowercase() {
        QCOMPARE(norm("\xC3\x84\xC3\x96\xC3\x9C \xCE\xA3\xCE\x9F\xCE\xA6"),
                 cps(U"\u00e4\u00f6\u00fc \u03c3\u03bf\u03c6"));
        NormalizeOptions keepCase;
        keepCase.lowercase = false;
        QCOMPARE(norm("AbC", keepCase), cps(U"AbC"));
    }
    void unicodeWhitespace() {
        // no-break space, ideographic space and line separator are whitespace too.
        QCOMPARE(norm("a\xC2\xA0\xC2\xA0"
                      "b\xE3\x80\x80"
                      "c\xE2\x80\xA8"),
                 cps(U"a b c"));
    }
    void switchesAreIndependent() {
        NormalizeOptions o;
        o.collapseWhitespace = false;
        QCOMPARE(norm("  a  b  ", o), cps(U"a  b"));
        o.trim = false;
        QCOMPARE(norm("  a  b  ", o), cps(U"  a  b  "));
        o.collapseWhitespace = true;
        QCOMPARE(norm("  a  b  ", o), cps(U" a b "));
    }
    void emptyAndBlank() {
        QVERIFY(norm("").empty());
        QVERIFY(norm(" \t\n ").empty());
    }
    void invalidUtf8BecomesReplacement() {
        QCOMPARE(norm("a\xFF"
                      "b\xC3"),
                 cps(U"a\uFFFDb\uFFFD"));
        QCOMPARE(norm("\xED\xA0\x80"), cps(U"\uFFFD\uFFFD\uFFFD"));  // surrogate, overlong-safe
    }
    void bufferReuseDoesNotLeak() {
        Normalizer n({});
        const auto first = n.run("A much longer first document text");
        QCOMPARE(n.run("Bb"), cps(U"bb"));
        QCOMPARE(n.run("A much longer first document text"), first);
    }
    void wordSymbols() {
        std::vector<uint32_t> a, b, c;
        toSymbols(ShingleKind::Word, norm("the cat  sat"), a);
        toSymbols(ShingleKind::Word, norm("The Cat sat"), b);
        toSymbols(ShingleKind::Word, norm("the cat sits"), c);
        QCOMPARE(a.size(), std::size_t(3));
        QCOMPARE(a, b);
        QCOMPARE(a[0], c[0]);
        QVERIFY(a[2] != c[2]);
        for (const uint32_t s : a)
            QVERIFY(s < 0x7FFFFFFFu);
        toSymbols(ShingleKind::Char, norm("ab"), a);
        QCOMPARE(a, cps(U"ab"));
    }
};

QTEST_GUILESS_MAIN(TestNormalizer)
#include "test_normalizer.moc"
