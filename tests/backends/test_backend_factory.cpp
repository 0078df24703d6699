// Backend selection and the GPU inventory. Runs everywhere: on machines without a GPU (or
// without the CUDA backend) it checks that CUDA is refused with a reason and that "auto" falls
// back to the CPU; with a GPU, that "cuda" and "auto" pick it.
#include <QtTest>

#include <functional>
#include <string>
#include <vector>

#include "backend_factory.h"
#include "cuda_support.h"

using namespace neardup;

namespace {

// Stand-in devices with these indices for the factory's seam; their backends are CPU backends.
// `started` records each device started; those for which `fails(device, threads)` holds fail to
// start.
DeviceBackends standInDevices(const std::vector<int>& indices, std::vector<int>& started,
                              std::function<bool(int, int)> fails = {}) {
    DeviceBackends fake;
    fake.compiledIn = true;
    fake.query = [indices] {
        GpuInventory inv;
        inv.compiledIn = true;
        inv.status =
            std::to_string(indices.size()) + (indices.size() == 1 ? " device" : " devices");
        for (const int index : indices) {
            GpuDevice d;
            d.index = index;
            d.name = "stand-in " + std::to_string(index);
            d.computeMajor = 9;
            inv.devices.push_back(d);
        }
        return inv;
    };
    fake.make = [&started, fails](int device, int threads) -> std::unique_ptr<Backend> {
        if (fails && fails(device, threads))
            throw BackendError("stand-in " + std::to_string(device) + " failed to start");
        started.push_back(device);
        return makeCpuBackend(threads);
    };
    return fake;
}

}  // namespace

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
    void autoKeepsManyThreadsOnTheCpu();
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
    installDeviceBackends(standInDevices(
        {0, 2}, started, [](int device, int threads) { return device == 2 && threads == 7; }));

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

// "auto" keeps a run of the default kind (oph, hash band keys) on the CPU from
// kCpuOutrunsGpuThreads threads on, where the CPU finished it sooner than the GPU: the stand-in
// device is not even started. Fewer threads, another sketch or band keys, named devices and
// --backend cuda still get the device.
void TestBackendFactory::autoKeepsManyThreadsOnTheCpu() {
    std::vector<int> started;
    installDeviceBackends(standInDevices({0}, started));

    RunParams params;
    params.threads = kCpuOutrunsGpuThreads;
    BackendOptions o = backendOptions(params);
    QCOMPARE(o.name, std::string("auto"));
    QCOMPARE(o.cpuOutrunsGpuFrom, kCpuOutrunsGpuThreads);
    QVERIFY(autoKeepsToCpu(o));
    std::string reason;
    QCOMPARE(makeBackend(o, &reason)->description(),
             "cpu (" + std::to_string(kCpuOutrunsGpuThreads) + " threads)");
    QVERIFY(started.empty());
    QVERIFY2(reason.rfind("cpu: auto: " + std::to_string(kCpuOutrunsGpuThreads) +
                              " CPU threads finish a run",
                          0) == 0,
             reason.c_str());
    QVERIFY2(
        reason.find("sooner than the GPU (1 device; --backend cuda uses it)") != std::string::npos,
        reason.c_str());

    // One thread fewer: the device.
    params.threads = kCpuOutrunsGpuThreads - 1;
    o = backendOptions(params);
    QVERIFY(!autoKeepsToCpu(o));
    makeBackend(o, &reason);
    QCOMPARE(started, std::vector<int>{0});
    QVERIFY2(reason.find("(device 0; auto: 1 device)") != std::string::npos, reason.c_str());

    // Work the GPU speeds up: the classic sketch, or sum keys (dense buckets).
    params.threads = 16;
    params.signature.sketch = SketchKind::Classic;
    QCOMPARE(backendOptions(params).cpuOutrunsGpuFrom, 0);
    started.clear();
    makeBackend(backendOptions(params), &reason);
    QCOMPARE(started, std::vector<int>{0});
    params.signature.sketch = SketchKind::Oph;
    params.lsh.scheme = BandKeyScheme::Sum;
    QCOMPARE(backendOptions(params).cpuOutrunsGpuFrom, 0);
    params.lsh.scheme = BandKeyScheme::Hash;

    // Asked for: a named device, or --backend cuda.
    params.devices = "0";
    started.clear();
    QVERIFY(!autoKeepsToCpu(backendOptions(params)));
    makeBackend(backendOptions(params), &reason);
    QCOMPARE(started, std::vector<int>{0});
    params.devices.clear();
    params.backend = "cuda";
    started.clear();
    makeBackend(backendOptions(params), &reason);
    QCOMPARE(started, std::vector<int>{0});
    QVERIFY2(reason.find("(device 0; requested)") != std::string::npos, reason.c_str());
    installCudaBackends();
}

QTEST_GUILESS_MAIN(TestBackendFactory)
#include "test_backend_factory.moc"
