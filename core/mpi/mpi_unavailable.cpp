// Builds without MPI (NEARDUP_MPI=OFF, or no MPI found): the same declarations, no job.
#include <stdexcept>

#include "mpi_job.h"

namespace neardup::mpi {

namespace {
[[noreturn]] void unavailable() {
    throw std::runtime_error(
        "MPI support is not compiled in (rebuild with Open MPI installed: libopenmpi-dev)");
}
}  // namespace

bool compiledIn() {
    return false;
}

std::string describeSupport() {
    return "not compiled in";
}

struct Job::Impl {};

Job::Job(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Job::~Job() = default;
std::unique_ptr<Job> Job::start() {
    unavailable();
}
int Job::rank() const {
    return 0;
}
int Job::size() const {
    return 1;
}
int Job::localRank() const {
    return 0;
}
const std::string& Job::host() const {
    static const std::string none;
    return none;
}
void Job::stopWorkers() {}

struct MpiBackend::State {};

MpiBackend::MpiBackend(Job&, std::unique_ptr<Backend>, const std::atomic<bool>*) {
    unavailable();
}
MpiBackend::~MpiBackend() = default;
std::string MpiBackend::description() const {
    return {};
}
void MpiBackend::computeSignatures(const SymbolBatch&, const HashConstants&, uint32_t*) {
    unavailable();
}
void MpiBackend::computeBandKeys(const SignatureMatrix&, const LshParams&, uint64_t, uint64_t*) {
    unavailable();
}
uint64_t MpiBackend::compareBuckets(const BucketBatch&, const CompareRequest&,
                                    std::vector<ScoredPair>&) {
    unavailable();
}
std::size_t MpiBackend::startChunks(const ChunkSetup&) {
    return 0;
}
void MpiBackend::processChunk(const LineChunk&, ChunkWork&) {
    unavailable();
}
void MpiBackend::finishChunks() {}
std::vector<WorkerTiming> MpiBackend::takeWorkerTimings() {
    return {};
}
std::vector<RankTotals> MpiBackend::totals() const {
    return {};
}

int serveBackendRequests(Job&, const LocalBackendFactory&, int) {
    unavailable();
}

}  // namespace neardup::mpi
