// The CUDA band-key and comparison kernels' per-thread logic (compare_block.h) and the host side
// of the GPU comparison (compare_plan.h: copy collapse, passes, overflow handling), run on the
// host thread by thread and compared with the CPU backend. Needs no GPU.
#include <QtTest>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "backend.h"
#include "compare_block.h"
#include "compare_plan.h"
#include "compare_test_data.h"
#include "hash_math.h"
#include "lsh_buckets.h"
#include "signatures.h"

using namespace neardup;
using neardup::testing::banding;
using neardup::testing::comparisonBanding;
using neardup::testing::firstDifference;
using neardup::testing::makeSignatures;
using neardup::testing::randomSignatures;

namespace {

struct Limits {
    uint64_t passRows = 1u << 30;
    uint64_t capacity = 1u << 20;
    uint64_t maxCapacity = 1u << 22;
    uint64_t shuffleSeed = 0;  // 0: tile tasks in order
};

// What CudaBackend::compareBuckets does, with the kernels emulated on the host: collapse, plan
// passes, gather each pass, run its tasks, settle overflows.
uint64_t emulatedCompareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                                const Limits& limits, std::vector<ScoredPair>& out,
                                int* passesSeen = nullptr, int* overflowsSeen = nullptr) {
    gpu::CollapsedBatch collapsed;
    gpu::collapseBatch(buckets, req, collapsed);
    out.insert(out.end(), collapsed.copies.begin(), collapsed.copies.end());
    uint64_t decided = collapsed.copiesDecided;
    const int keyBands = gpu::keyBandsFor(buckets, req);
    const auto h = static_cast<std::size_t>(req.signatures->hashes);
    gpu::PassPlanner planner(collapsed, limits.passRows);
    gpu::PassPlan plan;
    std::mt19937_64 rng(limits.shuffleSeed);
    int passes = 0, overflows = 0;
    while (planner.next(plan)) {
        ++passes;
        std::vector<uint32_t> sigs(plan.docs.size() * h);
        std::vector<uint64_t> keys(plan.docs.size() * std::size_t(keyBands));
        for (std::size_t i = 0; i < plan.docs.size(); ++i) {
            std::copy(req.signatures->row(plan.docs[i]), req.signatures->row(plan.docs[i]) + h,
                      sigs.begin() + static_cast<std::ptrdiff_t>(i * h));
            for (int t = 0; t < keyBands; ++t)
                keys[i * std::size_t(keyBands) + std::size_t(t)] =
                    req.keys[std::size_t(plan.docs[i]) * std::size_t(req.bands) + std::size_t(t)];
        }
        std::vector<gpu::FoundPair> buffer(limits.capacity);
        gpu::CompareCounters counters;
        gpu::CompareArgs a;
        a.signatures = sigs.data();
        a.keys = keyBands ? keys.data() : nullptr;
        a.ids = plan.docs.data();
        a.hashes = req.signatures->hashes;
        a.keyBands = keyBands;
        a.minMatches = req.minMatches;
        a.tileSegments = plan.tiles.data();
        a.tileSegmentCount = static_cast<uint32_t>(plan.tiles.size());
        a.pairSegments = plan.pairs.data();
        a.pairSegmentCount = static_cast<uint32_t>(plan.pairs.size());
        a.out = buffer.data();
        a.capacity = buffer.size();
        a.counters = &counters;
        const auto launch = [&](uint64_t begin, uint64_t end) {
            gpu::taskRanges(plan, begin, end, a);
            counters = {};
            std::vector<uint64_t> order;
            if (limits.shuffleSeed) {
                for (uint64_t t = a.tileBegin; t < a.tileEnd; ++t)
                    order.push_back(t);
                std::shuffle(order.begin(), order.end(), rng);
                if (order.empty()) a.tileEnd = a.tileBegin;
            }
            gpu::emulateCompareKernels(a, order);
            return counters;
        };
        const auto grow = [&](uint64_t pairs) {
            ++overflows;
            buffer.resize(pairs);
            a.out = buffer.data();
            a.capacity = pairs;
            return pairs;
        };
        const auto collect = [&](uint64_t found) {
            for (uint64_t i = 0; i < found; ++i)
                out.push_back({buffer[i].a, buffer[i].b, buffer[i].matches, -1.0f});
        };
        uint64_t capacity = a.capacity;
        const gpu::CompareCounters first = launch(0, plan.tasks());
        if (first.found > capacity) ++overflows;
        decided += gpu::settleTasks(0, plan.tasks(), first, capacity, limits.maxCapacity, launch,
                                    grow, collect);
    }
    if (passesSeen) *passesSeen = passes;
    if (overflowsSeen) *overflowsSeen = overflows;
    return decided;
}

}  // namespace

