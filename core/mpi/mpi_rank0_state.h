// Rank 0's side of an MPI job, shared by its two files: MpiBackend's state, the exchange that
// spreads one backend call over every rank (mpi_rank0_backend.cpp), and the chunk reading with
// its communication thread (mpi_rank0_chunks.cpp). Private to core/mpi.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cancelled.h"
#include "chunk_work.h"
#include "mpi_codec.h"
#include "mpi_job.h"
#include "mpi_job_state.h"

namespace neardup::mpi {

// Phases of the per-rank timings, in the order of WorkerTiming rows.
constexpr int kPhases = 3;
inline const char* const kPhaseNames[kPhases] = {"signatures", "buckets", "compare"};

struct MpiBackend::State {
    Job::Impl& job;
    Transport& transport;
    std::unique_ptr<Backend> local;
    const std::atomic<bool>* cancel;
    std::vector<std::string> hosts, backends;
    std::string startError;  // thrown by the first call when a rank could not start
    std::string description;
    // Indexed [rank * kPhases + phase]: since the last takeWorkerTimings, and since the start.
    std::vector<WorkerTiming> pending, total;
    mutable std::mutex accountMutex;  // chunks are accounted from several threads

    // Reading chunks (startChunks .. finishChunks). The pipeline's threads queue their chunks
    // for other ranks in `outbox` and wait for their slot's reply; one communication thread
    // makes every MPI call meanwhile (nonblocking sends, replies matched by tag).
    std::atomic<bool> chunkMode{false};
    HashConstants constants;
    std::vector<InputFile> files;
    ChunkSetup setup;
    std::thread communication;
    std::mutex commMutex;
    std::condition_variable replyReady;
    std::deque<std::pair<int, std::vector<char>>> outbox;  // slot, request
    std::vector<std::vector<char>> replies;                // by slot
    std::vector<uint8_t> replied;                          // by slot
    bool commStop = false;
    std::exception_ptr commFailure;  // the communication thread stopped: MPI failed, or cancel
    std::mutex slotMutex;
    std::condition_variable slotFreed;
    std::deque<int> freeSlots;  // remote slots, interleaved over the ranks
    std::vector<int> slotRank;
    int localFree = 0;          // chunks rank 0 may still read itself at once
    std::string chunkError;     // the first rank that failed a chunk, thrown by later calls
    std::mutex processorMutex;  // rank 0's chunk processors, one per thread reading
    std::vector<std::unique_ptr<ChunkProcessor>> processors;
    std::mutex localMutex;  // the local backend, when it signs from one thread at a time

    State(Job::Impl& j, std::unique_ptr<Backend> l, const std::atomic<bool>* c)
        : job(j), transport(*j.transport), local(std::move(l)), cancel(c) {}

    int size() const { return job.size(); }
    std::string label(int rank) const {
        return "rank " + std::to_string(rank) + " on " + hosts[static_cast<std::size_t>(rank)] +
               " (" + backends[static_cast<std::size_t>(rank)] + ")";
    }
    // "rank 2 (node07): reason"
    std::string failureOf(int rank, const std::string& reason) const {
        return "rank " + std::to_string(rank) + " (" + hosts[static_cast<std::size_t>(rank)] +
               "): " + reason;
    }
    void account(int rank, int phase, double seconds, uint64_t items, uint64_t bytes) {
        const std::lock_guard<std::mutex> lock(accountMutex);
        for (auto* table : {&pending, &total}) {
            WorkerTiming& t = (*table)[static_cast<std::size_t>(rank * kPhases + phase)];
            t.seconds += seconds;
            t.items += items;
            t.bytes += bytes;
        }
    }
    void account(int rank, int phase, const WorkDone& done) {
        account(rank, phase, done.seconds, done.items, done.bytes);
    }

    void throwIfNotStarted() const {
        if (!startError.empty()) throw std::runtime_error(startError);
    }

    // The communication thread while chunks are read (mpi_rank0_chunks.cpp).
    void communicate();

    // Sends each rank r >= 1 the request build(r), runs localShare() for rank 0's share, then
    // hands every rank's decoded Reply to take(r, reply), in rank order. Throws the first
    // error (rank 0's own first, else the lowest failing rank's) once all have answered, so
    // that the ranks stay in step and the final Stop always finds them listening.
    template <class Reply, class Build, class Local, class Take>
    void exchange(int phase, Build build, Local localShare, Take take) {
        int sent = 1;
        std::exception_ptr failure;
        try {
            for (int r = 1; r < size(); ++r) {
                transport.send(r, kRequestTag, build(r));
                ++sent;
            }
            localShare();
        } catch (...) {
            failure = std::current_exception();
        }
        std::string workerError;
        for (int r = 1; r < sent; ++r) {
            std::vector<char> bytes;
            try {
                bytes = transport.receive(r, kReplyTag, std::chrono::microseconds(500), cancel);
            } catch (...) {
                // Cancelled, or MPI failed: rank 0 stops waiting, and the job is aborted once
                // the pipeline has recorded how the run ended.
                failure = std::current_exception();
                job.broken = true;
                break;
            }
            Answer<Reply> answer;
            try {
                answer = decodeReply<Reply>(bytes);
            } catch (...) {
                if (!failure) failure = std::current_exception();
                continue;
            }
            if (!answer.ok) {
                if (workerError.empty()) workerError = failureOf(r, answer.failure);
                continue;
            }
            if constexpr (requires { answer.value.done; }) account(r, phase, answer.value.done);
            if (!failure && workerError.empty()) {
                try {
                    take(r, answer.value);
                } catch (...) {
                    failure = std::current_exception();
                }
            }
        }
        if (failure) std::rethrow_exception(failure);
        if (!workerError.empty()) throw std::runtime_error(workerError);
    }
};

}  // namespace neardup::mpi
