// Placeholder factory (CPU only) until the CUDA backend lands.
#include "backend_factory.h"

namespace neardup {

GpuInventory queryGpus() {
    GpuInventory inv;
    inv.status = "CUDA not compiled in";
    return inv;
}

std::unique_ptr<Backend> makeBackend(const std::string& name, int threads,
                                     std::string* chosenReason) {
    if (name == "cuda") throw BackendError("--backend cuda: CUDA not compiled in");
    if (chosenReason) *chosenReason = "cpu backend";
    return makeCpuBackend(threads);
}

}  // namespace neardup