class TestCompareTile : public QObject {
    Q_OBJECT

  private slots:
    void bandKeysMatchCpu_data();
    void bandKeysMatchCpu();
    void triangleDecodeCoversEachTileOnce();
    void smallPairDecodeCoversEachPairOnce();
    void segmentLookupAndEdges();
    void comparisonMatchesCpu_data();
    void comparisonMatchesCpu();
    void hugeBucketIsSplitNotDropped();
    void settleSplitsWhenGrowingIsNotEnough();
};

void TestCompareTile::bandKeysMatchCpu_data() {
    QTest::addColumn<int>("scheme");  // 0 hash, 1 sum
    QTest::addColumn<qulonglong>("modulus");
    QTest::addColumn<int>("hashes");
    QTest::addColumn<int>("bands");
    QTest::addColumn<int>("rows");
    QTest::newRow("hash exact 16x8") << 0 << 0ull << 128 << 16 << 8;
    QTest::newRow("hash K=997 16x8") << 0 << 997ull << 128 << 16 << 8;
    QTest::newRow("sum exact 16x8") << 1 << 0ull << 128 << 16 << 8;
    QTest::newRow("sum K=40 16x8") << 1 << 40ull << 128 << 16 << 8;
    QTest::newRow("hash 9x11 of 100") << 0 << 0ull << 100 << 9 << 11;
    QTest::newRow("sum 100x1") << 1 << 3ull << 100 << 100 << 1;
}

void TestCompareTile::bandKeysMatchCpu() {
    QFETCH(int, scheme);
    QFETCH(qulonglong, modulus);
    QFETCH(int, hashes);
    QFETCH(int, bands);
    QFETCH(int, rows);
    const SignatureMatrix sigs =
        randomSignatures(700, hashes, static_cast<uint64_t>(hashes * 31 + bands));
    const LshParams lsh = banding(bands, rows, scheme != 0);
    const std::size_t n = sigs.size() * std::size_t(bands);
    std::vector<uint64_t> cpu(n), emulated(n, 0xDEADull);
    makeCpuBackend(2)->computeBandKeys(sigs, lsh, modulus, cpu.data());
    gpu::BandKeyArgs a;
    a.signatures = sigs.values.data();
    a.keys = emulated.data();
    a.docs = sigs.size();
    a.hashes = hashes;
    a.bands = bands;
    a.rows = rows;
    a.sumScheme = scheme;
    a.modulus = modulus;
    gpu::emulateBandKeyKernel(a);
    for (std::size_t i = 0; i < n; ++i)
        if (cpu[i] != emulated[i])
            QFAIL(qPrintable(QStringLiteral("doc %1 band %2: emulated %3, cpu %4")
                                 .arg(i / std::size_t(bands))
                                 .arg(i % std::size_t(bands))
                                 .arg(emulated[i])
                                 .arg(cpu[i])));
    // Keys differ between documents (the comparison could fail).
    QVERIFY(std::count(cpu.begin(), cpu.end(), cpu[0]) < static_cast<long>(n));
}

void TestCompareTile::triangleDecodeCoversEachTileOnce() {
    for (uint64_t tiles = 1; tiles <= 130; ++tiles) {
        uint64_t q = 0;
        for (uint64_t ti = 0; ti < tiles; ++ti)
            for (uint64_t tj = ti; tj < tiles; ++tj, ++q) {
                uint64_t gi = 0, gj = 0;
                gpu::triangleDecode(q, tiles, gi, gj);
                if (gi != ti || gj != tj)
                    QFAIL(qPrintable(QStringLiteral("tiles %1 task %2: (%3, %4), want (%5, %6)")
                                         .arg(tiles)
                                         .arg(q)
                                         .arg(gi)
                                         .arg(gj)
                                         .arg(ti)
                                         .arg(tj)));
            }
    }
    // Large triangles, where the closed form's double precision is at its limit: the first and
    // last task of rows around random points must decode to their row.
    std::mt19937_64 rng(5);
    for (uint64_t tiles : {uint64_t{1} << 20, uint64_t{67108863}, uint64_t{94906265}}) {
        auto start = [tiles](uint64_t r) { return r * tiles - r * (r - (r > 0 ? 1 : 0)) / 2; };
        for (int k = 0; k < 2000; ++k) {
            const uint64_t row = k < 2 ? (k == 0 ? 0 : tiles - 1) : rng() % tiles;
            for (uint64_t q : {start(row), start(row) + (tiles - 1 - row)}) {
                uint64_t gi = 0, gj = 0;
                gpu::triangleDecode(q, tiles, gi, gj);
                QCOMPARE(gi, row);
                QCOMPARE(gj, row + (q - start(row)));
            }
        }
    }
}

