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
    void initTestCase() { installCudaBackends(); }
    void inventoryIsConsistent();
    void cpuOnRequest();
    void cudaRequest();
    void autoChoice();
    void unknownNameIsRejected();
    void withoutDeviceBackendsOnlyCpu();
    void deviceSelectionThroughTheSeam();
    void cleanupTestCase() { installCudaBackends(); }
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
        QVERIFY2(message.rfind("backend cuda: ", 0) == 0, e.what());
        QVERIFY(e.option() == BackendOption::Backend);
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
            QVERIFY(e.option() == BackendOption::Backend);
        }
    }
}

// Front ends that install no device backends (a CPU-only tool) get CPU backends, and "auto" says
// why; "cuda" is refused.
void TestBackendFactory::withoutDeviceBackendsOnlyCpu() {
    installDeviceBackends(DeviceBackends{});
    const GpuInventory inv = queryGpus();
    QVERIFY(!inv.compiledIn);
    QCOMPARE(inv.status, std::string("CUDA not compiled in"));
    std::string reason;
    QCOMPARE(makeBackend("auto", 1, &reason)->description(), std::string("cpu (1 thread)"));
    QCOMPARE(reason, std::string("cpu: CUDA not compiled in"));
    try {
        makeBackend("cuda", 1);
        QFAIL("cuda accepted without device backends");
    } catch (const BackendError& e) {
        QCOMPARE(std::string(e.what()), std::string("backend cuda: CUDA not compiled in"));
    }
    installCudaBackends();
}

// The factory's choice among devices, driven through the seam by two stand-in devices whose
// backends are CPU backends: the default device, "all", a list, an unknown index, workers per
// device, and a device that fails to start (auto falls back, cuda is refused).
void TestBackendFactory::deviceSelectionThroughTheSeam() {
    std::vector<int> started;
    DeviceBackends fake;
    fake.compiledIn = true;
    fake.query = [] {
        GpuInventory inv;
        inv.compiledIn = true;
        inv.status = "2 devices";
        for (const int index : {0, 2}) {
            GpuDevice d;
            d.index = index;
            d.name = "stand-in " + std::to_string(index);
            d.computeMajor = 9;
            inv.devices.push_back(d);
        }
        return inv;
    };
    fake.make = [&started](int device, int threads) -> std::unique_ptr<Backend> {
        if (device == 2 && threads == 7) throw BackendError("stand-in 2 failed to start");
        started.push_back(device);
        return makeCpuBackend(threads);
    };
    installDeviceBackends(fake);

    BackendOptions o;
    o.name = "cuda";
    o.threads = 4;
    std::string reason;
    QCOMPARE(makeBackend(o, &reason)->description(), std::string("cpu (4 threads)"));
    QCOMPARE(started, std::vector<int>{0});
    QVERIFY2(reason.find("(device 0; requested)") != std::string::npos, reason.c_str());

    started.clear();
    o.devices = "all";
    QCOMPARE(makeBackend(o, &reason)->description().rfind("2 workers: ", 0), std::size_t(0));
    QCOMPARE(started, (std::vector<int>{0, 2}));
    QVERIFY2(reason.find("devices 0,2") != std::string::npos, reason.c_str());

    started.clear();
    o.devices = "2";
    o.workers = 3;
    makeBackend(o, &reason);
    QCOMPARE(started, (std::vector<int>{2, 2, 2}));
    QVERIFY2(reason.find("3 workers per GPU") != std::string::npos, reason.c_str());

    o.workers = 1;
    o.devices = "1";
    try {
        makeBackend(o);
        QFAIL("device 1 accepted");
    } catch (const BackendError& e) {
        QCOMPARE(std::string(e.what()),
                 std::string("devices: no usable GPU 1; usable devices: 0,2"));
        QVERIFY(e.option() == BackendOption::Devices);
    }

    o.devices = "2";
    o.threads = 7;
    try {
        makeBackend(o);
        QFAIL("a device that fails to start was accepted with --backend cuda");
    } catch (const BackendError& e) {
        QCOMPARE(std::string(e.what()), std::string("backend cuda: stand-in 2 failed to start"));
    }
    o.name = "auto";
    QCOMPARE(makeBackend(o, &reason)->description(), std::string("cpu (7 threads)"));
    QVERIFY2(reason.rfind("cpu: the CUDA backend failed to start (stand-in 2", 0) == 0,
             reason.c_str());
    installCudaBackends();
}

QTEST_GUILESS_MAIN(TestBackendFactory)
#include "test_backend_factory.moc"
