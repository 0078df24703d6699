// The launcher's environment, read without MPI: in every build, so that a build without MPI can
// say so when it is started by mpirun or srun.
#include <cstdlib>
#include <string>

#include "mpi_job.h"

namespace neardup::mpi {

namespace {

// The variable as a non-negative integer; -1 when absent or not a number.
int envInt(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) return -1;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 0 || n > 1 << 30) return -1;
    return static_cast<int>(n);
}

}  // namespace

LaunchInfo launchInfo() {
    LaunchInfo info;
    struct Pair {
        const char* size;
        const char* rank;
    };
    // Open MPI's mpirun, then PMI-2 (srun --mpi=pmi2, MPICH's hydra), then PMIx (srun
    // --mpi=pmix, which sets no size: Slurm's task count stands in).
    for (const Pair p : {Pair{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
                         Pair{"PMI_SIZE", "PMI_RANK"}, Pair{"SLURM_NTASKS", "PMIX_RANK"}}) {
        const int rank = envInt(p.rank);
        if (rank < 0) continue;
        info.underLauncher = true;
        info.rank = rank;
        const int size = envInt(p.size);
        info.size = size > 0 ? size : 0;
        return info;
    }
    return info;
}

}  // namespace neardup::mpi
