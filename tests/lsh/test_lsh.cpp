// Banding: candidate probability, buckets and their statistics, comparison inside buckets.
#include <tbb/task_arena.h>  // before QTest: Qt's emit macro breaks TBB's headers

#include <QTest>

#include <algorithm>
#include <bit>
#include <random>

#include "backend.h"
#include "band_entries.h"
#include "bucket_compare.h"
#include "lsh_buckets.h"

using namespace neardup;

namespace {

// Signatures for n documents whose rows are given; digests filled like the pipeline does.
SignatureMatrix matrix(const std::vector<std::vector<uint32_t>>& rows) {
    SignatureMatrix m;
    m.resize(rows.size(), static_cast<int>(rows[0].size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::copy(rows[i].begin(), rows[i].end(), m.row(i));
        uint64_t d = 1469598103934665603ull;
        for (const uint32_t v : rows[i])
            d = (d ^ v) * 1099511628211ull;
        m.digests[i] = d;
        m.eligible[i] = 1;
    }
    return m;
}

}  // namespace

class TestLsh : public QObject {
    Q_OBJECT
  private slots:
    void formula() {
        QCOMPARE(candidateProbability(1.0, 16, 8), 1.0);
        QCOMPARE(candidateProbability(0.0, 16, 8), 0.0);
        QVERIFY(std::abs(candidateProbability(0.8, 16, 8) - 0.9470) < 1e-3);
    }
    // The empirical probability that a pair with per-position agreement s shares a bucket in
    // at least one band follows 1 - (1 - s^r)^b.
    void empiricalCandidateProbability_data() {
        QTest::addColumn<int>("bands");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("scheme");
        QTest::newRow("16x8 hash") << 16 << 8 << 0;
        QTest::newRow("20x5 hash") << 20 << 5 << 0;
        QTest::newRow("9x13 sum exact") << 9 << 13 << 1;
    }
    void empiricalCandidateProbability() {
        QFETCH(int, bands);
        QFETCH(int, rows);
        QFETCH(int, scheme);
        const int h = bands * rows;
        LshParams lsh;
        lsh.bands = bands;
        lsh.rows = rows;
        lsh.scheme = scheme ? BandKeyScheme::Sum : BandKeyScheme::Hash;
        auto backend = makeCpuBackend(2);
        std::mt19937_64 rng(11);
        const int trials = 3000;
        for (const double s : {0.5, 0.7, 0.8, 0.9}) {
            std::vector<std::vector<uint32_t>> rowsOfDocs;
            for (int t = 0; t < trials; ++t) {
                std::vector<uint32_t> a(static_cast<std::size_t>(h)),
                    b(static_cast<std::size_t>(h));
                for (int i = 0; i < h; ++i) {
                    a[std::size_t(i)] = static_cast<uint32_t>(rng());
                    const bool same = std::uniform_real_distribution<double>(0, 1)(rng) < s;
                    b[std::size_t(i)] = same ? a[std::size_t(i)] : static_cast<uint32_t>(rng());
                }
                rowsOfDocs.push_back(std::move(a));
                rowsOfDocs.push_back(std::move(b));
            }
            const SignatureMatrix m = matrix(rowsOfDocs);
            std::vector<uint64_t> keys(m.size() * std::size_t(bands));
            backend->computeBandKeys(m, lsh, 0, keys.data());
            int hits = 0;
            for (int t = 0; t < trials; ++t) {
                bool hit = false;
                for (int band = 0; band < bands; ++band)
                    hit = hit ||
                          keys[std::size_t(2 * t) * std::size_t(bands) + std::size_t(band)] ==
                              keys[std::size_t(2 * t + 1) * std::size_t(bands) + std::size_t(band)];
                hits += hit;
            }
            const double expected = candidateProbability(s, bands, rows);
            const double observed = hits / double(trials);
            // 3000 trials: standard deviation <= 0.0092; allow 4.5 sigma.
            QVERIFY2(std::abs(observed - expected) < 0.042,
                     qPrintable(QStringLiteral("s=%1 expected %2 observed %3")
                                    .arg(s)
                                    .arg(expected)
                                    .arg(observed)));
        }
    }
    // Issue 15: with exact keys nearly every bucket is a singleton and mean + 2 sigma is below
    // 2, so every pair's bucket was an "outlier". An outlier must also cost 1 % of the band's
    // comparisons: here the one bucket of 20 (190 of 690 comparisons), not the 500 pairs.
    void outliersAreTheBucketsThatCostComparisons() {
        BandStatsBuilder builder(0);
        uint64_t key = 0;
        for (int i = 0; i < 5000; ++i)
            builder.add(key++, 1);
        for (int i = 0; i < 500; ++i)
            builder.add(key++, 2);
        builder.add(key++, 20);
        const BandStats stats = builder.finish();
        QVERIFY(stats.meanSize + 2 * stats.stddevSize < 2);  // the old rule's limit
        QCOMPARE(stats.comparisons, uint64_t(500 + 190));
        QCOMPARE(stats.outlierCount, uint64_t(1));
        QCOMPARE(stats.outliers.size(), std::size_t(1));
        QCOMPARE(stats.outliers[0].size, uint64_t(20));
    }

