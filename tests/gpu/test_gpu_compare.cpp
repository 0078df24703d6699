// The CUDA backend's band keys and bucket comparison against the CPU backend's: keys bit for
// bit, pairs with their match counts and the decided counts exactly. Needs a GPU: skips as a
// whole (CTest: "Skipped") where queryGpus() finds none. The kernels' per-thread logic and the
// host side are also tested without a GPU by test_compare_tile.
#include <QtTest>

#include <memory>
#include <string>
#include <vector>

#include "backend_factory.h"
#include "compare_test_data.h"
#include "cuda_support.h"
#include "gpu_test_streams.h"
#include "lsh_buckets.h"
#include "signatures.h"

using namespace neardup;
using neardup::testing::banding;
using neardup::testing::comparisonBanding;
using neardup::testing::firstDifference;
using neardup::testing::makeSignatures;
using neardup::testing::randomSignatures;

class TestGpuCompare : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void bandKeysMatchCpu_data();
    void bandKeysMatchCpu();
    void comparisonMatchesCpu_data();
    void comparisonMatchesCpu();
    void emptyBatches();

  private:
    // The default backend, and one whose chunks, passes and output buffers are forced tiny so
    // that streaming, splitting and overflow handling run on a small input.
    std::unique_ptr<Backend> gpu_, tiny_;
    std::unique_ptr<Backend> cpu_;
};

void TestGpuCompare::initTestCase() {
    std::string whyNot;
    gpu_ = testing::firstCudaBackend(whyNot);
    if (!gpu_) QSKIP(whyNot.c_str());
    qputenv("NEARDUP_CUDA_CHUNK_BYTES", "4096");
    qputenv("NEARDUP_CUDA_PASS_ROWS", "130");
    qputenv("NEARDUP_CUDA_PAIR_CAPACITY", "7");
    qputenv("NEARDUP_CUDA_MAX_PAIRS", "4096");
    tiny_ = makeBackend("cuda", 0);
    qunsetenv("NEARDUP_CUDA_CHUNK_BYTES");
    qunsetenv("NEARDUP_CUDA_PASS_ROWS");
    qunsetenv("NEARDUP_CUDA_PAIR_CAPACITY");
    qunsetenv("NEARDUP_CUDA_MAX_PAIRS");
    cpu_ = makeCpuBackend(0);
    qInfo("%s", gpu_->description().c_str());
}

void TestGpuCompare::bandKeysMatchCpu_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<qulonglong>("modulus");
    QTest::addColumn<int>("bands");
    QTest::addColumn<int>("rows");
    QTest::addColumn<bool>("tiny");
    for (bool tiny : {false, true}) {
        const char* t = tiny ? " tiny chunks" : "";
        QTest::addRow("hash exact%s", t) << 0 << 0ull << 16 << 8 << tiny;
        QTest::addRow("hash K=997%s", t) << 0 << 997ull << 16 << 8 << tiny;
        QTest::addRow("sum exact%s", t) << 1 << 0ull << 16 << 8 << tiny;
        QTest::addRow("sum K=40%s", t) << 1 << 40ull << 12 << 10 << tiny;
    }
}

void TestGpuCompare::bandKeysMatchCpu() {
    QFETCH(int, scheme);
    QFETCH(qulonglong, modulus);
    QFETCH(int, bands);
    QFETCH(int, rows);
    QFETCH(bool, tiny);
    const SignatureMatrix sigs =
        randomSignatures(5000, 128, static_cast<uint64_t>(bands * 7 + scheme));
    const LshParams lsh = banding(bands, rows, scheme != 0);
    const std::size_t n = sigs.size() * std::size_t(bands);
    std::vector<uint64_t> cpu(n), gpu(n, 0xDEADull);
    cpu_->computeBandKeys(sigs, lsh, modulus, cpu.data());
    (tiny ? tiny_ : gpu_)->computeBandKeys(sigs, lsh, modulus, gpu.data());
    for (std::size_t i = 0; i < n; ++i)
        if (cpu[i] != gpu[i])
            QFAIL(qPrintable(QStringLiteral("doc %1 band %2: gpu %3, cpu %4")
                                 .arg(i / std::size_t(bands))
                                 .arg(i % std::size_t(bands))
                                 .arg(gpu[i])
                                 .arg(cpu[i])));
}

void TestGpuCompare::comparisonMatchesCpu_data() {
    QTest::addColumn<int>("hashes");
    QTest::addColumn<int>("scheme");
    QTest::addColumn<qulonglong>("modulus");
    QTest::addColumn<int>("minMatches");
    QTest::addColumn<bool>("tiny");
    for (bool tiny : {false, true}) {
        const char* t = tiny ? " tiny" : "";
        QTest::addRow("hash H=128%s", t) << 128 << 0 << 0ull << 64 << tiny;
        QTest::addRow("hash H=100 min 0%s", t) << 100 << 0 << 0ull << 0 << tiny;
        QTest::addRow("sum K=5 H=128%s", t) << 128 << 1 << 5ull << 64 << tiny;
        QTest::addRow("sum K=3 H=64 min 0%s", t) << 64 << 1 << 3ull << 0 << tiny;
        QTest::addRow("sum K=9 H=33%s", t) << 33 << 1 << 9ull << 10 << tiny;
    }
}

void TestGpuCompare::comparisonMatchesCpu() {
    QFETCH(int, hashes);
    QFETCH(int, scheme);
    QFETCH(qulonglong, modulus);
    QFETCH(int, minMatches);
    QFETCH(bool, tiny);
    const std::size_t n = scheme ? 2000 : 6000;
    const SignatureMatrix sigs = makeSignatures(n, hashes, static_cast<uint64_t>(hashes + scheme));
    const LshParams lsh = comparisonBanding(hashes, scheme != 0, 8);
    std::vector<uint64_t> keys(n * std::size_t(lsh.bands));
    cpu_->computeBandKeys(sigs, lsh, modulus, keys.data());
    const CompareRequest req{&sigs, keys.data(), lsh.bands, minMatches};
    Backend& gpu = tiny ? *tiny_ : *gpu_;
    uint64_t pairs = 0;
    for (int band = 0; band < lsh.bands; ++band) {
        std::vector<BucketEntry> entries;
        BucketBatch batch;
        BandStats stats;
        buildBuckets(keys.data(), n, lsh.bands, band, sigs.eligible, 1, entries, batch, stats);
        std::vector<ScoredPair> want, got;
        const uint64_t wantDecided = cpu_->compareBuckets(batch, req, want);
        const uint64_t gotDecided = gpu.compareBuckets(batch, req, got);
        const std::string diff = firstDifference(got, want);
        QVERIFY2(diff.empty(), ("band " + std::to_string(band) + ": " + diff).c_str());
        QCOMPARE(gotDecided, wantDecided);
        pairs += want.size();
    }
    QVERIFY(pairs > 0);
}

void TestGpuCompare::emptyBatches() {
    SignatureMatrix sigs;
    sigs.resize(0, 64);
    LshParams lsh;
    std::vector<uint64_t> none;
    gpu_->computeBandKeys(sigs, lsh, 0, none.data());
    BucketBatch batch;
    const CompareRequest req{&sigs, nullptr, lsh.bands, 10};
    std::vector<ScoredPair> out;
    QCOMPARE(gpu_->compareBuckets(batch, req, out), uint64_t{0});
    batch.bucketBegin = {0};
    QCOMPARE(gpu_->compareBuckets(batch, req, out), uint64_t{0});
    QVERIFY(out.empty());
}

QTEST_GUILESS_MAIN(TestGpuCompare)
#include "test_gpu_compare.moc"
