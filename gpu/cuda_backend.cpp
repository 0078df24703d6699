#include "cuda_backend.h"

#include <cstring>

#include "backend_factory.h"
#include "cuda_support.h"
#include "signature_kernel.h"

namespace neardup::gpu {

namespace {

void requireConstants(const HashConstants& c) {
    const auto h = static_cast<std::size_t>(c.hashes);
    bool ok = c.hashes >= 1 && c.ngram >= 1;
    if (c.family == HashFamily::Rolling)
        ok = ok && c.rollBase.size() >= h && c.rollTop.size() >= h && c.rollMul.size() >= h &&
             c.rollAdd.size() >= h;
    else
        ok = ok && c.permA.size() >= h && c.permB.size() >= h;
    if (!ok) throw BackendError("cuda: hash constants do not match hashes/ngram");
}

// Appends `count` elements to the staging area at byte offset `at` and returns their offset.
template <class T>
std::size_t stage(unsigned char* host, std::size_t& at, const T* src, std::size_t count) {
    const std::size_t offset = at;
    if (count) std::memcpy(host + offset, src, count * sizeof(T));
    at += count * sizeof(T);
    return offset;
}

}  // namespace

CudaBackend::CudaBackend(int device, int cpuThreads)
    : device_(device), cpu_(makeCpuBackend(cpuThreads)) {
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp prop{};
    checkCuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    description_ = std::string("cuda: ") + prop.name;
    checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

CudaBackend::~CudaBackend() {
    cudaSetDevice(device_);
    if (stream_) cudaStreamDestroy(stream_);
}

void CudaBackend::computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                                    uint32_t* out) {
    const std::size_t n = batch.size();
    if (n == 0) return;
    // The kernel computes the classic sketch only; one-permutation hashing is one hash per
    // shingle and runs at memory speed on the CPU, so it stays there.
    if (c.sketch == SketchKind::Oph) return cpu_->computeSignatures(batch, c, out);
    requireConstants(c);
    const auto h = static_cast<std::size_t>(c.hashes);
    const uint64_t symbols = batch.docEnd.back();
    if (symbols > batch.symbols.size())
        throw BackendError("cuda: batch document offsets exceed its symbols");
    if (n > 0x7FFFFFFFu) throw BackendError("cuda: too many documents in one batch");
    const bool rolling = c.family == HashFamily::Rolling;

    std::lock_guard<std::mutex> lock(mutex_);
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");

    // Everything goes up in one copy: 64-bit arrays first so every array stays aligned.
    const std::size_t uploadBytes =
        n * sizeof(uint64_t) + (rolling ? 4 * h * sizeof(uint32_t) : 2 * h * sizeof(uint64_t)) +
        symbols * sizeof(uint32_t);
    uploadHost_.reserve(uploadBytes);
    upload_.reserve(uploadBytes);
    unsigned char* host = uploadHost_.data();
    std::size_t at = 0;
    const std::size_t docEndAt = stage(host, at, batch.docEnd.data(), n);
    std::size_t permAAt = 0, permBAt = 0, rollAt = 0;
    if (rolling) {
        rollAt = stage(host, at, c.rollBase.data(), h);
        stage(host, at, c.rollTop.data(), h);
        stage(host, at, c.rollMul.data(), h);
        stage(host, at, c.rollAdd.data(), h);
    } else {
        permAAt = stage(host, at, c.permA.data(), h);
        permBAt = stage(host, at, c.permB.data(), h);
    }
    const std::size_t symbolsAt = stage(host, at, batch.symbols.data(), symbols);
    checkCuda(cudaMemcpyAsync(upload_.data(), host, uploadBytes, cudaMemcpyHostToDevice, stream_),
              "cudaMemcpyAsync (upload)");

    const std::size_t outBytes = n * h * sizeof(uint32_t);
    signatures_.reserve(outBytes);
    auto* device = static_cast<unsigned char*>(upload_.data());
    SignatureArgs args;
    args.symbols = reinterpret_cast<const uint32_t*>(device + symbolsAt);
    args.docEnd = reinterpret_cast<const uint64_t*>(device + docEndAt);
    args.docs = static_cast<uint32_t>(n);
    args.family = rolling ? SignatureFamily::Rolling : SignatureFamily::Permute;
    args.ngram = c.ngram;
    args.hashes = c.hashes;
    if (rolling) {
        const auto* roll = reinterpret_cast<const uint32_t*>(device + rollAt);
        args.rollBase = roll;
        args.rollTop = roll + h;
        args.rollMul = roll + 2 * h;
        args.rollAdd = roll + 3 * h;
    } else {
        args.fpBase = c.fpBase;
        args.fpSalt = c.fpSalt;
        args.permA = reinterpret_cast<const uint64_t*>(device + permAAt);
        args.permB = reinterpret_cast<const uint64_t*>(device + permBAt);
    }
    args.out = static_cast<uint32_t*>(signatures_.data());
    checkCuda(static_cast<cudaError_t>(launchSignatureKernel(args, stream_)), "signature kernel");

    downloadHost_.reserve(outBytes);
    checkCuda(cudaMemcpyAsync(downloadHost_.data(), signatures_.data(), outBytes,
                              cudaMemcpyDeviceToHost, stream_),
              "cudaMemcpyAsync (download)");
    checkCuda(cudaStreamSynchronize(stream_), "signature kernel");
    std::memcpy(out, downloadHost_.data(), outBytes);
}

void CudaBackend::computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh,
                                  uint64_t modulus, uint64_t* keys) {
    cpu_->computeBandKeys(signatures, lsh, modulus, keys);
}

uint64_t CudaBackend::compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                                     std::vector<ScoredPair>& out) {
    return cpu_->compareBuckets(buckets, req, out);
}

std::unique_ptr<Backend> makeCudaBackend(int device, int cpuThreads) {
    return std::make_unique<CudaBackend>(device, cpuThreads);
}

}  // namespace neardup::gpu
