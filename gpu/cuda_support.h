// The seam between the backend factory (core/backends) and the CUDA code. Implemented by the
// CUDA sources when the toolkit was found at configure time, else by cuda_unavailable.cpp, so
// that the front ends and the link line are the same in both builds. No CUDA types here.
#pragma once

#include <memory>

#include "backend_factory.h"

namespace neardup {

namespace gpu {

// Devices usable by this build (compute capability >= 7.5). Never throws.
GpuInventory queryCudaDevices();

// The CUDA backend on `device`; `cpuThreads` host threads collapse exact copies, gather passes
// and sign one-permutation sketches. Throws BackendError when the device cannot be used.
std::unique_ptr<Backend> makeCudaBackend(int device, int cpuThreads);

}  // namespace gpu

// Installs the CUDA backends into the factory (installDeviceBackends): app/ calls it once at
// start-up, as do the tests that want the GPU. Harmless in a build without CUDA.
void installCudaBackends();

// True when this build can compute signatures on a GPU of this machine (the CUDA backend is
// compiled in and at least one usable device is present). Never throws.
bool cudaSignaturesAvailable();

}  // namespace neardup
