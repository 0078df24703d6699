#include "mpi_run.h"

#include <fmt/format.h>

#include <sched.h>

#include <cstdio>

#include "commands.h"

namespace neardup::cli {

namespace {

// The GPU of the rank with this local rank, when the backend may use one and none was named.
void assignDevice(BackendOptions& choice, int localRank) {
    if (choice.name == "cpu" || !choice.devices.empty() || autoKeepsToCpu(choice)) return;
    const GpuInventory inv = queryGpus();
    if (inv.devices.empty()) return;
    const auto n = static_cast<int>(inv.devices.size());
    choice.devices = std::to_string(inv.devices[static_cast<std::size_t>(localRank % n)].index);
}

// Cores in this process's affinity mask; 0 when unknown.
int boundCores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

}  // namespace

std::optional<int> MpiRun::start(RunParams& params) {
    const mpi::LaunchInfo launch = mpi::launchInfo();
    if (!launch.underLauncher) return std::nullopt;
    if (!mpi::compiledIn()) {
        if (launch.size == 1) return std::nullopt;  // one rank: an ordinary run
        if (launch.rank <= 0)
            fmt::print(
                stderr,
                "neardup run: started as one of {} MPI ranks, but MPI support is not compiled in "
                "(rebuild with libopenmpi-dev installed, or run without mpirun/srun)\n",
                launch.size > 0 ? std::to_string(launch.size).c_str() : "several");
        return kExitError;
    }
    job_ = mpi::Job::start();
    if (params.threads == 0) params.threads = boundCores();  // stays 0 when unknown
    if (job_->rank() == 0) return std::nullopt;
    const BackendOptions base = backendOptions(params);
    return mpi::serveBackendRequests(
        *job_,
        [&](int localRank, std::string* reason) {
            BackendOptions choice = base;
            assignDevice(choice, localRank);
            return makeBackend(choice, reason);
        },
        params.threads);
}

void MpiRun::pickDevice(BackendOptions& choice) const {
    if (job_) assignDevice(choice, job_->localRank());
}

std::unique_ptr<Backend> MpiRun::wrap(std::unique_ptr<Backend> local, std::string& reason,
                                      const std::atomic<bool>* cancel) {
    if (!job_) return local;
    auto backend = std::make_unique<mpi::MpiBackend>(*job_, std::move(local), cancel);
    backend_ = backend.get();
    reason = backend->description() + "; rank 0 " + reason;
    return backend;
}

void MpiRun::keepTotals() {
    if (backend_) totals_ = backend_->totals();
    backend_ = nullptr;
}

void MpiRun::printRanks() const {
    for (const mpi::RankTotals& t : totals_)
        fmt::print(stderr,
                   "  {}: signatures {:.2f} s ({} documents), band keys {:.2f} s ({} rows), "
                   "compare {:.2f} s ({} pairs decided)\n",
                   t.label, t.signatureSeconds, t.documents, t.bandKeySeconds, t.bandKeyRows,
                   t.compareSeconds, t.pairsDecided);
}

}  // namespace neardup::cli
