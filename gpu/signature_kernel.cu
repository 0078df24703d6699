// The MinHash signature kernel: one thread block per document (see signature_block.h).
#include <cuda_runtime.h>

#include "signature_block.h"
#include "signature_kernel.h"

namespace neardup::gpu {

namespace {

constexpr int kMaxThreads = 256;  // upper bound of signatureBlockShape
constexpr std::size_t kDefaultSharedLimit = 48 * 1024;

struct DeviceBlock {
    int tid;
    int count;
    NEARDUP_HD int threads() const { return count; }
    template <class F>
    NEARDUP_HD void run(const F& phase) const {
        phase(tid);
#if defined(__CUDA_ARCH__)
        __syncthreads();
#endif
    }
    NEARDUP_HD void atomicMin(uint32_t* p, uint32_t v) const {
#if defined(__CUDA_ARCH__)
        ::atomicMin(p, v);
#else
        *p = minU32(*p, v);
#endif
    }
};

__global__ void __launch_bounds__(kMaxThreads) signatureKernel(SignatureArgs a, BlockShape shape) {
    extern __shared__ uint64_t shared[];
    const BlockShared sh = carveShared(shared, a, shape);
    const DeviceBlock block{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
    signatureBlock(a, blockIdx.x, sh, shape.tile, block);
}

}  // namespace

int launchSignatureKernel(const SignatureArgs& args, void* stream) {
    if (args.docs == 0) return cudaSuccess;
    if (args.docs > 0x7FFFFFFFu) return cudaErrorInvalidValue;  // grid x limit
    const BlockShape shape = signatureBlockShape(args.hashes, args.family);
    const std::size_t shared = signatureSharedBytes(args, shape);
    if (shared > kDefaultSharedLimit) {
        // Only reachable with thousands of hash functions; needs the opt-in carve-out.
        const cudaError_t err = cudaFuncSetAttribute(
            signatureKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
        if (err != cudaSuccess) return err;
    }
    signatureKernel<<<args.docs, shape.threads, shared, static_cast<cudaStream_t>(stream)>>>(args,
                                                                                             shape);
    return cudaGetLastError();
}

}  // namespace neardup::gpu
