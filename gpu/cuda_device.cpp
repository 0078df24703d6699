// Device inventory through the CUDA runtime. The runtime is linked statically and the driver is
// loaded at run time, so this answers (with a reason) on machines without a driver or a GPU.
#include <cuda_runtime.h>

#include <string>

#include "cuda_memory.h"
#include "cuda_support.h"

namespace neardup::gpu {

namespace {

// CUDA 13 supports nothing older than Turing, and the kernels are built for 7.5 and newer.
constexpr int kMinComputeCapability = 75;

std::string runtimeVersion() {
    return std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
}

std::string unavailableStatus(cudaError_t err) {
    switch (err) {
        case cudaErrorInsufficientDriver:
            // Also what an installed but too old driver reports.
            return "no CUDA driver, or one older than the CUDA " + runtimeVersion() +
                   " runtime (cudaErrorInsufficientDriver)";
        case cudaErrorNoDevice:
            return "no CUDA device (cudaErrorNoDevice)";
        default:
            return "CUDA unavailable (" + cudaErrorText(err) + ")";
    }
}

std::string plural(std::size_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

GpuInventory queryCudaDevices() {
    GpuInventory inv;
    inv.compiledIn = true;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();
        inv.status = unavailableStatus(err);
        return inv;
    }
    if (count <= 0) {
        inv.status = "no CUDA device";
        return inv;
    }
    int previous = 0;
    const bool restore = cudaGetDevice(&previous) == cudaSuccess;
    int unusable = 0;
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess ||
            prop.major * 10 + prop.minor < kMinComputeCapability) {
            cudaGetLastError();
            ++unusable;
            continue;
        }
        GpuDevice d;
        d.index = i;
        d.name = prop.name;
        d.totalMemory = prop.totalGlobalMem;
        d.computeMajor = prop.major;
        d.computeMinor = prop.minor;
        // Free memory needs a context on the device; the backend reuses it (primary context).
        std::size_t freeBytes = 0, totalBytes = 0;
        if (cudaSetDevice(i) == cudaSuccess &&
            cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) {
            d.freeMemory = freeBytes;
            d.totalMemory = totalBytes;
        } else {
            cudaGetLastError();
            ++unusable;
            continue;
        }
        inv.devices.push_back(std::move(d));
    }
    if (restore) cudaSetDevice(previous);
    if (inv.devices.empty())
        inv.status = "no usable CUDA device (" +
                     plural(static_cast<std::size_t>(unusable), "device") +
                     " older than compute capability 7.5 or failing to start)";
    else
        inv.status = plural(inv.devices.size(), "CUDA device") +
                     (unusable ? ", " + std::to_string(unusable) + " unusable" : std::string());
    return inv;
}

}  // namespace neardup::gpu
