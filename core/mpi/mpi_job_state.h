// What rank 0's backend and the worker ranks' service share of a running job (Job::Impl): the
// transport, and whether the ranks are still in step. Private to core/mpi.
#pragma once

#include <memory>

#include "elapsed.h"
#include "mpi_job.h"
#include "mpi_transport.h"

namespace neardup::mpi {

struct Job::Impl {
    std::unique_ptr<Transport> transport;
    bool stopped = false;  // rank 0 sent the final Stop
    // Rank 0 stopped waiting for a rank (cancelled, or MPI failed): the ranks are out of step,
    // so the job is aborted instead of finalized.
    bool broken = false;

    int rank() const { return transport->rank(); }
    int size() const { return transport->size(); }
};

}  // namespace neardup::mpi
