// Running one `neardup run` as an MPI job (Open MPI's mpirun, or Slurm's srun). Rank 0 runs the
// ordinary Pipeline with an MpiBackend. While reading, rank 0 only cuts the inputs into chunks
// of whole lines; each chunk goes to a rank (rank 0 included) that parses, normalizes and signs
// it, and rank 0's in-order stage appends the results as it would its own. Every later backend
// call (band keys, bucket comparison) is spread over all ranks and the results gathered in
// order, so outputs are identical to a single-process run by construction. Every other rank
// runs serveBackendRequests: it executes rank 0's requests with its own local backend (CPU
// threads, or the GPU local_rank % devices) until rank 0 tells it to stop.
//
// No MPI header here: the same declarations exist in builds without MPI (NEARDUP_HAVE_MPI=0),
// where Job::start throws and compiledIn() is false (mpi_unavailable.cpp).
//
// Where it lives: mpi_transport.* (every MPI call: framing, tags, errors), mpi_messages.h and
// mpi_codec.* (the messages, each field listed once, written and read by one visitor pair),
// mpi_job.cpp (the job's lifetime), mpi_rank0_backend.cpp and mpi_rank0_chunks.cpp (rank 0's
// MpiBackend; the protocol is described there), mpi_worker_service.cpp (the other ranks).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace neardup::mpi {

// True when this build has MPI support (NEARDUP_MPI found Open MPI at configure time).
bool compiledIn();
// One line for `neardup info`: "compiled in (Open MPI v4.1.4, ...)" or "not compiled in".
std::string describeSupport();

// What the launcher's environment says about this process, read before MPI is initialized:
// Open MPI (OMPI_COMM_WORLD_SIZE/RANK), PMI-2 (PMI_SIZE/PMI_RANK, Slurm's srun --mpi=pmi2) and
// PMIx (PMIX_RANK; the size then comes from SLURM_NTASKS when present); and whether Slurm's srun
// started this process as one task of a step of several (SLURM_STEP_ID and
// SLURM_STEP_NUM_TASKS, which srun sets and a batch script or an salloc shell lacks), which it
// does without any of the MPI variables when srun is given no --mpi and MpiDefault is none.
struct LaunchInfo {
    bool underLauncher = false;  // any of the MPI launcher's variables is set
    int size = 0;                // ranks in the job; 0 when unknown
    int rank = -1;               // this process's rank; -1 when unknown
    int stepTasks = 0;           // tasks of the srun step this process is one of; 0 outside
    int stepTask = -1;           // this task's number in the step (SLURM_PROCID); -1 when unknown
};
// Reads one environment variable: nullptr when it is not set.
using EnvLookup = std::function<const char*(const char*)>;
LaunchInfo launchInfo(const EnvLookup& env);
LaunchInfo launchInfo();  // this process's environment

// What `neardup run` does, started as `info` says, in a build with or without MPI.
struct LaunchCheck {
    enum class Action {
        Single,    // an ordinary run in one process
        StartJob,  // start MPI: one rank of a job
        Refuse,    // exit 2 on every task, with `message`: no task opens the project
    };
    Action action = Action::Single;
    std::string message;  // Refuse: one line, without the command's name
};
LaunchCheck checkLaunch(const LaunchInfo& info, bool mpiCompiledIn);
// After MPI started: the refusal when MPI made this rank a job of its own although the
// launcher started several (a process-management interface the MPI library does not speak);
// empty when the job is the size the launcher said.
std::string checkJobSize(const LaunchInfo& info, int jobSize);

// The MPI library, initialized for the lifetime of this object (MPI_THREAD_SERIALIZED: the
// pipeline calls the backend from one thread at a time, not always the same one; while chunks
// are read, MpiBackend's communication thread makes every MPI call).
class Job {
  public:
    // Throws std::runtime_error when MPI support is not compiled in or MPI fails to start.
    static std::unique_ptr<Job> start();
    // Rank 0 tells the other ranks to stop, then MPI is finalized (or, when rank 0 stopped
    // waiting for a rank, the job is aborted).
    ~Job();
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;

    int rank() const;
    int size() const;
    int localRank() const;  // rank among the ranks on this host
    const std::string& host() const;

    // Rank 0: sends every other rank the final message; they then exit with code 0, so that
    // rank 0, which reports how the run ended, decides the job's exit status (a rank exiting
    // non-zero first would make the launcher kill rank 0 before it has said why). Idempotent.
    void stopWorkers();

    struct Impl;
    Impl& impl() { return *impl_; }

  private:
    explicit Job(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// Makes a rank's local backend; localRank picks the GPU. `description` receives a sentence on
// the choice. Throws when the backend cannot be built (the error then goes to rank 0).
using LocalBackendFactory =
    std::function<std::unique_ptr<Backend>(int localRank, std::string* description)>;

// Per-rank totals since the start of the job, for the summary rank 0 prints.
struct RankTotals {
    int rank = 0;
    std::string label;  // "rank 2 on node07 (cpu (4 threads))"
    double signatureSeconds = 0, bandKeySeconds = 0, compareSeconds = 0;
    uint64_t documents = 0, bandKeyRows = 0, pairsDecided = 0;
};

// Rank 0's backend. Talks to every rank at construction (each reports its host and backend, or
// the error that kept it from building one); an error is thrown by the first backend call, so
// that the pipeline records the run as failed. A rank that fails a request makes that call
// throw std::runtime_error("rank R (host): reason") once every rank has answered. When
// `cancel` is raised while rank 0 waits for a rank, the call throws Cancelled (the pipeline
// records the run as interrupted) and the job is aborted when the Job ends.
class MpiBackend final : public Backend {
  public:
    MpiBackend(Job& job, std::unique_ptr<Backend> local, const std::atomic<bool>* cancel = nullptr);
    ~MpiBackend() override;
    MpiBackend(const MpiBackend&) = delete;
    MpiBackend& operator=(const MpiBackend&) = delete;

    std::string description() const override;
    void computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                           uint32_t* out) override;
    void computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh, uint64_t modulus,
                         uint64_t* keys) override;
    uint64_t compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                            std::vector<ScoredPair>& out) override;
    // With two ranks or more (unless NEARDUP_MPI_CHUNKS=0), input chunks are read on every
    // rank: a chunk goes to a free slot of another rank (its threads plus one each) or, when
    // none is free, is read on rank 0 itself. Backend calls made meanwhile run on rank 0.
    std::size_t startChunks(const ChunkSetup& setup) override;
    void processChunk(const LineChunk& chunk, ChunkWork& work) override;
    void finishChunks() override;
    std::vector<WorkerTiming> takeWorkerTimings() override;

    std::vector<RankTotals> totals() const;

    struct State;

  private:
    std::unique_ptr<State> state_;
};

// Every rank but 0: builds the local backend with `factory`, then executes rank 0's requests
// until rank 0 stops the job; returns 0 then (a failed request was reported to rank 0). MPI
// errors, and a chunk request that cannot be read (WireError), are thrown. `threads` (0: rank 0's
// count) is how many chunks this rank reads at once.
int serveBackendRequests(Job& job, const LocalBackendFactory& factory, int threads = 0);

}  // namespace neardup::mpi
