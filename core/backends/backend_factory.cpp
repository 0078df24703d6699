// Backend selection. Knows nothing about CUDA itself: it asks the device backends that gpu/
// installed (installDeviceBackends), if any.
#include "backend_factory.h"

#include <algorithm>
#include <exception>
#include <mutex>

#include "multi_worker_backend.h"
#include "thread_count.h"

namespace neardup {

namespace {

std::mutex gDeviceMutex;
DeviceBackends gDevices;  // guarded by gDeviceMutex

DeviceBackends deviceBackends() {
    const std::lock_guard lock(gDeviceMutex);
    return gDevices;
}

}  // namespace

void installDeviceBackends(DeviceBackends backends) {
    const std::lock_guard lock(gDeviceMutex);
    gDevices = std::move(backends);
}

GpuInventory queryGpus() {
    const DeviceBackends devices = deviceBackends();
    GpuInventory inv;
    inv.compiledIn = devices.compiledIn;
    if (!devices.query) {
        inv.status = "CUDA not compiled in";
        return inv;
    }
    try {
        return devices.query();
    } catch (const std::exception& e) {
        inv.status = std::string("GPU query failed: ") + e.what();
    } catch (...) {
        inv.status = "GPU query failed";
    }
    return inv;
}

namespace {

// Threads of part i when `threads` (0 = all) are divided among `parts`, at least one each.
int shareOf(int threads, int parts, int i) {
    const int total = resolveThreads(threads);
    return std::max(1, total / parts + (i < total % parts ? 1 : 0));
}

std::unique_ptr<Backend> makeCpuWorkers(int threads, int workers) {
    if (workers == 1) return makeCpuBackend(threads);
    std::vector<std::unique_ptr<Backend>> parts;
    for (int i = 0; i < workers; ++i)
        parts.push_back(makeCpuBackend(shareOf(threads, workers, i)));
    return std::make_unique<MultiWorkerBackend>(std::move(parts));
}

std::string deviceList(const std::vector<const GpuDevice*>& devices) {
    std::string out;
    for (const GpuDevice* d : devices)
        out += (out.empty() ? "" : ",") + std::to_string(d->index);
    return out;
}

}  // namespace

bool autoKeepsToCpu(const BackendOptions& o) {
    return o.name == "auto" && o.devices.empty() && o.cpuOutrunsGpuFrom > 0 &&
           resolveThreads(o.threads) >= o.cpuOutrunsGpuFrom;
}

std::unique_ptr<Backend> makeBackend(const BackendOptions& o, std::string* chosenReason) {
    const auto choose = [&](std::unique_ptr<Backend> backend, const std::string& why) {
        if (chosenReason) *chosenReason = why;
        return backend;
    };
    if (o.workers < 1 || o.workers > RunParams::kMaxWorkers)
        throw BackendError(BackendOption::Workers, "workers must be between 1 and " +
                                                       std::to_string(RunParams::kMaxWorkers));
    bool allDevices = false;
    std::vector<int> wanted;
    if (!o.devices.empty() && !parseDeviceList(o.devices, allDevices, wanted))
        throw BackendError(BackendOption::Devices,
                           "devices must be all or distinct device numbers such as 0,1,3 (got '" +
                               o.devices + "')");
    const std::string workers =
        o.workers > 1 ? " (" + std::to_string(o.workers) + " workers)" : std::string();
    if (o.name == "cpu") {
        if (!o.devices.empty())
            throw BackendError(BackendOption::Devices,
                               "devices selects GPUs; it cannot be used with the cpu backend");
        return choose(makeCpuWorkers(o.threads, o.workers), "cpu: requested" + workers);
    }
    if (o.name != "cuda" && o.name != "auto")
        throw BackendError(BackendOption::Backend,
                           "backend '" + o.name + "' is unknown (expected cpu, cuda or auto)");

    const bool required = o.name == "cuda";
    const DeviceBackends devices = deviceBackends();
    const GpuInventory inv = queryGpus();
    if (inv.devices.empty()) {
        const std::string why = inv.compiledIn ? "no usable GPU: " + inv.status : inv.status;
        if (required) throw BackendError(BackendOption::Backend, "backend cuda: " + why);
        return choose(makeCpuWorkers(o.threads, o.workers),
                      "cpu: " + why + workers + (o.devices.empty() ? "" : "; devices ignored"));
    }
    // Named devices are asked for; otherwise a run of the default kind stays on enough CPU
    // threads, which finish it sooner (kCpuOutrunsGpuThreads).
    if (autoKeepsToCpu(o)) {
        const int threads = resolveThreads(o.threads);
        return choose(makeCpuWorkers(o.threads, o.workers),
                      "cpu: auto: " + std::to_string(threads) +
                          " CPU threads finish a run with the one-permutation sketch and hash "
                          "band keys sooner than " +
                          (inv.devices.size() == 1 ? "the GPU" : "a GPU") + " (" + inv.status +
                          "; --backend cuda uses it)" + workers);
    }
    std::vector<const GpuDevice*> chosen;
    if (o.devices.empty()) {
        chosen.push_back(&inv.devices.front());
    } else if (allDevices) {
        for (const GpuDevice& d : inv.devices)
            chosen.push_back(&d);
    } else {
        std::vector<const GpuDevice*> usable;
        for (const GpuDevice& d : inv.devices)
            usable.push_back(&d);
        for (const int index : wanted) {
            const auto it = std::find_if(usable.begin(), usable.end(),
                                         [&](const GpuDevice* d) { return d->index == index; });
            if (it == usable.end())
                throw BackendError(BackendOption::Devices,
                                   "devices: no usable GPU " + std::to_string(index) +
                                       "; usable devices: " + deviceList(usable));
            chosen.push_back(*it);
        }
    }
    const std::string how =
        (required ? std::string("requested") : "auto: " + inv.status) +
        (o.workers > 1 ? "; " + std::to_string(o.workers) + " workers per GPU" : std::string());
    // --workers N on GPUs: N workers share each chosen GPU (their streams overlap one worker's
    // transfers with another's kernels), in device order.
    if (o.workers > 1) {
        std::vector<const GpuDevice*> repeated;
        for (const GpuDevice* d : chosen)
            repeated.insert(repeated.end(), static_cast<std::size_t>(o.workers), d);
        chosen = std::move(repeated);
    }
    try {
        if (chosen.size() == 1) {
            auto backend = devices.make(chosen[0]->index, o.threads);
            const std::string why = backend->description() + " (device " +
                                    std::to_string(chosen[0]->index) + "; " + how + ")";
            return choose(std::move(backend), why);
        }
        // One worker per GPU (times --workers); each keeps a share of the CPU threads for its
        // host-side phases.
        std::vector<std::unique_ptr<Backend>> parts;
        std::vector<std::string> labels;
        const int count = static_cast<int>(chosen.size());
        for (int i = 0; i < count; ++i) {
            const GpuDevice& d = *chosen[static_cast<std::size_t>(i)];
            parts.push_back(devices.make(d.index, shareOf(o.threads, count, i)));
            labels.push_back("cuda:" + std::to_string(d.index) + " " + d.name);
        }
        auto backend = std::make_unique<MultiWorkerBackend>(std::move(parts), std::move(labels));
        const std::string why =
            backend->description() + " (devices " + deviceList(chosen) + "; " + how + ")";
        return choose(std::move(backend), why);
    } catch (const std::exception& e) {
        if (required)
            throw BackendError(BackendOption::Backend, std::string("backend cuda: ") + e.what());
        return choose(
            makeCpuWorkers(o.threads, o.workers),
            std::string("cpu: the CUDA backend failed to start (") + e.what() + ")" + workers);
    }
}

BackendOptions backendOptions(const RunParams& params) {
    BackendOptions o;
    o.name = params.backend;
    o.threads = params.threads;
    o.workers = params.workers;
    o.devices = params.devices;
    if (params.signature.sketch == SketchKind::Oph && params.lsh.scheme == BandKeyScheme::Hash)
        o.cpuOutrunsGpuFrom = kCpuOutrunsGpuThreads;
    return o;
}

std::unique_ptr<Backend> makeBackend(const std::string& name, int threads,
                                     std::string* chosenReason) {
    BackendOptions o;
    o.name = name;
    o.threads = threads;
    return makeBackend(o, chosenReason);
}

}  // namespace neardup
