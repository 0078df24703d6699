// The CUDA backend: signatures on one GPU; band keys and bucket comparison on the CPU for now.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend.h"
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
    void computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                           uint32_t* out) override;
    // Band keys and the comparison kernel are later issues; until then the CPU backend does
    // them, so results are identical by construction.
    void computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh, uint64_t modulus,
                         uint64_t* keys) override;
    uint64_t compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                            std::vector<ScoredPair>& out) override;

  private:
    int device_;
    std::string description_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<Backend> cpu_;
    // One call at a time: the staging buffers and the stream are shared.
    std::mutex mutex_;
    PinnedBuffer uploadHost_, downloadHost_;
    DeviceBuffer upload_, signatures_;
};

}  // namespace neardup::gpu
