// `neardup run` as an MPI job: the few steps cmd_run.cpp takes when it was started by mpirun or
// srun. Rank 0 runs the pipeline with an MpiBackend; the other ranks serve its requests.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend_factory.h"
#include "mpi_job.h"
#include "params.h"

namespace neardup::cli {

class MpiRun {
  public:
    // Outside a launcher: nothing (returns nullopt). Under one: starts MPI; on ranks other
    // than 0, serves rank 0 until it stops the job and returns the exit code; on rank 0
    // returns nullopt. Started as one of several ranks by a build without MPI, or as one of
    // several tasks that srun started without MPI, every task returns kExitUsage with a line
    // saying how to launch the job, and none opens the project.
    // In a job, -j 0 (all cores) means the cores this rank may run on: the launcher usually
    // binds each rank to a core or a socket.
    std::optional<int> start(RunParams& params);
    // Rank 0: GPU local_rank % devices when none was named.
    void pickDevice(BackendOptions& choice) const;
    // Rank 0: the backend spreading its calls over all ranks (or `local` outside a job).
    std::unique_ptr<Backend> wrap(std::unique_ptr<Backend> local, std::string& reason,
                                  const std::atomic<bool>* cancel);
    // Rank 0, when the run finished, while the backend from wrap() still lives.
    void keepTotals();
    // Rank 0, after a run: one line per rank with its busy time per phase.
    void printRanks() const;

  private:
    std::unique_ptr<mpi::Job> job_;
    mpi::MpiBackend* backend_ = nullptr;  // owned by the caller; valid until the run ends
    std::vector<mpi::RankTotals> totals_;
};

}  // namespace neardup::cli
