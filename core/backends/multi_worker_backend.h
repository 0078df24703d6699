// A Backend made of several backends (one per GPU, or several CPU workers): every call is split
// into one contiguous part per worker, each worker computes its part on its own thread, and the
// parts are put back together in worker order, so results do not depend on the worker count.
//
//   computeSignatures  documents split by symbol count (documents are very uneven); each worker
//                      writes its rows straight into the caller's output
//   computeBandKeys    rows split evenly, signatures read in place (computeBandKeyRange)
//   compareBuckets     buckets split by comparison work (sum of size (size - 1) / 2); pairs
//                      appended in worker order, decided counts summed. Callers sort the pairs.
//
// Each sub-backend is only ever called from its own persistent thread (a GPU context stays on
// one thread). Calls into the MultiWorkerBackend are serialized.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend.h"

namespace neardup {

class MultiWorkerBackend final : public Backend {
  public:
    // `labels` name the workers in descriptions and timings (default: "worker i: <its
    // description>"); when given, one per worker. At least one worker; throws
    // std::invalid_argument otherwise.
    explicit MultiWorkerBackend(std::vector<std::unique_ptr<Backend>> workers,
                                std::vector<std::string> labels = {});
    ~MultiWorkerBackend() override;
    MultiWorkerBackend(const MultiWorkerBackend&) = delete;
    MultiWorkerBackend& operator=(const MultiWorkerBackend&) = delete;

    std::size_t workers() const { return workers_.size(); }
    // "3 workers: cpu (1 thread) x3" or "2 workers: cuda:0 NVIDIA H100, cuda:1 NVIDIA H100".
    std::string description() const override { return description_; }
    void computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                           uint32_t* out) override;
    void computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh, uint64_t modulus,
                         uint64_t* keys) override;
    void computeBandKeyRange(const SignatureMatrix& signatures, std::size_t first,
                             std::size_t count, const LshParams& lsh, uint64_t modulus,
                             uint64_t* keys) override;
    uint64_t compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                            std::vector<ScoredPair>& out) override;
    // One entry per worker for every phase called since the last take, in (phase, worker)
    // order; resets the counters.
    std::vector<WorkerTiming> takeWorkerTimings() override;

    // Splits items 0..n, whose cumulative weight up to and including item i is
    // cumulative(i) (non-decreasing), into `parts` contiguous ranges of about equal weight:
    // returns parts + 1 boundaries, the first 0 and the last n. Exposed for the tests.
    static std::vector<std::size_t> splitByWeight(
        std::size_t n, std::size_t parts, const std::function<uint64_t(std::size_t)>& cumulative);

  private:
    enum Phase { kSignatures, kBuckets, kCompare, kPhases };
    struct Worker;

    // Runs job(w), on worker w's thread, for every worker whose range [bounds[w],
    // bounds[w + 1]) is not empty, and waits for all; rethrows the first failure in worker
    // order. The time each job takes is added to its worker's `phase`.
    void runOnWorkers(Phase phase, const std::vector<std::size_t>& bounds,
                      const std::function<void(std::size_t)>& job);
    void loop(Worker& w);

    std::vector<std::unique_ptr<Worker>> workers_;
    std::string description_;
    std::mutex call_;  // one call at a time
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::size_t pending_ = 0;
    bool stop_ = false;
    bool phaseUsed_[kPhases] = {};
};

}  // namespace neardup
