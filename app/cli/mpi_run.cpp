#include "mpi_run.h"

#include <fmt/format.h>

#include <sched.h>

#include <csignal>
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
    // Every task refuses alike, and before the project is opened: copies that each ran alone
    // would write the same project and outputs side by side.
    const mpi::LaunchCheck check = mpi::checkLaunch(launch, mpi::compiledIn());
    if (check.action == mpi::LaunchCheck::Action::Refuse) {
        fmt::print(stderr, "neardup run: {}\n", check.message);
        return kExitUsage;
    }
    if (check.action == mpi::LaunchCheck::Action::Single) return std::nullopt;
    job_ = mpi::Job::start();
    if (const std::string refused = mpi::checkJobSize(launch, job_->size()); !refused.empty()) {
        fmt::print(stderr, "neardup run: {}\n", refused);
        return kExitUsage;
    }
    if (params.threads == 0) params.threads = boundCores();  // stays 0 when unknown
    if (job_->rank() == 0) return std::nullopt;
    // A time limit or scancel signals every task: rank 0 records the run as stopped and then
    // ends the job, which a rank dying on the signal meanwhile would cut short. The launcher's
    // SIGKILL still ends a rank that rank 0 never stops.
    for (const int signo : {SIGINT, SIGTERM, SIGHUP})
        std::signal(signo, SIG_IGN);
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
