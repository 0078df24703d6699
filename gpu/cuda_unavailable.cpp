// The CUDA seam in a build without the CUDA toolkit.
#include "cuda_support.h"

namespace neardup::gpu {

GpuInventory queryCudaDevices() {
    GpuInventory inv;
    inv.status = "CUDA not compiled in";
    return inv;
}

std::unique_ptr<Backend> makeCudaBackend(int, int) {
    throw BackendError("CUDA not compiled in");
}

}  // namespace neardup::gpu
