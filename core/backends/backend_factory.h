// Chooses and builds a Backend: the CPU one, several workers, or a device backend (CUDA) that
// gpu/ installs through the seam below. Front ends (CLI, workbench, MPI ranks) call makeBackend
// and never include gpu/; app/ installs the CUDA backends once at start-up.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
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

// The execution option a BackendError is about. Messages begin with the option's name in plain
// words ("workers must be ..."); each front end names the option its own way (the CLI prefixes
// "--", the workbench shows the message next to its field).
// None: an error of the backend itself, not of an option.
enum class BackendOption { None, Backend, Workers, Devices };

class BackendError : public std::runtime_error {
  public:
    explicit BackendError(const std::string& message)
        : std::runtime_error(message), option_(BackendOption::None) {}
    BackendError(BackendOption option, const std::string& message)
        : std::runtime_error(message), option_(option) {}
    BackendOption option() const { return option_; }

  private:
    BackendOption option_;
};

// Device backends, as gpu/ provides them (gpu::installCudaBackends). Until one is installed the
// factory builds CPU backends only and reports "CUDA not compiled in".
struct DeviceBackends {
    bool compiledIn = false;
    // Usable devices. Never throws.
    std::function<GpuInventory()> query;
    // A backend on one device, with `cpuThreads` host threads; throws BackendError when the
    // device cannot be used.
    std::function<std::unique_ptr<Backend>(int device, int cpuThreads)> make;
};
// Installs the device backends for the whole process (normally once, from main()).
void installDeviceBackends(DeviceBackends backends);

struct BackendOptions {
    std::string name = "auto";  // cpu, cuda or auto
    int threads = 0;            // CPU threads in all (0 = all hardware threads)
    // Workers: with more than one, a MultiWorkerBackend drives them. CPU workers divide the
    // threads among them (at least one each); on GPUs, `workers` workers share each device.
    int workers = 1;
    // GPUs: "" = the first usable one, "all", or a list such as "0,1,3" (`workers` each).
    std::string devices;
    // "auto" with no devices named keeps to the CPU from this many CPU threads on (0: never):
    // backendOptions sets it for runs that so many cores finish sooner than a GPU does
    // (kCpuOutrunsGpuThreads).
    int cpuOutrunsGpuFrom = 0;
};

// The CPU threads from which a run of the default kind (the one-permutation sketch, hash band
// keys) is faster on the CPU alone than with a GPU, as measured on a 16-core H100 host
// (docs/performance.md, "Threads and GPUs"). Such a run signs cheaply and its buckets are
// sparse, so the GPU's share is small and its transfers and per-band passes cost more than they
// save. The classic sketch and sum keys (dense buckets), where the GPU's kernels win by
// several times, keep the GPU.
inline constexpr int kCpuOutrunsGpuThreads = 8;

// Whether "auto" with these options keeps to the CPU whatever GPUs there are: no devices are
// named and the run has at least cpuOutrunsGpuFrom threads. Front ends that name a device per
// process (MPI ranks) ask this first.
bool autoKeepsToCpu(const BackendOptions& options);

// name: "cpu", "cuda" or "auto" (CUDA when a usable GPU exists and the run is not one that its
// CPU threads finish sooner, see cpuOutrunsGpuFrom; else CPU). `chosenReason`
// receives one sentence saying which backend was chosen and why. Throws BackendError when
// "cuda" is requested and cannot be used, when `devices` names a GPU that is not usable (the
// message lists those that are) or is given with "cpu", and for workers outside 1..64.
std::unique_ptr<Backend> makeBackend(const BackendOptions& options,
                                     std::string* chosenReason = nullptr);
// The execution options of a run's parameters (backend, threads, workers, devices), and
// whether "auto" keeps to many CPU threads (the default sketch and band keys).
BackendOptions backendOptions(const RunParams& params);

std::unique_ptr<Backend> makeBackend(const std::string& name, int threads,
                                     std::string* chosenReason = nullptr);

}  // namespace neardup
