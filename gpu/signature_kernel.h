// Launch interface of the MinHash signature kernel. Free of CUDA types so that host code compiled
// as C++20 can call it while the kernel itself is compiled by nvcc as C++17.
#pragma once

#include <cstdint>

namespace neardup::gpu {

// Oph: one-permutation hashing with densification (core/sketch/oph_sketch.h) over the permutation
// family's fingerprints.
enum class SignatureFamily : int { Rolling = 0, Permute = 1, Oph = 2 };

// Everything the kernel reads and writes, as raw pointers: device pointers for the kernel, host
// pointers for the host emulation of a block (signature_block.h).
struct SignatureArgs {
    const uint32_t* symbols = nullptr;  // all documents back to back
    const uint64_t* docEnd = nullptr;   // document d spans [docEnd[d-1], docEnd[d])
    uint32_t docs = 0;
    SignatureFamily family = SignatureFamily::Permute;
    int ngram = 5;
    int hashes = 128;
    // Rolling family, `hashes` entries each.
    const uint32_t* rollBase = nullptr;
    const uint32_t* rollTop = nullptr;
    const uint32_t* rollMul = nullptr;
    const uint32_t* rollAdd = nullptr;
    // Permutation family and Oph: fingerprint base and salt; then `hashes` entries each
    // (Permute only), or the densification salt (Oph only).
    uint64_t fpBase = 0;
    uint64_t fpSalt = 0;
    uint64_t ophSalt = 0;
    const uint64_t* permA = nullptr;
    const uint64_t* permB = nullptr;
    uint32_t* out = nullptr;  // docs x hashes, row-major
};

// Enqueues the kernel on `stream` (a cudaStream_t). Returns a cudaError_t value, 0 on success.
int launchSignatureKernel(const SignatureArgs& args, void* stream);

}  // namespace neardup::gpu
