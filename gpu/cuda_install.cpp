// Hands the CUDA code to the backend factory, and answers whether signatures can run on a GPU.
#include "cuda_support.h"

namespace neardup {

void installCudaBackends() {
    DeviceBackends backends;
    backends.compiledIn = NEARDUP_HAVE_CUDA;
    backends.query = [] { return gpu::queryCudaDevices(); };
    backends.make = [](int device, int cpuThreads) {
        return gpu::makeCudaBackend(device, cpuThreads);
    };
    installDeviceBackends(std::move(backends));
}

bool cudaSignaturesAvailable() {
    const GpuInventory inv = gpu::queryCudaDevices();
    return inv.compiledIn && !inv.devices.empty();
}

}  // namespace neardup
