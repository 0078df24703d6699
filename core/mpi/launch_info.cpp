// The launcher's environment, read without MPI: in every build, so that a build without MPI can
// say so when it is started by mpirun or srun, and so that copies of one command started side by
// side by srun without MPI are refused before any of them opens the project.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "mpi_job.h"

namespace neardup::mpi {

namespace {

// The variable as a non-negative integer; -1 when absent or not a number. Slurm's special step
// ids (the batch script's, the extern and interactive steps': 0xfffffffa and up, or the words
// "batch" and "extern") are no numbers here either.
int envInt(const EnvLookup& env, const char* name) {
    const char* v = env(name);
    if (!v || !*v) return -1;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 0 || n > 1 << 30) return -1;
    return static_cast<int>(n);
}

std::string ordinal(int index, int count) {
    return index >= 0 ? fmt::format("{} of {}", index, count) : fmt::format("one of {}", count);
}

constexpr const char* kHowToLaunch =
    "start one MPI job with `srun --mpi=pmix neardup run ...`, or `mpirun neardup run ...` inside "
    "the allocation (or run a single task: srun -n 1)";

}  // namespace

LaunchInfo launchInfo(const EnvLookup& env) {
    LaunchInfo info;
    // srun sets SLURM_STEP_ID (and the older SLURM_STEPID) and SLURM_STEP_NUM_TASKS in every
    // task of a step; a batch script and an salloc shell have neither, only the allocation's
    // SLURM_NTASKS, and run one process however many tasks were allocated.
    const int step = std::max(envInt(env, "SLURM_STEP_ID"), envInt(env, "SLURM_STEPID"));
    if (step >= 0) {
        info.stepTasks = std::max(envInt(env, "SLURM_STEP_NUM_TASKS"), 0);
        info.stepTask = envInt(env, "SLURM_PROCID");
    }
    struct Pair {
        const char* size;
        const char* rank;
    };
    // Open MPI's mpirun, then PMI-2 (srun --mpi=pmi2, MPICH's hydra), then PMIx (srun
    // --mpi=pmix, which sets no size: the step's task count stands in).
    for (const Pair p : {Pair{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
                         Pair{"PMI_SIZE", "PMI_RANK"}, Pair{nullptr, "PMIX_RANK"}}) {
        const int rank = envInt(env, p.rank);
        if (rank < 0) continue;
        info.underLauncher = true;
        info.rank = rank;
        const int size = p.size ? envInt(env, p.size) : info.stepTasks;
        info.size = size > 0 ? size : 0;
        return info;
    }
    return info;
}

LaunchInfo launchInfo() {
    return launchInfo([](const char* name) -> const char* { return std::getenv(name); });
}

LaunchCheck checkLaunch(const LaunchInfo& info, bool mpiCompiledIn) {
    using Action = LaunchCheck::Action;
    if (info.underLauncher) {
        if (mpiCompiledIn) return {Action::StartJob, {}};
        if (info.size == 1) return {};  // one rank: an ordinary run
        const std::string count = info.size > 0 ? std::to_string(info.size) : "several";
        return {Action::Refuse,
                fmt::format("started as rank {} by an MPI launcher, but MPI support is not "
                            "compiled in: the ranks would run as {} separate copies, so none "
                            "runs; run one process, or rebuild with libopenmpi-dev installed",
                            info.rank >= 0 && info.size > 0 ? ordinal(info.rank, info.size)
                                                            : std::string("one of several"),
                            count)};
    }
    if (info.stepTasks > 1) {
        const std::string task = ordinal(info.stepTask, info.stepTasks);
        if (mpiCompiledIn)
            return {Action::Refuse,
                    fmt::format("srun started this command as task {} without MPI (no "
                                "--mpi=pmix, and the cluster's MpiDefault is none): the tasks "
                                "would run as {} separate copies, so none runs; {}",
                                task, info.stepTasks, kHowToLaunch)};
        return {Action::Refuse,
                fmt::format("srun started this command as task {}, but MPI support is not "
                            "compiled in: the tasks would run as {} separate copies, so none "
                            "runs; run a single task (srun -n 1), or rebuild with "
                            "libopenmpi-dev installed and use `srun --mpi=pmix`",
                            task, info.stepTasks)};
    }
    return {};
}

std::string checkJobSize(const LaunchInfo& info, int jobSize) {
    if (info.size <= 1 || jobSize != 1) return {};
    return fmt::format(
        "the launcher started {} ranks, but MPI made this one a job of its own (a process "
        "interface the MPI library does not speak, such as srun --mpi=pmi2 with Debian's Open "
        "MPI; `srun --mpi=list` shows those at hand): the ranks would run as {} separate copies, "
        "so none runs; {}",
        info.size, info.size, kHowToLaunch);
}

}  // namespace neardup::mpi
