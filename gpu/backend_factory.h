// Chooses and builds a Backend: the CPU one from core, or the CUDA one when compiled in.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace neardup {

struct GpuDevice {
    int index = 0;
    std::string name;
    uint64_t totalMemory = 0;
    uint64_t freeMemory = 0;
    int computeMajor = 0, computeMinor = 0;
};

struct GpuInventory {
    bool compiledIn = false;  // built with the CUDA backend
    std::string status;       // "2 devices", "CUDA not compiled in", "no CUDA driver (35)", ...
    std::vector<GpuDevice> devices;
};

// Never throws; safe on machines without a driver.
GpuInventory queryGpus();

class BackendError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct BackendOptions {
    std::string name = "auto";  // cpu, cuda or auto
    int threads = 0;            // CPU threads in all (0 = all hardware threads)
    // Workers: with more than one, a MultiWorkerBackend drives them. CPU workers divide the
    // threads among them (at least one each); on GPUs, `workers` workers share each device.
    int workers = 1;
    // GPUs: "" = the first usable one, "all", or a list such as "0,1,3" (`workers` each).
    std::string devices;
};

// name: "cpu", "cuda" or "auto" (CUDA when a usable GPU exists, else CPU). `chosenReason`
// receives one sentence saying which backend was chosen and why. Throws BackendError when
// "cuda" is requested and cannot be used, when `devices` names a GPU that is not usable (the
// message lists those that are) or is given with "cpu", and for workers outside 1..64.
std::unique_ptr<Backend> makeBackend(const BackendOptions& options,
                                     std::string* chosenReason = nullptr);
std::unique_ptr<Backend> makeBackend(const std::string& name, int threads,
                                     std::string* chosenReason = nullptr);

}  // namespace neardup
