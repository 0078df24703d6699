// MinHash signatures: rolling updates equal direct recomputation; short documents; estimates.
#include <QTest>

#include <random>

#include "backend.h"
#include "hash_math.h"
#include "shingles.h"
#include "signatures.h"
#include "sketch_fixture.h"

using namespace neardup;

namespace {

using sketchtest::randomStream;

SignatureParams params(HashFamily family, int k, int h, uint64_t seed = 7) {
    SignatureParams p;
    p.family = family;
    p.ngram = k;
    p.hashes = h;
    p.seed = seed;
    return p;
}

}  // namespace

class TestSignatures : public QObject {
    Q_OBJECT
  private slots:
    void rollingPolynomialEqualsDirectAtEveryPosition() {
        using namespace hashmath;
        std::mt19937_64 rng(1);
        for (const int k : {1, 2, 5, 9, 17}) {
            const auto s = randomStream(rng, 500, 0x110000);
            const uint32_t base31 = 70001, top31 = powmod31(base31, static_cast<uint32_t>(k - 1));
            const uint64_t base61 = 0x123456789ABull,
                           top61 = powmod61(base61, static_cast<uint32_t>(k - 1));
            uint32_t roll31 = 0;
            uint64_t roll61 = 0;
            for (int j = 0; j < k; ++j) {
                roll31 = rollingAppend(roll31, base31, s[std::size_t(j)]);
                roll61 = fingerprintAppend(roll61, base61, s[std::size_t(j)]);
            }
            for (std::size_t start = 0; start + std::size_t(k) <= s.size(); ++start) {
                if (start > 0) {
                    roll31 = rollingStep(roll31, base31, top31, s[start - 1],
                                         s[start + std::size_t(k) - 1]);
                    roll61 = fingerprintStep(roll61, base61, top61, s[start - 1],
                                             s[start + std::size_t(k) - 1]);
                }
                uint32_t direct31 = 0;
                uint64_t direct61 = 0;
                for (int j = 0; j < k; ++j) {
                    direct31 = rollingAppend(direct31, base31, s[start + std::size_t(j)]);
                    direct61 = fingerprintAppend(direct61, base61, s[start + std::size_t(j)]);
                }
                QCOMPARE(roll31, direct31);
                QCOMPARE(roll61, direct61);
            }
        }
    }
    void modularArithmeticIsExact() {
        using namespace hashmath;
        std::mt19937_64 rng(2);
        for (int i = 0; i < 10000; ++i) {
            const uint32_t a = static_cast<uint32_t>(rng() % kPrime31),
                           b = static_cast<uint32_t>(rng() % kPrime31);
            QCOMPARE(mulmod31(a, b), static_cast<uint32_t>((uint64_t(a) * b) % kPrime31));
            const uint64_t x = rng() % kPrime61, y = rng() % kPrime61;
            __extension__ typedef unsigned __int128 u128;
            QCOMPARE(mulmod61(x, y), static_cast<uint64_t>((u128(x) * y) % kPrime61));
        }
    }
    void fastSignatureEqualsReference_data() {
        QTest::addColumn<int>("family");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("hashes");
        for (const int f : {0, 1})
            for (const int k : {1, 3, 5, 9})
                for (const int h : {1, 64, 128, 200})
                    QTest::addRow("%s k=%d H=%d", f ? "permute" : "rolling", k, h) << f << k << h;
    }
    void fastSignatureEqualsReference() {
        QFETCH(int, family);
        QFETCH(int, k);
        QFETCH(int, hashes);
        const auto c = HashConstants::derive(
            params(family ? HashFamily::Permute : HashFamily::Rolling, k, hashes));
        std::mt19937_64 rng(static_cast<uint64_t>(k * 1000 + hashes));
        std::vector<uint64_t> scratch;
        std::vector<uint32_t> fast(static_cast<std::size_t>(hashes)),
            ref(static_cast<std::size_t>(hashes));
        for (const std::size_t len : {0, 1, 2, 4, 5, 8, 9, 10, 50, 1000}) {
            // Small alphabets produce repeated shingles; large ones exercise the whole range.
            for (const uint32_t alphabet : {3u, 0x110000u}) {
                const auto s = randomStream(rng, len, alphabet);
                signatureRolling(s.data(), s.size(), c, fast.data(), scratch);
                signatureDirect(s.data(), s.size(), c, ref.data());
                QCOMPARE(fast, ref);
            }
        }
    }
    void shortDocumentsHaveWellDefinedSignatures() {
        const auto c = HashConstants::derive(params(HashFamily::Permute, 5, 64));
        std::vector<uint64_t> scratch;
        std::vector<uint32_t> a(64), b(64), again(64), empty(64);
        const std::vector<uint32_t> ab{'a', 'b'}, ac{'a', 'c'};
        signatureRolling(ab.data(), ab.size(), c, a.data(), scratch);
        signatureRolling(ac.data(), ac.size(), c, b.data(), scratch);
        // Filling the buffers with garbage first proves nothing stale survives.
        std::fill(again.begin(), again.end(), 12345u);
        signatureRolling(ab.data(), ab.size(), c, again.data(), scratch);
        QCOMPARE(a, again);
        QVERIFY(a != b);
        signatureRolling(nullptr, 0, c, empty.data(), scratch);
        for (const uint32_t v : empty)
            QCOMPARE(v, hashmath::kEmptySlot);
    }
    void seedDeterminesConstants() {
        const auto a = HashConstants::derive(params(HashFamily::Rolling, 5, 16, 1));
        const auto b = HashConstants::derive(params(HashFamily::Rolling, 5, 16, 1));
        const auto c = HashConstants::derive(params(HashFamily::Rolling, 5, 16, 2));
        QCOMPARE(a.rollBase, b.rollBase);
        QCOMPARE(a.permA, b.permA);
        QVERIFY(a.rollBase != c.rollBase);
        QVERIFY(a.permA != c.permA);
        for (const uint64_t m : a.permA)
            QVERIFY(m & 1u);
    }
    void estimateTracksJaccard_data() {
        QTest::addColumn<int>("family");
        QTest::newRow("rolling") << 0;
        QTest::newRow("permute") << 1;
    }
    void estimateTracksJaccard() {
        QFETCH(int, family);
        // Streams sharing a prefix: the shingle-set Jaccard is known exactly from shingleSet.
        const auto c = HashConstants::derive(
            params(family ? HashFamily::Permute : HashFamily::Rolling, 5, 256));
        const sketchtest::EstimateErrors e = sketchtest::estimateErrors(c, 1500);
        // Binomial standard deviation at H = 256 is at most 0.031; 4 sigma bound.
        QVERIFY2(
            e.worst < 0.125,
            qPrintable(
                QStringLiteral("exact %1 estimate %2").arg(e.exactAtWorst).arg(e.estimateAtWorst)));
        // No systematic bias: the mean error over 40 pairs stays within ~4 sigma of the mean.
        QVERIFY2(std::abs(e.mean) < 0.02, qPrintable(QString::number(e.mean)));
    }
    void shingleSetsAndExactJaccard() {
        std::vector<uint64_t> a, b;
        const std::vector<uint32_t> x{'a', 'b', 'c', 'd', 'e', 'a', 'b', 'c', 'd', 'e'};
        shingleSet(x.data(), x.size(), 5, a);
        QCOMPARE(a.size(), std::size_t(5));  // abcde bcdea cdeab deabc eabcd; abcde repeats
        shingleSet(x.data(), 3, 5, b);       // shorter than k: one shingle
        QCOMPARE(b.size(), std::size_t(1));
        shingleSet(x.data(), 0, 5, b);
        QVERIFY(b.empty());
        QCOMPARE(exactJaccard(a, a), 1.0);
        QCOMPARE(exactJaccard(a, b), 0.0);
        QCOMPARE(exactJaccard(b, b), 0.0);  // empty documents are never duplicates
        const std::vector<uint64_t> p{1, 2, 3, 4}, q{3, 4, 5, 6, 7, 8};
        QCOMPARE(exactJaccard(p, q), 2.0 / 8.0);
    }
    void backendComputesBatches() {
        QVERIFY(sketchtest::backendSignsLikeDirect(
            HashConstants::derive(params(HashFamily::Permute, 5, 32)), 3, signatureDirect));
    }
};

QTEST_GUILESS_MAIN(TestSignatures)
#include "test_signatures.moc"
