// Backend selection. Knows nothing about CUDA itself: it asks the seam in cuda_support.h, which
// the CUDA sources or cuda_unavailable.cpp implement.
#include "backend_factory.h"

#include <exception>

#include "cuda_support.h"

namespace neardup {

GpuInventory queryGpus() {
    try {
        return gpu::queryCudaDevices();
    } catch (const std::exception& e) {
        GpuInventory inv;
        inv.compiledIn = NEARDUP_HAVE_CUDA;
        inv.status = std::string("GPU query failed: ") + e.what();
        return inv;
    } catch (...) {
        GpuInventory inv;
        inv.compiledIn = NEARDUP_HAVE_CUDA;
        inv.status = "GPU query failed";
        return inv;
    }
}

bool cudaSignaturesAvailable() {
    const GpuInventory inv = queryGpus();
    return inv.compiledIn && !inv.devices.empty();
}

std::unique_ptr<Backend> makeBackend(const std::string& name, int threads,
                                     std::string* chosenReason) {
    const auto choose = [&](std::unique_ptr<Backend> backend, const std::string& why) {
        if (chosenReason) *chosenReason = why;
        return backend;
    };
    if (name == "cpu") return choose(makeCpuBackend(threads), "cpu: requested");
    if (name != "cuda" && name != "auto")
        throw BackendError("unknown backend '" + name + "' (expected cpu, cuda or auto)");

    const bool required = name == "cuda";
    const GpuInventory inv = queryGpus();
    if (inv.devices.empty()) {
        const std::string why = inv.compiledIn ? "no usable GPU: " + inv.status : inv.status;
        if (required) throw BackendError("--backend cuda: " + why);
        return choose(makeCpuBackend(threads), "cpu: " + why);
    }
    const GpuDevice& device = inv.devices.front();
    try {
        auto backend = gpu::makeCudaBackend(device.index, threads);
        const std::string why = backend->description() + " (device " +
                                std::to_string(device.index) + "; " +
                                (required ? "requested" : "auto: " + inv.status) + ")";
        return choose(std::move(backend), why);
    } catch (const std::exception& e) {
        if (required) throw BackendError(std::string("--backend cuda: ") + e.what());
        return choose(makeCpuBackend(threads),
                      std::string("cpu: the CUDA backend failed to start (") + e.what() + ")");
    }
}

}  // namespace neardup
