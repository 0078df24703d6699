// One-permutation hashing with densification: the fast path equals the reference, every bin
// is filled, the sketch is deterministic, and its estimates track exact Jaccard like the
// classic sketch's do. Also the parameter plumbing of --sketch.
#include <QTemporaryDir>
#include <QTest>

#include <random>
#include <set>

#include "backend.h"
#include "corpus_generator.h"
#include "engine_fixture.h"
#include "hash_math.h"
#include "oph_sketch.h"
#include "pipeline.h"
#include "shingles.h"
#include "signatures.h"
#include "sketch_fixture.h"

using namespace neardup;
using hashmath::kEmptySlot;

namespace {

using sketchtest::randomStream;

HashConstants oph(int k, int h, uint64_t seed = 7) {
    SignatureParams p;
    p.sketch = SketchKind::Oph;
    p.ngram = k;
    p.hashes = h;
    p.seed = seed;
    return HashConstants::derive(p);
}

std::vector<uint32_t> sketch(const std::vector<uint32_t>& s, const HashConstants& c) {
    std::vector<uint32_t> out(static_cast<std::size_t>(c.hashes));
    std::vector<uint64_t> scratch;
    signatureRolling(s.data(), s.size(), c, out.data(), scratch);
    return out;
}

}  // namespace

