// Backend selection and the GPU inventory. Runs everywhere: on machines without a GPU (or
// without the CUDA backend) it checks that CUDA is refused with a reason and that "auto" falls
// back to the CPU; with a GPU, that "cuda" and "auto" pick it.
#include <QtTest>

#include <string>

#include "backend_factory.h"
#include "cuda_support.h"

using namespace neardup;

class TestBackendFactory : public QObject {
    Q_OBJECT

  private slots:
    void inventoryIsConsistent();
    void cpuOnRequest();
    void cudaRequest();
    void autoChoice();
    void unknownNameIsRejected();
};

void TestBackendFactory::inventoryIsConsistent() {
    const GpuInventory inv = queryGpus();
    QCOMPARE(inv.compiledIn, bool(NEARDUP_HAVE_CUDA));
    QVERIFY(!inv.status.empty());
    if (!inv.compiledIn) {
        QCOMPARE(inv.status, std::string("CUDA not compiled in"));
        QVERIFY(inv.devices.empty());
    }
    for (const GpuDevice& d : inv.devices) {
        QVERIFY(!d.name.empty());
        QVERIFY(d.totalMemory > 0);
        QVERIFY(d.freeMemory <= d.totalMemory);
        QVERIFY(d.computeMajor * 10 + d.computeMinor >= 75);
    }
    QCOMPARE(cudaSignaturesAvailable(), inv.compiledIn && !inv.devices.empty());
    // Asking twice gives the same answer (no state left behind by the first query).
    const GpuInventory again = queryGpus();
    QCOMPARE(again.status, inv.status);
    QCOMPARE(again.devices.size(), inv.devices.size());
}

void TestBackendFactory::cpuOnRequest() {
    std::string reason;
    const auto backend = makeBackend("cpu", 2, &reason);
    QVERIFY(backend);
    QCOMPARE(backend->description(), std::string("cpu (2 threads)"));
    QVERIFY(reason.rfind("cpu", 0) == 0);
}

void TestBackendFactory::cudaRequest() {
    const GpuInventory inv = queryGpus();
    if (!inv.devices.empty()) {
        std::string reason;
        const auto backend = makeBackend("cuda", 1, &reason);
        QVERIFY(backend);
        QVERIFY(backend->description().rfind("cuda: ", 0) == 0);
        QVERIFY(reason.rfind("cuda: ", 0) == 0);
        return;
    }
    try {
        makeBackend("cuda", 1);
        QFAIL("makeBackend(\"cuda\") succeeded without a usable GPU");
    } catch (const BackendError& e) {
        const std::string message = e.what();
        QVERIFY2(message.rfind("--backend cuda: ", 0) == 0, e.what());
        // The message carries the inventory's reason, e.g. "no CUDA driver ..." here.
        QVERIFY2(message.find(inv.status) != std::string::npos, e.what());
    }
}

void TestBackendFactory::autoChoice() {
    const GpuInventory inv = queryGpus();
    std::string reason;
    const auto backend = makeBackend("auto", 1, &reason);
    QVERIFY(backend);
    if (inv.devices.empty()) {
        QCOMPARE(backend->description(), std::string("cpu (1 thread)"));
        QVERIFY2(reason.rfind("cpu: ", 0) == 0, reason.c_str());
        QVERIFY2(reason.find(inv.status) != std::string::npos, reason.c_str());
    } else {
        QVERIFY(backend->description().rfind("cuda: ", 0) == 0);
        QVERIFY2(reason.rfind("cuda: ", 0) == 0, reason.c_str());
    }
}

void TestBackendFactory::unknownNameIsRejected() {
    for (const char* name : {"gpu", "", "CUDA", "opencl"}) {
        try {
            makeBackend(name, 1);
            QFAIL(qPrintable(QStringLiteral("accepted backend '%1'").arg(QLatin1String(name))));
        } catch (const BackendError& e) {
            QVERIFY(std::string(e.what()).find("expected cpu, cuda or auto") != std::string::npos);
        }
    }
}

QTEST_GUILESS_MAIN(TestBackendFactory)
#include "test_backend_factory.moc"
