// The compute backend: what runs on a CPU or on a GPU. The pipeline owns the data and the
// phases; a backend only turns batches of inputs into outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "params.h"
#include "run_result.h"
#include "signatures.h"

namespace neardup {

struct InputFile;
struct LineChunk;
struct ChunkWork;  // chunk_work.h

// What a backend that reads input chunks itself (Backend::startChunks) needs to know of the run.
struct ChunkSetup {
    const std::vector<InputFile>* files = nullptr;
    ReaderOptions reader;
    SignatureParams signature;
    int threads = 0;  // the run's threads on this process (resolved, > 0)
};

// Documents' symbol streams back to back; document i spans [docBegin(i), docEnd[i]).
struct SymbolBatch {
    std::vector<uint32_t> symbols;
    std::vector<uint64_t> docEnd;

    std::size_t size() const { return docEnd.size(); }
    uint64_t docBegin(std::size_t i) const { return i == 0 ? 0 : docEnd[i - 1]; }
    void clear() {
        symbols.clear();
        docEnd.clear();
    }
};

// Buckets of one band: members[bucketBegin[j] .. bucketBegin[j+1]) are the documents of bucket
// j, in increasing document order. Only buckets with at least two members are listed.
struct BucketBatch {
    int band = 0;
    std::vector<uint32_t> members;
    std::vector<uint64_t> bucketBegin;  // size = buckets + 1

    std::size_t buckets() const { return bucketBegin.empty() ? 0 : bucketBegin.size() - 1; }
};

struct CompareRequest {
    const SignatureMatrix* signatures = nullptr;
    // Band keys of every document, n x bands, row-major; used for the first-collision rule: a
    // pair found in band t is compared only if no band t' < t gives both documents one key.
    const uint64_t* keys = nullptr;
    int bands = 0;
    int minMatches = 0;  // pairs below this are not reported
};

class Backend {
  public:
    virtual ~Backend() = default;
    // Human-readable, e.g. "cpu (8 threads)" or "cuda: NVIDIA H100 80GB HBM3".
    virtual std::string description() const = 0;
    // Writes batch.size() rows of c.hashes values into out (row-major).
    virtual void computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                                   uint32_t* out) = 0;
    // Whether computeSignatures may run on several threads at once. The reading pipeline then
    // signs each chunk in its parallel stage, next to parsing, instead of batch by batch in
    // its serial stage (a device backend wants the batches, and one caller).
    virtual bool signsConcurrently() const { return false; }
    // Optional: one document's signature, computed on the calling thread (the CPU backend).
    // When a backend has it, the reading pipeline signs each document as soon as it is
    // normalized, while its symbols are still in cache, instead of collecting a chunk's symbol
    // streams (four bytes a character) to sign them as a batch. Same rows either way.
    virtual bool signsOneDocument() const { return false; }
    virtual void signDocument(const uint32_t* /*symbols*/, std::size_t /*count*/,
                              const HashConstants& /*c*/, uint32_t* /*out*/,
                              std::vector<uint64_t>& /*scratch*/) const {
        throw std::logic_error("this backend does not sign one document at a time");
    }
    // keys[i * bands + t] = key of band t of document i, reduced modulo `modulus` unless it is 0.
    virtual void computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh,
                                 uint64_t modulus, uint64_t* keys) = 0;
    // Compares every pair inside every bucket of the batch (subject to the first-collision
    // rule), appending pairs with at least req.minMatches equal positions to out, in any order.
    // Identical signatures inside a bucket are collapsed so that exact copies cost O(B log B).
    // Returns the number of distinct pairs decided (compared, or joined as identical copies).
    virtual uint64_t compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                                    std::vector<ScoredPair>& out) = 0;
    // computeBandKeys for rows [first, first + count) only, written to keys[(i - first) * bands
    // + t]; lets several workers share one matrix. The default copies the rows; the CPU backend
    // reads them in place.
    virtual void computeBandKeyRange(const SignatureMatrix& signatures, std::size_t first,
                                     std::size_t count, const LshParams& lsh, uint64_t modulus,
                                     uint64_t* keys);
    // Optional: reading whole input chunks (parse, normalize, sign) elsewhere, e.g. on other
    // MPI ranks. startChunks returns how many chunks the backend can have in flight beyond the
    // pipeline's own threads; 0 (the default) means it does not read chunks. Otherwise the
    // reading pipeline's parallel stage calls processChunk, from that many more threads at
    // once, instead of parsing and signing itself; processChunk fills work as that stage would
    // (rows included; symbols.symbols may stay empty) and throws on failure. finishChunks
    // follows once reading ends, however it ended.
    virtual std::size_t startChunks(const ChunkSetup&) { return 0; }
    virtual void processChunk(const LineChunk&, ChunkWork&) {
        throw std::logic_error("this backend does not read chunks");
    }
    virtual void finishChunks() {}
    // Per-worker busy time since the previous call (which it resets), for backends made of
    // several workers; empty for a single one.
    virtual std::vector<WorkerTiming> takeWorkerTimings() { return {}; }
};

inline void Backend::computeBandKeyRange(const SignatureMatrix& signatures, std::size_t first,
                                         std::size_t count, const LshParams& lsh, uint64_t modulus,
                                         uint64_t* keys) {
    const auto h = static_cast<std::size_t>(signatures.hashes);
    const auto at = static_cast<std::ptrdiff_t>(first);
    const auto end = static_cast<std::ptrdiff_t>(first + count);
    SignatureMatrix part;
    part.hashes = signatures.hashes;
    part.values.assign(signatures.values.begin() + at * static_cast<std::ptrdiff_t>(h),
                       signatures.values.begin() + end * static_cast<std::ptrdiff_t>(h));
    part.digests.assign(signatures.digests.begin() + at, signatures.digests.begin() + end);
    part.eligible.assign(signatures.eligible.begin() + at, signatures.eligible.begin() + end);
    computeBandKeys(part, lsh, modulus, keys);
}

// Ready-made CPU backend running on `threads` threads (0 = all hardware threads).
std::unique_ptr<Backend> makeCpuBackend(int threads);

}  // namespace neardup