void TestCompareTile::smallPairDecodeCoversEachPairOnce() {
    for (uint32_t n = 2; n <= static_cast<uint32_t>(gpu::kSmallBucket); ++n) {
        uint32_t p = 0;
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = i + 1; j < n; ++j, ++p) {
                uint32_t gi = 0, gj = 0;
                gpu::smallPairDecode(p, n, gi, gj);
                QCOMPARE(gi, i);
                QCOMPARE(gj, j);
            }
    }
}

void TestCompareTile::segmentLookupAndEdges() {
    // Segments of 65 (ragged, 3 tasks), 64 (1 task) and cross 130 x 1 (3 x 1 tasks) rows.
    std::vector<gpu::TileSegment> segs(3);
    segs[0].aBegin = 0;
    segs[0].aCount = 65;
    segs[1].aBegin = 65;
    segs[1].aCount = 64;
    segs[2].aBegin = 129;
    segs[2].aCount = 130;
    segs[2].bBegin = 259;
    segs[2].bCount = 1;
    segs[2].same = 0;
    uint64_t begin = 0;
    for (auto& s : segs) {
        s.taskBegin = begin;
        begin += gpu::segmentTasks(s);
    }
    QCOMPARE(begin, uint64_t{3 + 1 + 3});
    gpu::CompareArgs a;
    a.tileSegments = segs.data();
    a.tileSegmentCount = 3;
    const gpu::TileWork first = gpu::locateTile(a, 0);
    QCOMPARE(first.aRow, 0u);
    QCOMPARE(first.aCount, 64u);
    QVERIFY(first.diagonal);
    const gpu::TileWork edge = gpu::locateTile(a, 1);  // tile (0, 1): 64 x 1
    QCOMPARE(edge.bRow, 64u);
    QCOMPARE(edge.bCount, 1u);
    QVERIFY(!edge.diagonal);
    const gpu::TileWork corner = gpu::locateTile(a, 2);  // tile (1, 1): 1 x 1, diagonal
    QCOMPARE(corner.aRow, 64u);
    QCOMPARE(corner.aCount, 1u);
    QVERIFY(corner.diagonal);
    QCOMPARE(gpu::locateTile(a, 3).aRow, 65u);
    const gpu::TileWork cross = gpu::locateTile(a, 6);  // third A tile against B
    QCOMPARE(cross.aRow, 129u + 128u);
    QCOMPARE(cross.aCount, 2u);
    QCOMPARE(cross.bRow, 259u);
    QCOMPARE(cross.bCount, 1u);
    QVERIFY(!cross.diagonal);
}

void TestCompareTile::comparisonMatchesCpu_data() {
    QTest::addColumn<int>("hashes");
    QTest::addColumn<int>("scheme");  // 0 hash (sparse buckets), 1 sum mod K (dense buckets)
    QTest::addColumn<qulonglong>("modulus");
    QTest::addColumn<int>("minMatches");
    QTest::addColumn<int>("passRows");     // 0: unlimited
    QTest::addColumn<int>("capacity");     // initial output buffer, pairs
    QTest::addColumn<int>("maxCapacity");  // beyond it a range is split
    QTest::addColumn<bool>("useKeys");
    QTest::newRow("hash H=64") << 64 << 0 << 0ull << 40 << 0 << 1000000 << 1000000 << true;
    QTest::newRow("hash H=100 min 0") << 100 << 0 << 0ull << 0 << 0 << 1000000 << 1000000 << true;
    QTest::newRow("sum K=5 H=64") << 64 << 1 << 5ull << 32 << 0 << 1000000 << 1000000 << true;
    QTest::newRow("sum K=7 H=96 small passes")
        << 96 << 1 << 7ull << 48 << 150 << 1000000 << 1000000 << true;
    QTest::newRow("sum K=3 overflow grows") << 64 << 1 << 3ull << 0 << 0 << 10 << 100000000 << true;
    QTest::newRow("sum K=3 overflow splits") << 64 << 1 << 3ull << 0 << 0 << 10 << 4096 << true;
    QTest::newRow("sum K=11 H=33 tiny passes, splits")
        << 33 << 1 << 11ull << 10 << 128 << 5 << 4096 << true;
}