    // Bucket sizes are counted in two places (small ones in an array, the rest in a map): the
    // outliers above the limit come from both. Limit: the smallest size costing 1 % of the
    // 29,346 comparisons is 25 (mean + 2 sigma is 4.4), so the 21 buckets of 40, 63 and 64.
    void outliersCountedAcrossSmallAndLargeSizes() {
        BandStatsBuilder builder(0);
        uint64_t key = 0;
        for (int i = 0; i < 20000; ++i)
            builder.add(key++, 1);
        for (int i = 0; i < 10; ++i) {
            builder.add(key++, 40);
            builder.add(key++, 63);
        }
        builder.add(key++, 64);
        const BandStats stats = builder.finish();
        QCOMPARE(stats.comparisons, uint64_t(10 * 780 + 10 * 1953 + 2016));
        QCOMPARE(stats.outlierCount, uint64_t(21));
        QCOMPARE(stats.histogram, (std::vector<uint64_t>{20000, 0, 0, 0, 0, 20, 1}));
        QCOMPARE(stats.outliers.front().size, uint64_t(64));
        QCOMPARE(stats.outliers.back().size, uint64_t(40));
    }

    void bucketsAndStatistics() {
        // One band, keys: 7 x4, 9 x2, 1..6 singles -> buckets of sizes 4, 2, 1 x 6.
        const std::vector<uint64_t> keys{7, 9, 1, 7, 2, 3, 7, 9, 4, 5, 7, 6};
        std::vector<uint8_t> eligible(keys.size(), 1);
        std::vector<std::pair<uint64_t, uint32_t>> scratch;
        BucketBatch batch;
        BandStats stats;
        buildBuckets(keys.data(), keys.size(), 1, 0, eligible, 2, scratch, batch, stats);
        QCOMPARE(stats.buckets, uint64_t(8));
        QCOMPARE(stats.multiBuckets, uint64_t(2));
        QCOMPARE(stats.maxSize, uint64_t(4));
        QCOMPARE(stats.comparisons, uint64_t(6 + 1));
        QCOMPARE(stats.meanSize, 12.0 / 8.0);
        QCOMPARE(stats.histogram, (std::vector<uint64_t>{6, 1, 1}));  // [1,2) [2,4) [4,8)
        QCOMPARE(stats.outlierCount, uint64_t(1));                    // mean + 2 sigma = 3.32
        QCOMPARE(stats.outliers[0].key, uint64_t(7));
        QCOMPARE(stats.outliers[0].comparisons, uint64_t(6));
        QCOMPARE(batch.buckets(), std::size_t(2));
        QCOMPARE(batch.members, (std::vector<uint32_t>{0, 3, 6, 10, 1, 7}));
        // Ineligible (short) documents take no part.
        eligible[0] = 0;
        buildBuckets(keys.data(), keys.size(), 1, 0, eligible, 1, scratch, batch, stats);
        QCOMPARE(batch.members, (std::vector<uint32_t>{3, 6, 10, 1, 7}));
    }
    void bandEntriesComeInKeyThenDocumentOrder() {
        // Large bands go through the radix passes (band_entries.h): whatever the keys (hashed,
        // reduced modulo a bucket count, one key for all, the largest keys), the thread count
        // and the short documents left out, the entries are exactly the sorted gather.
        std::mt19937_64 rng(11);
        const int bands = 3;
        struct Case {
            std::size_t documents;
            uint64_t modulus;  // 0: hashed 64-bit keys
            bool oneKey;
            // 64-bit keys of only a few values in their top 33 bits, told apart below them: the
            // radix passes leave them to the final sorting of runs.
            bool sharedTop = false;
        };
        const Case cases[] = {{0, 0, false},          {1000, 0, false},   {6000, 977, false},
                              {40000, 0, false},      {150000, 0, false}, {150000, 977, false},
                              {150000, 70001, false}, {100000, 0, true},  {70000, 3, false},
                              {90000, 0, false, true}};
        for (const Case& c : cases) {
            std::vector<uint64_t> keys(c.documents * bands);
            for (uint64_t& k : keys) {
                k = c.oneKey ? ~uint64_t{0} : rng();
                if (c.modulus) k %= c.modulus;
                if (c.sharedTop) k = (uint64_t{1} << 63) | (k % 5) << 40 | (k >> 20) % 3000;
            }
            if (!c.oneKey && c.modulus == 0 && c.documents > 0) keys[0] = ~uint64_t{0};
            std::vector<uint8_t> eligible(c.documents, 1);
            for (std::size_t i = 0; i < c.documents; i += 7)
                eligible[i] = 0;
            for (int band = 0; band < bands; ++band) {
                std::vector<BucketEntry> expected;
                for (std::size_t i = 0; i < c.documents; ++i)
                    if (eligible[i])
                        expected.emplace_back(keys[i * bands + static_cast<std::size_t>(band)],
                                              static_cast<uint32_t>(i));
                std::sort(expected.begin(), expected.end());
                for (const int threads : {1, 2, 5}) {
                    std::vector<BucketEntry> entries(3, {1, 2});  // reused scratch
                    tbb::task_arena arena(threads);
                    arena.execute([&] {
                        gatherSortedBandEntries(keys.data(), c.documents, bands, band, eligible,
                                                entries);
                    });
                    const std::string what = std::to_string(c.documents) + " documents, modulus " +
                                             std::to_string(c.modulus) +
                                             (c.sharedTop ? ", shared top bits" : "") + ", band " +
                                             std::to_string(band) + ", " + std::to_string(threads) +
                                             " threads";
                    QVERIFY2(entries == expected, what.c_str());
                }
            }
        }
    }

