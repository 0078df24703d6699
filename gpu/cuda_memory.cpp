#include "cuda_memory.h"

#include "backend_factory.h"

namespace neardup::gpu {

namespace {

// Growing by half again keeps reallocations logarithmic in the largest batch.
std::size_t grownCapacity(std::size_t current, std::size_t wanted) {
    const std::size_t grown = current + current / 2;
    return wanted > grown ? wanted : grown;
}

}  // namespace

std::string cudaErrorText(cudaError_t err) {
    return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

void checkCuda(cudaError_t err, const char* what) {
    if (err == cudaSuccess) return;
    // Clear the sticky last-error slot for non-fatal errors so later calls start clean.
    cudaGetLastError();
    throw BackendError(std::string(what) + ": " + cudaErrorText(err));
}

DeviceBuffer::~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
}

void DeviceBuffer::reserve(std::size_t bytes) {
    if (bytes <= capacity_) return;
    const std::size_t capacity = grownCapacity(capacity_, bytes);
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
    checkCuda(cudaMalloc(&ptr_, capacity), "cudaMalloc");
    capacity_ = capacity;
}

PinnedBuffer::~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
}

void PinnedBuffer::reserve(std::size_t bytes) {
    if (bytes <= capacity_) return;
    const std::size_t capacity = grownCapacity(capacity_, bytes);
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
    checkCuda(cudaMallocHost(&ptr_, capacity), "cudaMallocHost");
    capacity_ = capacity;
}

}  // namespace neardup::gpu
