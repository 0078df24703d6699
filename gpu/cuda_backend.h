// The CUDA backend: signatures, band keys and bucket comparison on one GPU, streamed through
// two CUDA streams so that the host stages the next batch while the device works on this one.
// Signatures are computed in the reading pipeline's parallel stage: up to kSignatureLanes
// threads sign their chunks at once, each on a lane of its own (two streams and their buffers),
// so that one chunk's copies and host staging overlap another's kernel.
// Exact copies inside a bucket are collapsed on the host (the CPU backend's code) before the
// leaders go to the device.
#pragma once

#include <cuda_runtime.h>
#include <tbb/task_arena.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend.h"
#include "compare_kernel.h"
#include "compare_plan.h"
#include "cuda_memory.h"

namespace neardup::gpu {

class CudaBackend final : public Backend {
  public:
    // Throws BackendError when `device` cannot be selected.
    CudaBackend(int device, int cpuThreads);
    ~CudaBackend() override;
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    std::string description() const override { return description_; }
    bool signsConcurrently() const override { return true; }
    void computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                           uint32_t* out) override;
    void computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh, uint64_t modulus,
                         uint64_t* keys) override;
    uint64_t compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                            std::vector<ScoredPair>& out) override;

  private:
    // Where the result of one of two alternating stages of a streamed phase goes: rows
    // [firstDoc, firstDoc + docs) of the phase's output, while the stage is busy.
    struct StagedRows {
        std::size_t firstDoc = 0, docs = 0;
        bool busy = false;

        // After the stage's kernel is queued on `stream`: queues the copy of its `bytes` of
        // results from `device` to the pinned `host` buffer (failing as `what`), for rows
        // [first, first + rows).
        void download(void* host, const void* device, std::size_t bytes, cudaStream_t stream,
                      const char* what, std::size_t first, std::size_t rows);
        // Once `stream` is done (failing as `what`), the rows from `host` into `out`, `rowBytes`
        // each; nothing when the stage is not busy.
        void finish(cudaStream_t stream, const char* what, const void* host, void* out,
                    std::size_t rowBytes);
    };
    // A stage of the signatures: pinned staging and device buffers.
    struct SignatureSlot : StagedRows {
        PinnedBuffer uploadHost, downloadHost;
        DeviceBuffer upload, signatures;
    };
    // What one signing thread holds: two alternating stages on two streams of its own.
    struct SignatureLane {
        cudaStream_t streams[2] = {nullptr, nullptr};
        SignatureSlot slots[2];
        bool taken = false;
    };
    static constexpr int kSignatureLanes = 4;
    struct KeySlot : StagedRows {
        PinnedBuffer signaturesHost, keysHost;
        DeviceBuffer signatures, keys;
    };
    struct CompareSlot {
        PassPlan plan;
        PinnedBuffer passHost, pairsHost, countersHost;
        DeviceBuffer pass, pairs, counters;
        uint64_t capacity = 0;  // pairs the output buffer holds
        CompareArgs args;
        bool busy = false;
    };

    void finishSignatures(SignatureSlot& s, cudaStream_t stream, uint32_t* out, std::size_t hashes);
    void signOnLane(SignatureLane& lane, const SymbolBatch& batch, const HashConstants& c,
                    uint32_t* out);
    void finishKeys(KeySlot& s, uint64_t* keys, std::size_t bands);
    void gatherPass(CompareSlot& s, const CompareRequest& req, int keyBands);
    void launchPass(CompareSlot& s);
    CompareCounters runTasks(CompareSlot& s, uint64_t begin, uint64_t end);
    uint64_t finishPass(CompareSlot& s, std::vector<ScoredPair>& out);
    // After an error: waits for both streams and forgets what was in flight.
    void abandon();

    int device_;
    std::string description_;
    tbb::task_arena arena_;
    cudaStream_t streams_[2] = {nullptr, nullptr};
    // One band-key or comparison call at a time: their slots and streams are shared.
    std::mutex mutex_;
    // Device memory this backend may use (free memory at start minus a margin) and how it is
    // split: streamed chunks of signatures and keys, passes of the comparison, output pairs.
    uint64_t budget_ = 0;
    uint64_t chunkBytes_ = 0;
    uint64_t passBytes_ = 0;
    uint64_t passRows_ = 0;  // 0: from passBytes_
    uint64_t initialPairs_ = 0, maxPairs_ = 0;
    // Signing lanes, handed out under laneMutex_ (computeSignatures has many callers).
    SignatureLane lanes_[kSignatureLanes];
    std::mutex laneMutex_;
    std::condition_variable laneFree_;
    KeySlot keySlots_[2];
    CompareSlot compareSlots_[2];
};

}  // namespace neardup::gpu