void TestCompareTile::comparisonMatchesCpu() {
    QFETCH(int, hashes);
    QFETCH(int, scheme);
    QFETCH(qulonglong, modulus);
    QFETCH(int, minMatches);
    QFETCH(int, passRows);
    QFETCH(int, capacity);
    QFETCH(int, maxCapacity);
    QFETCH(bool, useKeys);
    const std::size_t n = scheme ? 900 : 3000;
    const SignatureMatrix sigs = makeSignatures(n, hashes, static_cast<uint64_t>(hashes + scheme));
    const LshParams lsh = comparisonBanding(hashes, scheme != 0, 6);
    std::vector<uint64_t> keys(n * std::size_t(lsh.bands));
    auto cpu = makeCpuBackend(2);
    cpu->computeBandKeys(sigs, lsh, modulus, keys.data());
    const CompareRequest req{&sigs, useKeys ? keys.data() : nullptr, lsh.bands, minMatches};
    Limits limits;
    if (passRows) limits.passRows = static_cast<uint64_t>(passRows);
    limits.capacity = static_cast<uint64_t>(capacity);
    limits.maxCapacity = static_cast<uint64_t>(maxCapacity);
    uint64_t totalDecided = 0, totalPairs = 0;
    std::size_t largest = 0;
    int overflowBands = 0;
    for (int band = 0; band < lsh.bands; ++band) {
        std::vector<BucketEntry> entries;
        BucketBatch batch;
        BandStats stats;
        buildBuckets(keys.data(), n, lsh.bands, band, sigs.eligible, 1, entries, batch, stats);
        largest = std::max<std::size_t>(largest, stats.maxSize);
        std::vector<ScoredPair> want, got;
        const uint64_t wantDecided = cpu->compareBuckets(batch, req, want);
        limits.shuffleSeed = static_cast<uint64_t>(band + 1);
        int overflows = 0;
        const uint64_t gotDecided =
            emulatedCompareBuckets(batch, req, limits, got, nullptr, &overflows);
        overflowBands += overflows > 0;
        const std::string diff = firstDifference(got, want);
        QVERIFY2(diff.empty(), ("band " + std::to_string(band) + ": " + diff).c_str());
        QCOMPARE(gotDecided, wantDecided);
        totalDecided += wantDecided;
        totalPairs += want.size();
    }
    // The case exercises what it claims: pairs were found, and dense buckets are dense.
    QVERIFY(totalPairs > 0);
    QVERIFY(totalDecided >= totalPairs);
    if (scheme) QVERIFY(largest > 100);
    if (capacity < 1000) QVERIFY(overflowBands > 0);
}

void TestCompareTile::hugeBucketIsSplitNotDropped() {
    // One bucket of 700 documents (some exact copies) with passes of 200 rows: split into chunks
    // of 64 leaders, compared chunk pair by chunk pair.
    const SignatureMatrix sigs = makeSignatures(700, 64, 99);
    BucketBatch batch;
    batch.band = 0;
    for (uint32_t i = 0; i < 700; ++i)
        batch.members.push_back(i);
    batch.bucketBegin = {0, 700};
    const CompareRequest req{&sigs, nullptr, 1, 20};
    std::vector<ScoredPair> want, got;
    const uint64_t wantDecided = makeCpuBackend(2)->compareBuckets(batch, req, want);
    Limits limits;
    limits.passRows = 200;
    limits.shuffleSeed = 3;
    int passes = 0;
    const uint64_t gotDecided = emulatedCompareBuckets(batch, req, limits, got, &passes);
    const std::string diff = firstDifference(got, want);
    QVERIFY2(diff.empty(), diff.c_str());
    QCOMPARE(gotDecided, wantDecided);
    QVERIFY(passes > 1);
    QVERIFY(!want.empty());
}

void TestCompareTile::settleSplitsWhenGrowingIsNotEnough() {
    // 10 tasks of 1000 pairs each; the buffer holds 1500 and cannot grow beyond 2500: the range
    // is halved until each part fits, and every pair is collected exactly once.
    std::vector<uint64_t> collectedRanges;
    uint64_t lastBegin = 0, lastEnd = 0;
    const auto launch = [&](uint64_t b, uint64_t e) {
        lastBegin = b;
        lastEnd = e;
        return gpu::CompareCounters{(e - b) * 1000, e - b};
    };
    uint64_t capacity = 1500;
    const auto grow = [&](uint64_t pairs) {
        capacity = pairs;
        return pairs;
    };
    uint64_t collected = 0;
    const auto collect = [&](uint64_t found) {
        collected += found;
        collectedRanges.push_back(lastEnd - lastBegin);
    };
    const uint64_t decided =
        gpu::settleTasks(0, 10, launch(0, 10), capacity, 2500, launch, grow, collect);
    QCOMPARE(decided, uint64_t{10});
    QCOMPARE(collected, uint64_t{10000});
    for (uint64_t r : collectedRanges)
        QVERIFY(r <= 2);
}

QTEST_GUILESS_MAIN(TestCompareTile)
#include "test_compare_tile.moc"
