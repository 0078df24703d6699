// The CUDA signature kernel's schedule (tiles, halos, functions per thread), run on the host
// thread by thread and compared with the CPU backend. Needs no GPU: this is how machines without
// one test what the kernel does beyond the shared hash math.
#include <QtTest>

#include <vector>

#include "backend.h"
#include "gpu_test_streams.h"
#include "hash_math.h"
#include "oph_sketch.h"
#include "signature_block.h"
#include "signatures.h"

using namespace neardup;

namespace {

gpu::SignatureArgs argsFor(const SymbolBatch& batch, const HashConstants& c,
                           std::vector<uint32_t>& out) {
    gpu::SignatureArgs a;
    a.symbols = batch.symbols.data();
    a.docEnd = batch.docEnd.data();
    a.docs = static_cast<uint32_t>(batch.size());
    a.family = c.sketch == SketchKind::Oph       ? gpu::SignatureFamily::Oph
               : c.family == HashFamily::Rolling ? gpu::SignatureFamily::Rolling
                                                 : gpu::SignatureFamily::Permute;
    a.ophSalt = c.ophSalt;
    a.ngram = c.ngram;
    a.hashes = c.hashes;
    a.rollBase = c.rollBase.data();
    a.rollTop = c.rollTop.data();
    a.rollMul = c.rollMul.data();
    a.rollAdd = c.rollAdd.data();
    a.fpBase = c.fpBase;
    a.fpSalt = c.fpSalt;
    a.permA = c.permA.data();
    a.permB = c.permB.data();
    out.assign(batch.size() * std::size_t(c.hashes), 0x5A5A5A5Au);
    a.out = out.data();
    return a;
}

// family 0: rolling, 1: permute, 2: one-permutation sketch (permute fingerprints).
HashConstants constants(int family, int k, int hashes) {
    SignatureParams p;
    p.family = family == 0 ? HashFamily::Rolling : HashFamily::Permute;
    p.sketch = family == 2 ? SketchKind::Oph : SketchKind::Classic;
    p.ngram = k;
    p.hashes = hashes;
    p.seed = 0xC0FFEEull + static_cast<uint64_t>(k * 1000 + hashes);
    return HashConstants::derive(p);
}

// First differing document, or -1.
long long firstMismatch(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, int h) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return static_cast<long long>(i / std::size_t(h));
    return -1;
}

}  // namespace

class TestSignatureBlock : public QObject {
    Q_OBJECT

  private slots:
    void shapeAndSharedMemory();
    void emulatedKernelMatchesCpu_data();
    void emulatedKernelMatchesCpu();
    void emptyStreamIsAllEmptySlots();
    void ophProbesAgreeWithCore();
};

void TestSignatureBlock::shapeAndSharedMemory() {
    using gpu::SignatureFamily;
    QCOMPARE(gpu::signatureBlockShape(1, SignatureFamily::Permute).threads, 64);
    QCOMPARE(gpu::signatureBlockShape(100, SignatureFamily::Permute).threads, 128);
    QCOMPARE(gpu::signatureBlockShape(4096, SignatureFamily::Rolling).threads, 256);
    // The largest valid parameters (4096 hashes, k = 64) fit the default 48 KiB of shared memory.
    for (auto family : {SignatureFamily::Rolling, SignatureFamily::Permute, SignatureFamily::Oph}) {
        gpu::SignatureArgs a;
        a.family = family;
        a.hashes = 4096;
        a.ngram = 64;
        QVERIFY(gpu::signatureSharedBytes(a, gpu::signatureBlockShape(4096, family)) <= 48 * 1024);
    }
}

void TestSignatureBlock::emulatedKernelMatchesCpu_data() {
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("hashes");
    QTest::addColumn<int>("threads");  // 0: the kernel's own shape
    QTest::addColumn<int>("tile");
    for (int family : {0, 1, 2}) {
        const char* name = family == 0 ? "rolling" : (family == 1 ? "permute" : "oph");
        for (int k : {1, 5, 9}) {
            for (int h : {64, 256})
                QTest::addRow("%s k=%d H=%d", name, k, h) << family << k << h << 0 << 0;
            // More functions than threads, partial warps and tiles shorter than k.
            QTest::addRow("%s k=%d H=100 32x5", name, k) << family << k << 100 << 32 << 5;
            QTest::addRow("%s k=%d H=70 64x1", name, k) << family << k << 70 << 64 << 1;
        }
    }
}

void TestSignatureBlock::emulatedKernelMatchesCpu() {
    QFETCH(int, family);
    QFETCH(int, k);
    QFETCH(int, hashes);
    QFETCH(int, threads);
    QFETCH(int, tile);
    const HashConstants c = constants(family, k, hashes);
    const bool smallTile = tile > 0 && tile < 4;
    const SymbolBatch batch =
        testing::randomStreams(smallTile ? 120 : 300, k, smallTile ? 3000 : 20000, 7 + k);

    std::vector<uint32_t> expected(batch.size() * std::size_t(hashes));
    makeCpuBackend(0)->computeSignatures(batch, c, expected.data());

    std::vector<uint32_t> emulated;
    const gpu::SignatureArgs a = argsFor(batch, c, emulated);
    gpu::BlockShape shape = gpu::signatureBlockShape(hashes, a.family);
    if (threads > 0) shape = {threads, tile};
    gpu::emulateSignatureKernel(a, shape);

    const long long doc = firstMismatch(emulated, expected, hashes);
    if (doc >= 0)
        QFAIL(qPrintable(
            QStringLiteral("document %1 (length %2) differs")
                .arg(doc)
                .arg(batch.docEnd[std::size_t(doc)] - batch.docBegin(std::size_t(doc)))));
    // The comparison must be able to fail: a non-empty stream never yields the empty marker.
    QVERIFY(emulated[std::size_t(hashes)] != hashmath::kEmptySlot);
}

void TestSignatureBlock::emptyStreamIsAllEmptySlots() {
    SymbolBatch batch;
    batch.docEnd = {0, 0};
    const HashConstants c = constants(0, 5, 64);
    std::vector<uint32_t> out;
    const gpu::SignatureArgs a = argsFor(batch, c, out);
    gpu::emulateSignatureKernel(a, gpu::signatureBlockShape(64, a.family));
    for (uint32_t v : out)
        QCOMPARE(v, hashmath::kEmptySlot);
}

void TestSignatureBlock::ophProbesAgreeWithCore() {
    QCOMPARE(gpu::kOphProbeCount, kOphProbes);
    for (uint64_t f : {uint64_t{0}, ~uint64_t{0}, uint64_t{0x123456789ABCDEFull}})
        for (uint32_t bins : {1u, 100u, 4096u}) {
            QCOMPARE(gpu::ophBinOf(f, bins), ophBin(f, bins));
            QCOMPARE(gpu::ophValueOf(f), ophValue(f));
        }
}

QTEST_GUILESS_MAIN(TestSignatureBlock)
#include "test_signature_block.moc"