    void radixSortOfEntriesGatheredElsewhere() {
        // The spilled comparison reads its entries back from files and sorts them with
        // radixSortBandEntries: given in document order (as it reads them) or in any other,
        // whatever the keys, the entries come out exactly as a comparison sort puts them, in
        // whichever buffer the function returns.
        std::mt19937_64 rng(12);
        struct Case {
            std::size_t entries;
            uint64_t modulus;  // 0: hashed 64-bit keys
            bool oneKey;
            bool sharedTop;
            bool shuffled;  // not in document order
        };
        const Case cases[] = {{0, 0, false, false, false},        {1000, 0, false, false, true},
                              {100000, 0, false, false, false},   {100000, 0, false, false, true},
                              {100000, 977, false, false, false}, {100000, 977, false, false, true},
                              {60000, 0, true, false, true},      {90000, 0, false, true, false},
                              {90000, 0, false, true, true}};
        for (const Case& c : cases) {
            std::vector<BucketEntry> given;
            uint64_t keyBits = 0;
            for (std::size_t i = 0; i < c.entries; ++i) {
                uint64_t k = c.oneKey ? ~uint64_t{0} : rng();
                if (c.modulus) k %= c.modulus;
                if (c.sharedTop) k = (uint64_t{1} << 63) | (k % 5) << 40 | (k >> 20) % 3000;
                keyBits |= k;
                // Every third document left out, as short documents are.
                given.emplace_back(k, static_cast<uint32_t>(i + i / 2));
            }
            if (c.shuffled) std::shuffle(given.begin(), given.end(), rng);
            std::vector<BucketEntry> expected = given;
            std::sort(expected.begin(), expected.end());
            // The keys' OR, or any wider value (the spilled comparison gives the OR of the whole
            // band's keys for each of its partitions).
            for (const int threads : {1, 3}) {
                for (const uint64_t bits : {keyBits, ~uint64_t{0}}) {
                    std::vector<BucketEntry> both = given;
                    both.resize(2 * c.entries);
                    const BucketEntry* sorted = nullptr;
                    tbb::task_arena arena(threads);
                    arena.execute([&] {
                        sorted = radixSortBandEntries(both.data(), both.data() + c.entries,
                                                      c.entries, bits);
                    });
                    const std::string what =
                        std::to_string(c.entries) + " entries, modulus " +
                        std::to_string(c.modulus) + (c.oneKey ? ", one key" : "") +
                        (c.sharedTop ? ", shared top bits" : "") +
                        (c.shuffled ? ", shuffled" : "") + ", " + std::to_string(threads) +
                        " threads, key bits " + std::to_string(std::bit_width(bits));
                    QVERIFY2(sorted == both.data() || sorted == both.data() + c.entries,
                             what.c_str());
                    QVERIFY2(std::equal(expected.begin(), expected.end(), sorted), what.c_str());
                }
            }
        }
    }

