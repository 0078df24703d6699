// Error checks and grow-only device / pinned host buffers for the CUDA backend's host code.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace neardup::gpu {

// "cudaErrorMemoryAllocation: out of memory".
std::string cudaErrorText(cudaError_t err);

// Throws BackendError("<what>: <cudaErrorText>") unless err is cudaSuccess.
void checkCuda(cudaError_t err, const char* what);

// Device memory that only grows, so that a backend processing batch after batch allocates a
// handful of times in total.
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    // Contents are not preserved when the buffer grows.
    void reserve(std::size_t bytes);
    void* data() const { return ptr_; }

  private:
    void* ptr_ = nullptr;
    std::size_t capacity_ = 0;
};

// Page-locked host memory: the only kind from which copies are truly asynchronous.
class PinnedBuffer {
  public:
    PinnedBuffer() = default;
    ~PinnedBuffer();
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    void reserve(std::size_t bytes);
    unsigned char* data() const { return static_cast<unsigned char*>(ptr_); }

  private:
    void* ptr_ = nullptr;
    std::size_t capacity_ = 0;
};

}  // namespace neardup::gpu
