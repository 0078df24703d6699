// The MPI job's lifetime (builds with MPI): starting MPI through the transport, and ending it,
// rank 0 first telling the other ranks to stop. Rank 0's backend is in mpi_rank0_backend.cpp,
// the other ranks' service in mpi_worker_service.cpp.
#include "mpi_job.h"

#include "cancelled.h"
#include "mpi_codec.h"
#include "mpi_job_state.h"

namespace neardup::mpi {

bool compiledIn() {
    return true;
}

std::string describeSupport() {
    const std::string version = libraryVersion();
    return version.empty() ? "compiled in" : "compiled in (" + version + ")";
}

Job::Job(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<Job> Job::start() {
    auto impl = std::make_unique<Impl>();
    impl->transport = Transport::start();
    return std::unique_ptr<Job>(new Job(std::move(impl)));
}

Job::~Job() {
    try {
        if (!impl_->broken) stopWorkers();
    } catch (...) {
        impl_->broken = true;  // a rank is gone
    }
    // Ends every rank, this one too. A run stopped by a signal ends with 130, as one process
    // does, so that a batch script can tell a time limit's stop (and requeue) from a failure.
    if (impl_->broken) impl_->transport->abort(stopSignal() != 0 ? 130 : 1);
}

int Job::rank() const {
    return impl_->transport->rank();
}
int Job::size() const {
    return impl_->transport->size();
}
int Job::localRank() const {
    return impl_->transport->localRank();
}
const std::string& Job::host() const {
    return impl_->transport->host();
}

void Job::stopWorkers() {
    if (rank() != 0 || impl_->stopped) return;
    impl_->stopped = true;
    const std::vector<char> stop = encodeRequest(StopRequest{});
    for (int r = 1; r < size(); ++r)
        impl_->transport->send(r, kRequestTag, stop);
}

}  // namespace neardup::mpi
