// The band-key and bucket-comparison kernels: thin wrappers around compare_block.h.
#include <cuda_runtime.h>

#include "compare_block.h"
#include "compare_kernel.h"

namespace neardup::gpu {

namespace {

constexpr int kKeyThreads = 256;
constexpr int kPairThreads = 256;                // 8 warps per block, one pair each at a time
constexpr uint64_t kMaxGrid = 65535ull * 64ull;  // grid-stride beyond this many blocks

__global__ void __launch_bounds__(kKeyThreads) bandKeyKernel(BandKeyArgs a, uint64_t elements) {
    const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
    for (uint64_t e = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < elements;
         e += stride)
        bandKeyElement(a, e);
}

__device__ __forceinline__ unsigned long long warpSum(unsigned long long v) {
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    return v;
}

struct DeviceTileBlock {
    TileThread* self;
    CompareCounters* counters;
    template <class F>
    __device__ __forceinline__ void run(const F& phase) const {
        phase(static_cast<int>(threadIdx.x), *self);
        __syncthreads();
    }
    __device__ __forceinline__ uint64_t reserve(uint64_t n) const {
        return atomicAdd(&counters->found, static_cast<unsigned long long>(n));
    }
    // Every thread of the block calls this once: a warp sum, then one atomic per warp.
    __device__ __forceinline__ void decided(int t, uint32_t n) const {
        const unsigned long long total = warpSum(n);
        if ((t & (kWarpSize - 1)) == 0 && total) atomicAdd(&counters->decided, total);
    }
};

__global__ void __launch_bounds__(kTileThreads) compareTileKernel(CompareArgs a) {
    __shared__ TileShared shared;
    TileThread state;
    const DeviceTileBlock block{&state, a.counters};
    // Every thread of a block runs the same iterations, so the barriers inside match.
    for (uint64_t task = a.tileBegin + blockIdx.x; task < a.tileEnd; task += gridDim.x)
        compareTileBlock(a, task, shared, block);
}

struct DeviceWarp {
    int lane;
    CompareCounters* counters;
    template <class F>
    __device__ __forceinline__ uint32_t sum(const F& f) const {
        return static_cast<uint32_t>(warpSum(f(lane)));
    }
    template <class F>
    __device__ __forceinline__ bool any(const F& f) const {
        return __any_sync(0xFFFFFFFFu, f(lane) ? 1 : 0) != 0;
    }
    __device__ __forceinline__ bool leader() const { return lane == 0; }
    __device__ __forceinline__ uint64_t reserve(uint64_t n) const {
        return atomicAdd(&counters->found, static_cast<unsigned long long>(n));
    }
};

__global__ void __launch_bounds__(kPairThreads) comparePairKernel(CompareArgs a) {
    const int lane = static_cast<int>(threadIdx.x) & (kWarpSize - 1);
    const uint64_t warpsPerBlock = kPairThreads / kWarpSize;
    const uint64_t warp =
        static_cast<uint64_t>(blockIdx.x) * warpsPerBlock + threadIdx.x / kWarpSize;
    const uint64_t stride = static_cast<uint64_t>(gridDim.x) * warpsPerBlock;
    const DeviceWarp w{lane, a.counters};
    unsigned long long decided = 0;
    // The whole warp takes the same tasks, so the shuffles see all 32 lanes.
    for (uint64_t task = a.pairBegin + warp; task < a.pairEnd; task += stride)
        decided += comparePairWarp(a, task, w);
    if (lane == 0 && decided) atomicAdd(&a.counters->decided, decided);
}

unsigned int gridFor(uint64_t blocks) {
    return static_cast<unsigned int>(blocks < kMaxGrid ? blocks : kMaxGrid);
}

}  // namespace

int launchBandKeyKernel(const BandKeyArgs& args, void* stream) {
    const uint64_t elements = args.docs * static_cast<uint64_t>(args.bands > 0 ? args.bands : 0);
    if (elements == 0) return cudaSuccess;
    const uint64_t blocks = (elements + kKeyThreads - 1) / kKeyThreads;
    bandKeyKernel<<<gridFor(blocks), kKeyThreads, 0, static_cast<cudaStream_t>(stream)>>>(args,
                                                                                          elements);
    return cudaGetLastError();
}

int launchCompareKernels(const CompareArgs& args, void* stream) {
    const auto s = static_cast<cudaStream_t>(stream);
    if (args.tileEnd > args.tileBegin) {
        compareTileKernel<<<gridFor(args.tileEnd - args.tileBegin), kTileThreads, 0, s>>>(args);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    if (args.pairEnd > args.pairBegin) {
        const uint64_t warpsPerBlock = kPairThreads / kWarpSize;
        const uint64_t blocks = (args.pairEnd - args.pairBegin + warpsPerBlock - 1) / warpsPerBlock;
        comparePairKernel<<<gridFor(blocks), kPairThreads, 0, s>>>(args);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

}  // namespace neardup::gpu
