// The comparison's work on large buckets, counted rather than timed: exact copies cost one
// decision each in memory and out of core, a spilled comparison reads each candidate's row once
// and finds the in-memory pairs and bucket statistics, every counting kernel agrees, and band
// statistics do not depend on the order buckets arrive in.
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <random>

#include "bucket_compare.h"
#include "hash_math.h"
#include "lsh_buckets.h"
#include "pipeline.h"
#include "run_compare.h"
#include "spill_compare.h"

using namespace neardup;

namespace {

// Signatures of n identical (or distinct, when `distinct`) documents, as the pipeline fills them.
SignatureMatrix matrixOf(std::size_t n, int hashes, bool distinct, uint64_t seed) {
    SignatureMatrix m;
    m.resize(n, hashes);
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> common(static_cast<std::size_t>(hashes));
    for (auto& v : common)
        v = static_cast<uint32_t>(rng());
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < hashes; ++k)
            m.row(i)[k] = distinct ? static_cast<uint32_t>(rng()) : common[std::size_t(k)];
        m.digests[i] = hashmath::signatureDigest(m.row(i), hashes);
        m.eligible[i] = 1;
    }
    return m;
}

}  // namespace

class TestSpillCompare : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // 100,000 exact copies in one bucket cost 99,999 decisions (joins to the group's leader),
    // not 5 billion comparisons; in a later band they cost none. Counted, not timed.
    void hundredThousandCopiesStayCheap() {
        const std::size_t n = 100000;
        const SignatureMatrix sigs = matrixOf(n, 64, false, 3);
        LshParams lsh;
        lsh.bands = 8;
        lsh.rows = 8;
        std::vector<uint64_t> keys(n * 8);
        auto backend = makeCpuBackend(2);
        backend->computeBandKeys(sigs, lsh, 0, keys.data());
        BucketBatch batch;
        for (uint32_t i = 0; i < n; ++i)
            batch.members.push_back(i);
        batch.bucketBegin = {0, n};
        const CompareRequest req{&sigs, keys.data(), lsh.bands, 32};
        std::vector<ScoredPair> pairs;
        QCOMPARE(backend->compareBuckets(batch, req, pairs), uint64_t{n - 1});
        QCOMPARE(pairs.size(), n - 1);
        for (const ScoredPair& p : pairs) {
            QCOMPARE(p.a, 0u);
            QCOMPARE(p.matches, 64u);
        }
        batch.band = 1;
        pairs.clear();
        QCOMPARE(backend->compareBuckets(batch, req, pairs), uint64_t{0});
        QVERIFY(pairs.empty());
    }

    // The same out of core: the bucket is far larger than a pass, yet costs n - 1 decisions.
    void hundredThousandCopiesOutOfCore() {
        const std::size_t n = 100000;
        const int hashes = 16;
        SignatureMatrix sigs = matrixOf(n, hashes, false, 4);
        // Three distinct documents among the copies: leaders compared with each other.
        for (const std::size_t d : {std::size_t{10}, std::size_t{5000}, std::size_t{99999}}) {
            for (int k = 8; k < hashes; ++k)
                sigs.row(d)[k] = static_cast<uint32_t>(d * 31 + std::size_t(k));
            sigs.digests[d] = hashmath::signatureDigest(sigs.row(d), hashes);
        }
        LshParams lsh;
        lsh.bands = 1;
        lsh.rows = 8;  // the first 8 values: every document shares band 0's bucket
        auto backend = makeCpuBackend(2);
        std::vector<uint64_t> keys(n);
        backend->computeBandKeys(sigs, lsh, 0, keys.data());
        WorkDir work(path("copies-work"));
        SignatureSpill spill(work, hashes, lsh.bands);
        spill.append(sigs.values.data(), keys.data(), n);
        SpilledComparison compare(*backend, work, spill, sigs.digests, sigs.eligible, lsh, 0, 8, 2);
        std::vector<BandStats> bands;
        std::vector<ScoredPair> pairs;
        const uint64_t decided = compare.run(
            64 << 10, bands, pairs, [](uint64_t, uint64_t) {}, [] {});
        QCOMPARE(bands.size(), std::size_t{1});
        const BandStats& stats = bands[0];
        // n - 3 copies joined to their leader, then 4 leaders: 6 pairs.
        QCOMPARE(decided, uint64_t{n - 4 + 6});
        QCOMPARE(stats.maxSize, uint64_t{n});
        QCOMPARE(pairs.size(), std::size_t{n - 4 + 6});
        // In memory, the same.
        BucketBatch batch;
        for (uint32_t i = 0; i < n; ++i)
            batch.members.push_back(i);
        batch.bucketBegin = {0, n};
        std::vector<ScoredPair> direct;
        const CompareRequest req{&sigs, keys.data(), lsh.bands, 8};
        QCOMPARE(backend->compareBuckets(batch, req, direct), decided);
        std::sort(pairs.begin(), pairs.end());
        std::sort(direct.begin(), direct.end());
        testsupport::comparePairs(pairs, direct);
    }

    // Out of core, whole components of documents that share buckets are compared in every band
    // from one read of their rows: each candidate's row is read once, not once per band, and the
    // pairs, decisions and bucket statistics are those of the in-memory comparison. Components
    // larger than a pass (here 3,000 copies) go band by band, with the same results.
    void componentsReadOnceAndMatchInMemory_data() {
        QTest::addColumn<bool>("largeComponent");
        QTest::addColumn<bool>("planted");
        QTest::newRow("small components") << false << true;
        QTest::newRow("and one larger than a pass") << true << true;
        QTest::newRow("no bucket shared") << false << false;
    }
    void componentsReadOnceAndMatchInMemory() {
        QFETCH(bool, largeComponent);
        QFETCH(bool, planted);
        const std::size_t n = 20000;
        const int hashes = 32;
        LshParams lsh;
        lsh.bands = 4;
        lsh.rows = 8;
        SignatureMatrix sigs = matrixOf(n, hashes, true, 5);
        std::mt19937_64 rng(9);
        auto plant = [&](std::size_t from, std::size_t to, unsigned bandMask) {
            for (int t = 0; t < lsh.bands; ++t)
                if (bandMask >> t & 1u)
                    std::copy_n(sigs.row(from) + t * lsh.rows, lsh.rows,
                                sigs.row(to) + t * lsh.rows);
            sigs.digests[to] = hashmath::signatureDigest(sigs.row(to), hashes);
        };
        // Pairs sharing one to four bands (four: exact copies), far apart in the file, and chains
        // a - b - c whose links share different bands, so a component's buckets differ by band.
        for (std::size_t k = 0; planted && k < 1500; ++k) {
            const std::size_t a = rng() % 6000, b = 6000 + rng() % 6000;
            plant(a, b, 1u + static_cast<unsigned>(rng() % 15));
        }
        for (std::size_t k = 0; planted && k < 300; ++k) {
            const std::size_t a = 12000 + 3 * k, b = a + 1, c = a + 2;
            plant(a, b, 1u);
            plant(b, c, 2u | 4u);
        }
        if (largeComponent)
            for (std::size_t d = 16000; d < 19000; ++d)
                plant(15999, d, 15u);
        sigs.eligible[7] = 0;  // a document shorter than a shingle takes no part

        auto backend = makeCpuBackend(2);
        std::vector<uint64_t> keys(n * static_cast<std::size_t>(lsh.bands));
        backend->computeBandKeys(sigs, lsh, 0, keys.data());
        // In memory, as BucketComparePhase::inMemory does it.
        std::vector<ScoredPair> direct;
        std::vector<BandStats> directStats;
        uint64_t directDecided = 0;
        std::vector<uint8_t> candidate(n, 0);
        {
            std::vector<BucketEntry> scratch;
            BucketBatch batch;
            const CompareRequest req{&sigs, keys.data(), lsh.bands, 8};
            for (int band = 0; band < lsh.bands; ++band) {
                BandStats stats;
                buildBuckets(keys.data(), n, lsh.bands, band, sigs.eligible, 2, scratch, batch,
                             stats);
                directStats.push_back(stats);
                for (const uint32_t m : batch.members)
                    candidate[m] = 1;
                directDecided += backend->compareBuckets(batch, req, direct);
            }
        }
        const auto candidates =
            static_cast<uint64_t>(std::count(candidate.begin(), candidate.end(), 1));

        WorkDir work(path(largeComponent ? "components-large" : "components"));
        SignatureSpill spill(work, hashes, lsh.bands);
        spill.append(sigs.values.data(), keys.data(), n);
        SpilledComparison compare(*backend, work, spill, sigs.digests, sigs.eligible, lsh, 0, 8, 2);
        std::vector<BandStats> stats;
        std::vector<ScoredPair> pairs;
        uint64_t lastDone = 0, total = 0;
        const uint64_t decided = compare.run(
            512 << 10, stats, pairs,
            [&](uint64_t done, uint64_t all) {
                QVERIFY(done >= lastDone);
                lastDone = done;
                total = all;
            },
            [] {});
        QCOMPARE(lastDone, total);

        // The budget holds a few components at a time; without shared buckets nothing is read.
        QCOMPARE(compare.passes() > 1, planted);
        QCOMPARE(candidates > 0, planted);
        QCOMPARE(compare.largeComponentDocuments(),
                 uint64_t{largeComponent ? 3001u : 0u});  // with 15999
        if (largeComponent)
            QVERIFY(spill.rowsRead() > candidates);  // the large component's rows, band by band
        else
            QCOMPARE(spill.rowsRead(), candidates);  // every band from one read of each row
        QCOMPARE(decided, directDecided);
        std::sort(pairs.begin(), pairs.end());
        std::sort(direct.begin(), direct.end());
        testsupport::comparePairs(pairs, direct);
        testsupport::compareBands(stats, directStats);
    }

    // Every counting kernel the CPU supports gives the same pairs and counts, for signature
    // lengths that are and are not multiples of the vector width.
    void kernelsAgree_data() {
        QTest::addColumn<int>("hashes");
        QTest::newRow("128") << 128;
        QTest::newRow("100") << 100;
        QTest::newRow("7") << 7;
    }
    void kernelsAgree() {
        QFETCH(int, hashes);
        const std::size_t n = 300;
        SignatureMatrix sigs = matrixOf(n, hashes, true, 9);
        // Related rows: copies of row i % 20 with a growing number of changed positions.
        std::mt19937 rng(5);
        for (std::size_t i = 20; i < n; ++i) {
            std::copy(sigs.row(i % 20), sigs.row(i % 20) + hashes, sigs.row(i));
            for (std::size_t c = 0; c < i % static_cast<std::size_t>(hashes); ++c)
                sigs.row(i)[rng() % static_cast<uint32_t>(hashes)] = rng();
            sigs.digests[i] = hashmath::signatureDigest(sigs.row(i), hashes);
        }
        std::vector<uint64_t> keys(n * 2);
        for (std::size_t i = 0; i < keys.size(); ++i)
            keys[i] = (i * 2654435761u) % 7;  // frequent earlier-band collisions
        std::vector<uint32_t> members(n);
        for (uint32_t i = 0; i < n; ++i)
            members[i] = i;
        const CompareRequest req{&sigs, keys.data(), 2, 1};
        std::vector<std::vector<ScoredPair>> results;
        std::vector<uint64_t> decided;
        for (const char* kernel : {"generic", "avx2", "avx512"}) {
            if (!selectCompareKernel(kernel)) continue;
            BucketScratch scratch;
            std::vector<ScoredPair> out;
            decided.push_back(compareBucket(members.data(), n, 1, req, scratch, out));
            std::sort(out.begin(), out.end());
            results.push_back(std::move(out));
            // The generic kernel is checked against a plain count.
            if (results.size() == 1)
                for (const ScoredPair& p : results[0])
                    QCOMPARE(static_cast<int>(p.matches),
                             countMatches(sigs.row(p.a), sigs.row(p.b), hashes));
        }
        QVERIFY(selectCompareKernel("auto"));
        QVERIFY(results.size() >= 1);
        QVERIFY(decided[0] > 1000 && decided[0] < n * (n - 1) / 2);  // the rule skipped some
        for (std::size_t k = 1; k < results.size(); ++k) {
            QCOMPARE(decided[k], decided[0]);
            QCOMPARE(results[k].size(), results[0].size());
            for (std::size_t i = 0; i < results[0].size(); ++i) {
                QCOMPARE(results[k][i].a, results[0][i].a);
                QCOMPARE(results[k][i].b, results[0][i].b);
                QCOMPARE(results[k][i].matches, results[0][i].matches);
            }
        }
    }

    // Statistics fed bucket by bucket in any order equal those of the whole band.
    void bandStatisticsDoNotDependOnOrder() {
        std::mt19937_64 rng(8);
        std::vector<uint64_t> keys;
        std::vector<uint8_t> eligible;
        for (int i = 0; i < 5000; ++i) {
            keys.push_back(rng() % (i < 4000 ? 1500 : 7));  // a few outsized buckets
            eligible.push_back(i % 13 != 0);
        }
        std::vector<BucketEntry> entries;
        BucketBatch batch;
        BandStats whole;
        buildBuckets(keys.data(), keys.size(), 1, 0, eligible, 2, entries, batch, whole);
        std::vector<std::pair<uint64_t, uint64_t>> buckets;  // (key, size)
        for (std::size_t i = 0; i < entries.size();) {
            std::size_t j = i;
            while (j < entries.size() && entries[j].first == entries[i].first)
                ++j;
            buckets.emplace_back(entries[i].first, j - i);
            i = j;
        }
        std::shuffle(buckets.begin(), buckets.end(), rng);
        BandStatsBuilder builder(0);
        for (const auto& [key, size] : buckets)
            builder.add(key, size);
        const BandStats shuffled = builder.finish();
        QVERIFY(whole.outlierCount > 0);
        testsupport::compareBands({shuffled}, {whole});
    }
};

QTEST_GUILESS_MAIN(TestSpillCompare)
#include "test_spill_compare.moc"
