// The CUDA backend's signatures against the CPU backend's, bit for bit. Needs a GPU: skips as a
// whole (CTest: "Skipped") where queryGpus() finds none. The kernel's schedule is also tested
// without a GPU by test_signature_block; the factory by test_backend_factory.
#include <QtTest>

#include <memory>
#include <string>
#include <vector>

#include "backend_factory.h"
#include "cuda_support.h"
#include "gpu_test_streams.h"
#include "hash_math.h"
#include "signatures.h"

using namespace neardup;

namespace {

HashConstants constants(HashFamily family, int k, int hashes) {
    SignatureParams p;
    p.family = family;
    p.ngram = k;
    p.hashes = hashes;
    p.seed = 0x5EEDull + static_cast<uint64_t>(k * 10000 + hashes);
    return HashConstants::derive(p);
}

// Empty string when equal, else where they first differ.
std::string compareRows(const SymbolBatch& batch, const std::vector<uint32_t>& gpu,
                        const std::vector<uint32_t>& cpu, int hashes) {
    const auto h = static_cast<std::size_t>(hashes);
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        if (gpu[i] == cpu[i]) continue;
        const std::size_t doc = i / h;
        return "document " + std::to_string(doc) + " (length " +
               std::to_string(batch.docEnd[doc] - batch.docBegin(doc)) + "), function " +
               std::to_string(i % h) + ": gpu " + std::to_string(gpu[i]) + ", cpu " +
               std::to_string(cpu[i]);
    }
    return {};
}

}  // namespace

class TestGpuSignatures : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void matchesCpu_data();
    void matchesCpu();
    void buffersAreReusedAcrossBatches();
    void emptyAndTinyBatches();
    void streamedInSmallChunks();

  private:
    std::unique_ptr<Backend> gpu_;
    std::unique_ptr<Backend> cpu_;
};

void TestGpuSignatures::initTestCase() {
    std::string whyNot;
    gpu_ = testing::firstCudaBackend(whyNot);
    if (!gpu_) QSKIP(whyNot.c_str());
    cpu_ = makeCpuBackend(0);
    qInfo("%s", gpu_->description().c_str());
}

void TestGpuSignatures::matchesCpu_data() {
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("hashes");
    for (int family : {0, 1})
        for (int k : {1, 5, 9})
            for (int h : {64, 128, 256})
                QTest::addRow("%s k=%d H=%d", family == 0 ? "rolling" : "permute", k, h)
                    << family << k << h;
    // Partial warps, and the largest valid H (the most shared memory per block).
    QTest::addRow("rolling k=5 H=100") << 0 << 5 << 100;
    QTest::addRow("permute k=5 H=100") << 1 << 5 << 100;
    QTest::addRow("rolling k=64 H=4096") << 0 << 64 << 4096;
    QTest::addRow("permute k=64 H=4096") << 1 << 64 << 4096;
    // The one-permutation sketch (family 2): bins filled by an atomic minimum, then densified.
    for (int k : {1, 5, 9})
        for (int h : {64, 128, 256})
            QTest::addRow("oph k=%d H=%d", k, h) << 2 << k << h;
    QTest::addRow("oph k=64 H=4096") << 2 << 64 << 4096;
}

void TestGpuSignatures::matchesCpu() {
    QFETCH(int, family);
    QFETCH(int, k);
    QFETCH(int, hashes);
    HashConstants c = constants(family == 0 ? HashFamily::Rolling : HashFamily::Permute, k, hashes);
    if (family == 2) c.sketch = SketchKind::Oph;
    const SymbolBatch batch = testing::randomStreams(hashes > 256 ? 300 : 2000, k, 20000, 99 + k);
    const std::size_t n = batch.size() * std::size_t(hashes);
    std::vector<uint32_t> cpu(n), gpu(n, 0x5A5A5A5Au);
    cpu_->computeSignatures(batch, c, cpu.data());
    gpu_->computeSignatures(batch, c, gpu.data());
    const std::string diff = compareRows(batch, gpu, cpu, hashes);
    QVERIFY2(diff.empty(), diff.c_str());
    QVERIFY(cpu[std::size_t(hashes)] != hashmath::kEmptySlot);  // document 1 is non-empty
}

void TestGpuSignatures::buffersAreReusedAcrossBatches() {
    // Small, large, small again, alternating families: stale buffers or constants would show.
    const HashConstants rolling = constants(HashFamily::Rolling, 5, 128);
    const HashConstants permute = constants(HashFamily::Permute, 5, 128);
    const std::vector<SymbolBatch> batches = {testing::randomStreams(10, 5, 100, 1),
                                              testing::randomStreams(1500, 5, 20000, 2),
                                              testing::randomStreams(30, 5, 50, 3)};
    int round = 0;
    for (const SymbolBatch& batch : batches) {
        for (const HashConstants* c : {&rolling, &permute}) {
            const std::size_t n = batch.size() * 128;
            std::vector<uint32_t> cpu(n), gpu(n, 0);
            cpu_->computeSignatures(batch, *c, cpu.data());
            gpu_->computeSignatures(batch, *c, gpu.data());
            const std::string diff = compareRows(batch, gpu, cpu, 128);
            QVERIFY2(diff.empty(), (std::to_string(round) + ": " + diff).c_str());
            ++round;
        }
    }
}

void TestGpuSignatures::emptyAndTinyBatches() {
    const HashConstants c = constants(HashFamily::Permute, 5, 64);
    SymbolBatch none;
    std::vector<uint32_t> untouched(4, 7u);
    gpu_->computeSignatures(none, c, untouched.data());
    QCOMPARE(untouched, std::vector<uint32_t>(4, 7u));

    SymbolBatch empties;
    empties.docEnd = {0, 0, 0};
    std::vector<uint32_t> out(3 * 64, 0);
    gpu_->computeSignatures(empties, c, out.data());
    QCOMPARE(out, std::vector<uint32_t>(3 * 64, hashmath::kEmptySlot));
}

void TestGpuSignatures::streamedInSmallChunks() {
    // Chunks of at most 64 KiB: a batch becomes dozens of chunks alternating between the two
    // streams (a document larger than a chunk gets a chunk of its own).
    qputenv("NEARDUP_CUDA_CHUNK_BYTES", "65536");
    const std::unique_ptr<Backend> streamed = makeBackend("cuda", 0);
    qunsetenv("NEARDUP_CUDA_CHUNK_BYTES");
    for (HashFamily family : {HashFamily::Rolling, HashFamily::Permute}) {
        const HashConstants c = constants(family, 5, 128);
        const SymbolBatch batch = testing::randomStreams(3000, 5, 40000, 17);
        const std::size_t n = batch.size() * 128;
        std::vector<uint32_t> cpu(n), gpu(n, 0x5A5A5A5Au);
        cpu_->computeSignatures(batch, c, cpu.data());
        streamed->computeSignatures(batch, c, gpu.data());
        const std::string diff = compareRows(batch, gpu, cpu, 128);
        QVERIFY2(diff.empty(), diff.c_str());
    }
}

QTEST_GUILESS_MAIN(TestGpuSignatures)
#include "test_gpu_signatures.moc"
