// The content pin (core/io/content_pin.h): the same tag however the content is split into
// parts, a different tag for any change of content, length, block order or key.
#include <QTest>
#include <random>
#include <string>
#include <vector>

#include "content_pin.h"

using neardup::ContentPinner;
using neardup::kPinBlockBytes;
using neardup::PinKey;
using neardup::PinTag;

namespace {

PinKey keyOf(uint8_t seed) {
    PinKey key{};
    for (std::size_t i = 0; i < key.size(); ++i)
        key[i] = static_cast<uint8_t>(seed * 31 + i);
    return key;
}

std::string contentOf(std::size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (char& c : s)
        c = static_cast<char>('a' + rng() % 26);
    return s;
}

PinTag sequential(const PinKey& key, const std::string& content) {
    ContentPinner pinner(key);
    pinner.add(content.data(), content.size());
    return pinner.finish();
}

// The content cut at `cuts`, each piece tagged by pinPart as the parallel stage does, then
// combined in order.
PinTag inParts(const PinKey& key, const std::string& content, std::vector<std::size_t> cuts) {
    cuts.push_back(content.size());
    ContentPinner pinner(key);
    std::size_t from = 0;
    for (const std::size_t to : cuts) {
        const neardup::PinPart part = neardup::pinPart(key, content.data() + from, to - from, from);
        pinner.add(part, content.data() + from);
        from = to;
    }
    return pinner.finish();
}

}  // namespace

class TestContentPin : public QObject {
    Q_OBJECT

  private slots:
    void anySplitGivesTheSamePin() {
        const PinKey key = keyOf(1);
        const std::size_t n = 5 * kPinBlockBytes + 12345;
        const std::string content = contentOf(n, 7);
        const PinTag whole = sequential(key, content);
        QVERIFY(whole == inParts(key, content, {}));
        QVERIFY(whole == inParts(key, content, {kPinBlockBytes}));
        QVERIFY(whole == inParts(key, content, {1, 2, kPinBlockBytes - 1, 3 * kPinBlockBytes + 5}));
        std::mt19937 rng(3);
        for (int trial = 0; trial < 20; ++trial) {
            std::vector<std::size_t> cuts;
            std::size_t at = 0;
            for (;;) {
                at += 1 + rng() % (2 * kPinBlockBytes);
                if (at >= n) break;
                cuts.push_back(at);
            }
            QVERIFY2(whole == inParts(key, content, cuts), qPrintable(QString::number(trial)));
        }
        // Empty content and content shorter than a block.
        QVERIFY(sequential(key, {}) == inParts(key, {}, {}));
        QVERIFY(sequential(key, "x") == inParts(key, "x", {}));
        QVERIFY(sequential(key, {}) != sequential(key, std::string(1, '\0')));
    }

    void anyChangeChangesThePin() {
        const PinKey key = keyOf(2);
        const std::string content = contentOf(3 * kPinBlockBytes + 100, 9);
        const PinTag pin = sequential(key, content);
        for (const std::size_t at : {std::size_t{0}, kPinBlockBytes - 1, kPinBlockBytes,
                                     2 * kPinBlockBytes + 7, content.size() - 1}) {
            std::string edited = content;
            edited[at] = static_cast<char>(edited[at] ^ 0x01);
            QVERIFY2(sequential(key, edited) != pin, qPrintable(QString::number(at)));
        }
        // Two whole blocks swapped: each block's tag depends on its place.
        std::string swapped = content;
        std::swap_ranges(swapped.begin(), swapped.begin() + kPinBlockBytes,
                         swapped.begin() + kPinBlockBytes);
        QVERIFY(sequential(key, swapped) != pin);
        // A byte more or less, and the same content under another key.
        QVERIFY(sequential(key, content + "a") != pin);
        QVERIFY(sequential(key, content.substr(0, content.size() - 1)) != pin);
        QVERIFY(sequential(keyOf(3), content) != pin);
        // The position-weighted sum's weakness: two words changed so that their weighted
        // changes cancel. A keyed pin has no such linear structure.
        std::string pair = content;
        pair[8] = static_cast<char>(pair[8] + 1);
        pair[16] = static_cast<char>(pair[16] - 1);
        QVERIFY(sequential(key, pair) != pin);
    }

    // A line streamed past in reads of any size: its part, built piece by piece, fits between
    // the parts around it.
    void aPartBuiltFromPiecesFits() {
        const PinKey key = keyOf(5);
        const std::string content = contentOf(4 * kPinBlockBytes + 999, 11);
        const PinTag whole = sequential(key, content);
        for (const std::size_t from : {std::size_t{0}, std::size_t{100}, kPinBlockBytes}) {
            for (const std::size_t to :
                 {from + 10, from + kPinBlockBytes, from + 3 * kPinBlockBytes + 17}) {
                ContentPinner pinner(key);
                pinner.add(content.data(), from);
                neardup::PinPartBuilder builder(key, from);
                for (std::size_t at = from; at < to; at += 7777)
                    builder.add(content.data() + at, std::min<std::size_t>(7777, to - at));
                std::string edges;
                const neardup::PinPart part = builder.finish(edges);
                QCOMPARE(part.size, uint64_t{to - from});
                pinner.add(part, edges.data(), edges.data() + part.head);
                pinner.add(content.data() + to, content.size() - to);
                QVERIFY2(pinner.finish() == whole,
                         qPrintable(QStringLiteral("%1..%2").arg(from).arg(to)));
            }
        }
    }

    void partsOutOfOrderAreRefused() {
        const PinKey key = keyOf(4);
        const std::string content = contentOf(1000, 1);
        ContentPinner pinner(key);
        const neardup::PinPart later = neardup::pinPart(key, content.data() + 10, 10, 10);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, pinner.add(later, content.data() + 10));
    }

    void keysAreRandom() { QVERIFY(neardup::newPinKey() != neardup::newPinKey()); }
};

QTEST_GUILESS_MAIN(TestContentPin)
#include "test_content_pin.moc"