class TestOphSketch : public QObject {
    Q_OBJECT
  private slots:
    void fastEqualsReference() {
        std::mt19937_64 rng(1);
        std::vector<uint64_t> scratch;
        for (const int k : {1, 3, 5, 9}) {
            for (const int h : {1, 7, 64, 128, 200, 1000}) {
                const auto c = oph(k, h, static_cast<uint64_t>(h));
                std::vector<uint32_t> fast(static_cast<std::size_t>(h)), direct(fast),
                    viaDirect(fast);
                for (const std::size_t len :
                     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 50, 1000, 1001, 1002, 5000}) {
                    for (const uint32_t alphabet : {3u, 0x110000u}) {
                        const auto s = randomStream(rng, len, alphabet);
                        std::fill(fast.begin(), fast.end(), 99u);
                        ophSketch(s.data(), s.size(), c, fast.data(), scratch);
                        ophSketchDirect(s.data(), s.size(), c, direct.data());
                        signatureDirect(s.data(), s.size(), c, viaDirect.data());
                        QCOMPARE(fast, direct);
                        QCOMPARE(viaDirect, direct);
                        QCOMPARE(sketch(s, c), direct);
                    }
                }
            }
        }
    }

    void binsAndValuesFollowTheFingerprint() {
        QCOMPARE(ophBin(0, 128), 0u);
        QCOMPARE(ophBin(~uint64_t{0}, 128), 127u);
        QCOMPARE(ophBin(uint64_t{1} << 63, 128), 64u);
        QCOMPARE(ophValue(0x1234567800000005ull), 5u);
        QCOMPARE(ophValue(0xFFFFFFFFFFFFFFFFull), kEmptySlot - 1);  // never the empty marker
        // A single shingle lands in one bin with its own value; every other bin borrows it.
        const auto c = oph(5, 64);
        const std::vector<uint32_t> s{'a', 'b', 'c', 'd', 'e'};
        const auto out = sketch(s, c);
        uint64_t poly = 0;
        for (const uint32_t x : s)
            poly = hashmath::fingerprintAppend(poly, c.fpBase, x);
        const uint64_t f = hashmath::fingerprintFinish(poly, c.fpSalt);
        for (const uint32_t v : out)
            QCOMPARE(v, ophValue(f));
    }

    void densificationFillsEveryBinFromOriginalBins() {
        std::mt19937_64 rng(2);
        std::vector<uint64_t> scratch;
        for (const int h : {2, 16, 128, 1024, 4096}) {
            for (const int filled : {1, 2, 5, 40}) {
                std::vector<uint32_t> bins(static_cast<std::size_t>(h), kEmptySlot);
                std::set<uint32_t> values;
                for (int i = 0; i < filled; ++i) {
                    const auto v = static_cast<uint32_t>(rng() % 1000000);
                    bins[rng() % bins.size()] = v;
                }
                std::size_t empty = 0;
                for (const uint32_t v : bins) {
                    if (v == kEmptySlot)
                        ++empty;
                    else
                        values.insert(v);
                }
                auto again = bins;
                QCOMPARE(ophDensify(bins.data(), h, 99, scratch), empty);
                for (const uint32_t v : bins)
                    QVERIFY(values.count(v) == 1);  // no empty, no invention
                ophDensify(again.data(), h, 99, scratch);
                QCOMPARE(again, bins);  // deterministic
            }
        }
        // An empty document stays empty: it never looks like a duplicate of anything.
        std::vector<uint32_t> none(64, kEmptySlot);
        QCOMPARE(ophDensify(none.data(), 64, 1, scratch), std::size_t(0));
        for (const uint32_t v : none)
            QCOMPARE(v, kEmptySlot);
        const auto c = oph(5, 64);
        for (const uint32_t v : sketch({}, c))
            QCOMPARE(v, kEmptySlot);
    }

    void densifiedShortDocumentsStillAgree() {
        // The same few shingles in two documents must give equal sketches: both borrow from the
        // same bins. A different document must not.
        const auto c = oph(5, 256);
        const std::vector<uint32_t> a{'h', 'e', 'l', 'l', 'o', ' ', 'w'};
        const std::vector<uint32_t> b{'j', 'e', 'l', 'l', 'o', ' ', 'w'};
        QCOMPARE(sketch(a, c), sketch(a, c));
        const auto sa = sketch(a, c), sb = sketch(b, c);
        const int same = matchingPositions(sa.data(), sb.data(), 256);
        QVERIFY(same > 0 && same < 256);
    }

    void seedChangesTheSketch() {
        std::mt19937_64 rng(3);
        const auto s = randomStream(rng, 500, 50);
        QCOMPARE(sketch(s, oph(5, 128, 1)), sketch(s, oph(5, 128, 1)));
        QVERIFY(sketch(s, oph(5, 128, 1)) != sketch(s, oph(5, 128, 2)));
        QVERIFY(oph(5, 128, 1).ophSalt != oph(5, 128, 2).ophSalt);
    }

    void estimateTracksJaccard_data() {
        QTest::addColumn<int>("length");
        QTest::newRow("long documents (no empty bins)") << 1500;
        QTest::newRow("short documents (densified)") << 120;
    }
    void estimateTracksJaccard() {
        QFETCH(int, length);
        const sketchtest::EstimateErrors e =
            sketchtest::estimateErrors(oph(5, 256), static_cast<std::size_t>(length));
        QVERIFY2(
            e.worst < 0.15,
            qPrintable(
                QStringLiteral("exact %1 estimate %2").arg(e.exactAtWorst).arg(e.estimateAtWorst)));
        QVERIFY2(std::abs(e.mean) < 0.03, qPrintable(QString::number(e.mean)));
    }

    void parametersNameAndKeyTheSketch() {
        QCOMPARE(QString::fromLatin1(toString(SketchKind::Oph)), QStringLiteral("oph"));
        QCOMPARE(parseSketchKind("classic"), std::optional<SketchKind>(SketchKind::Classic));
        QCOMPARE(parseSketchKind("oph"), std::optional<SketchKind>(SketchKind::Oph));
        QVERIFY(!parseSketchKind("minhash"));
        SignatureParams classic, one;
        classic.sketch = SketchKind::Classic;
        one.sketch = SketchKind::Oph;
        QVERIFY(signatureCacheKey(classic, {}) != signatureCacheKey(one, {}));
        // oph is the default, except for the rolling family, which only the classic sketch has.
        QCOMPARE(SignatureParams{}.sketch, SketchKind::Oph);
        QCOMPARE(defaultSketch(HashFamily::Permute), SketchKind::Oph);
        QCOMPARE(defaultSketch(HashFamily::Rolling), SketchKind::Classic);
        RunParams p;
        p.signature.sketch = SketchKind::Oph;
        QVERIFY(validate(p).empty());
        QVERIFY(toJson(p).find("\"sketch\":\"oph\"") != std::string::npos);
        p.signature.family = HashFamily::Rolling;
        QVERIFY(!validate(p).empty());
    }

    void backendAndPipelineRunTheSketch() {
        QVERIFY(sketchtest::backendSignsLikeDirect(oph(5, 32), 4, ophSketchDirect));

        // Whole runs: the oph run is recorded as such and finds the planted exact copies.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string corpus = (dir.path() + QStringLiteral("/c.jsonl")).toStdString();
        const GroundTruth truth = testsupport::writeGeneratedCorpus(corpus, {.documents = 400});
        std::size_t copies = 0;
        for (const auto& pair : truth.pairs)
            copies += pair.jaccard >= 0.999;
        QVERIFY(copies > 0);
        RunParams params;
        params.signature.sketch = SketchKind::Oph;
        params.compare.verify = VerifyMode::None;
        params.threads = 2;
        const std::string project = (dir.path() + QStringLiteral("/p.ndw")).toStdString();
        ProjectStore store(project);
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(store, *backend);
        const RunResult run = pipeline.run({corpus}, params);
        QCOMPARE(run.params.signature.sketch, SketchKind::Oph);
        QVERIFY(run.counts.duplicatePairs >= copies);
        const RunResult loaded = store.loadRun(run.runId);
        QCOMPARE(loaded.params.signature.sketch, SketchKind::Oph);
        // A classic run on the same data does not reuse the oph signatures.
        RunParams classic = params;
        classic.signature.sketch = SketchKind::Classic;
        QVERIFY(!pipeline.run({corpus}, classic).signaturesReused);
    }
};

QTEST_GUILESS_MAIN(TestOphSketch)
#include "test_oph_sketch.moc"