    void pairCollidingInSeveralBandsIsComparedOnce() {
        // Documents 0 and 1 agree everywhere but the last band; 2 differs everywhere.
        std::vector<std::vector<uint32_t>> rows{
            {1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 0, 0}, {9, 9, 9, 9, 9, 9, 9, 9}};
        const SignatureMatrix m = matrix(rows);
        LshParams lsh;
        lsh.bands = 4;
        lsh.rows = 2;
        auto backend = makeCpuBackend(1);
        std::vector<uint64_t> keys(3 * 4);
        backend->computeBandKeys(m, lsh, 0, keys.data());
        CompareRequest req{&m, keys.data(), 4, 0};
        std::vector<std::pair<uint64_t, uint32_t>> scratch;
        std::vector<uint8_t> eligible(3, 1);
        std::vector<ScoredPair> pairs;
        uint64_t decided = 0;
        for (int band = 0; band < 4; ++band) {
            BucketBatch batch;
            BandStats stats;
            buildBuckets(keys.data(), 3, 4, band, eligible, 1, scratch, batch, stats);
            decided += backend->compareBuckets(batch, req, pairs);
        }
        QCOMPARE(decided, uint64_t(1));
        QCOMPARE(pairs.size(), std::size_t(1));
        QCOMPARE(pairs[0].a, 0u);
        QCOMPARE(pairs[0].b, 1u);
        QCOMPARE(pairs[0].matches, 6u);
    }
    void exactCopiesCollapse() {
        // 2000 identical signatures plus 3 near copies in one bucket: B - 1 identity pairs and
        // comparisons among 4 leaders only, not B^2 / 2.
        std::vector<std::vector<uint32_t>> rows(2000,
                                                std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8});
        for (uint32_t i = 0; i < 3; ++i)
            rows.push_back({1, 2, 3, 4, 5, 6, 7, 100 + i});
        const SignatureMatrix m = matrix(rows);
        std::vector<uint32_t> members(rows.size());
        for (uint32_t i = 0; i < members.size(); ++i)
            members[i] = i;
        std::vector<uint64_t> keys(rows.size(), 42);
        CompareRequest req{&m, keys.data(), 1, 4};
        BucketScratch scratch;
        std::vector<ScoredPair> pairs;
        const uint64_t decided =
            compareBucket(members.data(), members.size(), 0, req, scratch, pairs);
        QCOMPARE(decided, uint64_t(1999 + 6));
        QCOMPARE(pairs.size(), std::size_t(1999 + 6));
        std::sort(pairs.begin(), pairs.end());
        QCOMPARE(pairs.front().a, 0u);
        QCOMPARE(pairs.front().b, 1u);
        QCOMPARE(pairs.front().matches, 8u);
        for (const auto& p : pairs)
            QVERIFY(p.a < p.b);
    }
    // A request without band keys has no earlier band to consult, whatever the band: every pair
    // of a bucket large enough for the tiled path is compared (and nothing is read from keys).
    void compareWithoutKeysInLaterBand() {
        std::vector<std::vector<uint32_t>> rows;
        for (uint32_t i = 0; i < 100; ++i)
            rows.push_back({1, 2, 3, 4, 5, 6, 7, 1000 + i});
        const SignatureMatrix m = matrix(rows);
        std::vector<uint32_t> members(rows.size());
        for (uint32_t i = 0; i < members.size(); ++i)
            members[i] = i;
        CompareRequest req{&m, nullptr, 4, 4};
        BucketScratch scratch;
        std::vector<ScoredPair> pairs;
        QCOMPARE(compareBucket(members.data(), members.size(), 3, req, scratch, pairs),
                 uint64_t(100 * 99 / 2));
        QCOMPARE(pairs.size(), std::size_t(100 * 99 / 2));
        for (const auto& p : pairs)
            QCOMPARE(p.matches, 7u);
    }
    void minMatchesFilters() {
        std::vector<std::vector<uint32_t>> rows{{1, 2, 3, 4}, {1, 2, 0, 0}, {1, 0, 0, 0}};
        const SignatureMatrix m = matrix(rows);
        const std::vector<uint32_t> members{0, 1, 2};
        std::vector<uint64_t> keys(3, 5);
        CompareRequest req{&m, keys.data(), 1, 2};
        BucketScratch scratch;
        std::vector<ScoredPair> pairs;
        QCOMPARE(compareBucket(members.data(), 3, 0, req, scratch, pairs), uint64_t(3));
        std::sort(pairs.begin(), pairs.end());
        QCOMPARE(pairs.size(), std::size_t(2));  // (0,1): 2 matches, (1,2): 3 matches; (0,2): 1
        QCOMPARE(pairs[0].b, 1u);
        QCOMPARE(pairs[1].a, 1u);
        QCOMPARE(pairs[1].matches, 3u);
    }
    void sumKeysWithModulus() {
        std::vector<std::vector<uint32_t>> rows{{10, 20, 1, 1}, {25, 5, 2, 2}, {7, 8, 3, 3}};
        const SignatureMatrix m = matrix(rows);
        LshParams lsh;
        lsh.bands = 2;
        lsh.rows = 2;
        lsh.scheme = BandKeyScheme::Sum;
        std::vector<uint64_t> keys(6);
        makeCpuBackend(1)->computeBandKeys(m, lsh, 7, keys.data());
        QCOMPARE(keys, (std::vector<uint64_t>{30 % 7, 2, 30 % 7, 4, 15 % 7, 6}));
    }
};

QTEST_GUILESS_MAIN(TestLsh)
#include "test_lsh.moc"
