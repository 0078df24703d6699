#include "cuda_backend.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backend_factory.h"
#include "cuda_support.h"
#include "signature_kernel.h"
#include "thread_count.h"

namespace neardup::gpu {

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
// Streamed chunks of symbols / signatures / keys, per stage.
constexpr uint64_t kMaxChunkBytes = 64 * kMiB;
// A pass's gathered rows, per stage (pinned host memory as much as device memory).
constexpr uint64_t kMaxPassBytes = 256 * kMiB;
constexpr uint64_t kMaxInitialPairs = uint64_t{4} << 20;

void requireConstants(const HashConstants& c) {
    const auto h = static_cast<std::size_t>(c.hashes);
    bool ok = c.hashes >= 1 && c.ngram >= 1;
    if (c.sketch == SketchKind::Oph)
        ok = ok && c.family == HashFamily::Permute;
    else if (c.family == HashFamily::Rolling)
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

std::size_t align16(std::size_t x) {
    return (x + 15) / 16 * 16;
}

// A positive integer from the environment, or `fallback`. Debugging knobs that force small
// chunks, passes and output buffers so that a small corpus exercises the splitting paths.
uint64_t envLimit(const char* name, uint64_t fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    const unsigned long long x = std::strtoull(v, &end, 10);
    return end && *end == '\0' && x > 0 ? static_cast<uint64_t>(x) : fallback;
}

// Where each array of a pass lies in its one buffer (host and device alike).
struct PassLayout {
    std::size_t tiles = 0, pairs = 0, keys = 0, signatures = 0, ids = 0, total = 0;
};

PassLayout passLayout(const PassPlan& p, int hashes, int keyBands) {
    PassLayout l;
    const std::size_t rows = p.docs.size();
    std::size_t at = 0;
    l.tiles = at;
    at = align16(at + p.tiles.size() * sizeof(TileSegment));
    l.pairs = at;
    at = align16(at + p.pairs.size() * sizeof(PairSegment));
    l.keys = at;
    at = align16(at + rows * static_cast<std::size_t>(keyBands) * sizeof(uint64_t));
    l.signatures = at;
    at = align16(at + rows * static_cast<std::size_t>(hashes) * sizeof(uint32_t));
    l.ids = at;
    at = align16(at + rows * sizeof(uint32_t));
    l.total = at;
    return l;
}

}  // namespace

CudaBackend::CudaBackend(int device, int cpuThreads)
    : device_(device), arena_(resolveThreads(cpuThreads)) {
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp prop{};
    checkCuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    description_ = std::string("cuda: ") + prop.name;
    std::size_t freeBytes = 0, totalBytes = 0;
    checkCuda(cudaMemGetInfo(&freeBytes, &totalBytes), "cudaMemGetInfo");
    // Leave room for other users of the device, the context and fragmentation.
    const uint64_t margin = std::max<uint64_t>(512 * kMiB, totalBytes / 10);
    budget_ = freeBytes > margin ? freeBytes - margin : freeBytes / 2;
    budget_ = envLimit("NEARDUP_CUDA_BUDGET_BYTES", budget_);
    // Half the budget for the streamed phases (2 stages x 2 buffers per phase, the signature and
    // key slots stay allocated side by side), half for the comparison (2 stages x pass + pairs).
    chunkBytes_ = envLimit("NEARDUP_CUDA_CHUNK_BYTES", std::min(kMaxChunkBytes, budget_ / 16));
    passBytes_ = std::max<uint64_t>(kMiB, std::min(kMaxPassBytes, budget_ / 8));
    passRows_ = envLimit("NEARDUP_CUDA_PASS_ROWS", 0);
    // Past maxPairs_ an overflowing pass is re-run in halves; one tile task never needs more.
    maxPairs_ = std::max(kMaxPairsPerTask,
                         envLimit("NEARDUP_CUDA_MAX_PAIRS", budget_ / 8 / sizeof(FoundPair)));
    initialPairs_ = envLimit("NEARDUP_CUDA_PAIR_CAPACITY", std::min(kMaxInitialPairs, maxPairs_));
    for (cudaStream_t& s : streams_)
        checkCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    for (SignatureLane& lane : lanes_)
        for (cudaStream_t& s : lane.streams)
            checkCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
}

CudaBackend::~CudaBackend() {
    cudaSetDevice(device_);
    const auto release = [](cudaStream_t s) {
        if (!s) return;
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    };
    for (cudaStream_t s : streams_)
        release(s);
    for (SignatureLane& lane : lanes_)
        for (cudaStream_t s : lane.streams)
            release(s);
}

void CudaBackend::abandon() {
    for (cudaStream_t s : streams_)
        cudaStreamSynchronize(s);
    cudaGetLastError();
    for (auto& s : keySlots_)
        s.busy = false;
    for (auto& s : compareSlots_)
        s.busy = false;
}

void CudaBackend::StagedRows::download(void* host, const void* device, std::size_t bytes,
                                       cudaStream_t stream, const char* what, std::size_t first,
                                       std::size_t rows) {
    checkCuda(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream), what);
    firstDoc = first;
    docs = rows;
    busy = true;
}

void CudaBackend::StagedRows::finish(cudaStream_t stream, const char* what, const void* host,
                                     void* out, std::size_t rowBytes) {
    if (!busy) return;
    checkCuda(cudaStreamSynchronize(stream), what);
    busy = false;
    std::memcpy(static_cast<unsigned char*>(out) + firstDoc * rowBytes, host, docs * rowBytes);
}

// ---- Signatures --------------------------------------------------------------------------------

void CudaBackend::finishSignatures(SignatureSlot& s, cudaStream_t stream, uint32_t* out,
                                   std::size_t hashes) {
    s.finish(stream, "signature kernel", s.downloadHost.data(), out, hashes * sizeof(uint32_t));
}

void CudaBackend::computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                                    uint32_t* out) {
    if (batch.size() == 0) return;
    requireConstants(c);
    if (batch.docEnd.back() > batch.symbols.size())
        throw BackendError("cuda: batch document offsets exceed its symbols");
    // Take a free lane, waiting while every lane is signing another chunk.
    SignatureLane* lane = nullptr;
    {
        std::unique_lock<std::mutex> lock(laneMutex_);
        laneFree_.wait(lock, [&] {
            for (SignatureLane& l : lanes_)
                if (!l.taken) {
                    lane = &l;
                    return true;
                }
            return false;
        });
        lane->taken = true;
    }
    struct GiveBack {
        CudaBackend& backend;
        SignatureLane& lane;
        ~GiveBack() {
            {
                std::lock_guard<std::mutex> lock(backend.laneMutex_);
                lane.taken = false;
            }
            backend.laneFree_.notify_one();
        }
    } giveBack{*this, *lane};
    signOnLane(*lane, batch, c, out);
}

void CudaBackend::signOnLane(SignatureLane& lane, const SymbolBatch& batch, const HashConstants& c,
                             uint32_t* out) {
    const std::size_t n = batch.size();
    const auto h = static_cast<std::size_t>(c.hashes);
    const bool oph = c.sketch == SketchKind::Oph;
    const bool rolling = !oph && c.family == HashFamily::Rolling;
    // Oph needs no per-function constants: its bins come from the fingerprint itself.
    const std::size_t constantBytes =
        oph ? 0 : (rolling ? 4 * h * sizeof(uint32_t) : 2 * h * sizeof(uint64_t));

    // The calling thread may be new to this device (a reading-pipeline thread).
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    try {
        // Chunks of whole documents, alternating between the two stages: while the device signs
        // one chunk, the host stages the next and copies the previous one's signatures out.
        std::size_t d0 = 0;
        for (int round = 0; d0 < n; ++round) {
            const uint64_t base = batch.docBegin(d0);
            const auto bytesUpTo = [&](std::size_t d1) {
                const uint64_t docs = d1 - d0;
                return std::max(
                    (batch.docEnd[d1 - 1] - base) * sizeof(uint32_t) + docs * sizeof(uint64_t),
                    docs * h * sizeof(uint32_t));
            };
            std::size_t d1 = d0 + 1;
            while (d1 < n && d1 - d0 < 0x7FFFFFFFu && bytesUpTo(d1 + 1) <= chunkBytes_)
                ++d1;
            const uint64_t symbols = batch.docEnd[d1 - 1] - base;
            const std::size_t docs = d1 - d0;

            SignatureSlot& s = lane.slots[round % 2];
            const cudaStream_t stream = lane.streams[round % 2];
            finishSignatures(s, stream, out, h);

            // Everything goes up in one copy: 64-bit arrays first so every array stays aligned.
            const std::size_t uploadBytes =
                docs * sizeof(uint64_t) + constantBytes + symbols * sizeof(uint32_t);
            s.uploadHost.reserve(uploadBytes);
            s.upload.reserve(uploadBytes);
            unsigned char* host = s.uploadHost.data();
            std::size_t at = 0;
            auto* docEnd = reinterpret_cast<uint64_t*>(host);
            for (std::size_t i = 0; i < docs; ++i)
                docEnd[i] = batch.docEnd[d0 + i] - base;
            at = docs * sizeof(uint64_t);
            std::size_t permAAt = 0, permBAt = 0, rollAt = 0;
            if (rolling) {
                rollAt = stage(host, at, c.rollBase.data(), h);
                stage(host, at, c.rollTop.data(), h);
                stage(host, at, c.rollMul.data(), h);
                stage(host, at, c.rollAdd.data(), h);
            } else if (!oph) {
                permAAt = stage(host, at, c.permA.data(), h);
                permBAt = stage(host, at, c.permB.data(), h);
            }
            const std::size_t symbolsAt =
                stage(host, at, batch.symbols.data() + base, static_cast<std::size_t>(symbols));
            checkCuda(
                cudaMemcpyAsync(s.upload.data(), host, uploadBytes, cudaMemcpyHostToDevice, stream),
                "cudaMemcpyAsync (symbols)");

            const std::size_t outBytes = docs * h * sizeof(uint32_t);
            s.signatures.reserve(outBytes);
            s.downloadHost.reserve(outBytes);
            auto* device = static_cast<unsigned char*>(s.upload.data());
            SignatureArgs args;
            args.symbols = reinterpret_cast<const uint32_t*>(device + symbolsAt);
            args.docEnd = reinterpret_cast<const uint64_t*>(device);
            args.docs = static_cast<uint32_t>(docs);
            args.family = oph ? SignatureFamily::Oph
                              : (rolling ? SignatureFamily::Rolling : SignatureFamily::Permute);
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
                args.ophSalt = c.ophSalt;
                if (!oph) {
                    args.permA = reinterpret_cast<const uint64_t*>(device + permAAt);
                    args.permB = reinterpret_cast<const uint64_t*>(device + permBAt);
                }
            }
            args.out = static_cast<uint32_t*>(s.signatures.data());
            checkCuda(static_cast<cudaError_t>(launchSignatureKernel(args, stream)),
                      "signature kernel launch");
            s.download(s.downloadHost.data(), s.signatures.data(), outBytes, stream,
                       "cudaMemcpyAsync (signatures)", d0, docs);
            d0 = d1;
        }
        for (int i = 0; i < 2; ++i)
            finishSignatures(lane.slots[i], lane.streams[i], out, h);
    } catch (...) {
        // Forget what was in flight on this lane; other lanes are untouched.
        for (int i = 0; i < 2; ++i) {
            cudaStreamSynchronize(lane.streams[i]);
            lane.slots[i].busy = false;
        }
        cudaGetLastError();
        throw;
    }
}

// ---- Band keys ---------------------------------------------------------------------------------

void CudaBackend::finishKeys(KeySlot& s, uint64_t* keys, std::size_t bands) {
    s.finish(streams_[&s - keySlots_], "band-key kernel", s.keysHost.data(), keys,
             bands * sizeof(uint64_t));
}

void CudaBackend::computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh,
                                  uint64_t modulus, uint64_t* keys) {
    const std::size_t n = signatures.size();
    if (n == 0 || lsh.bands <= 0) return;
    if (lsh.rows < 1 || static_cast<int64_t>(lsh.bands) * lsh.rows > signatures.hashes)
        throw BackendError("cuda: bands x rows exceed the signature length");
    if (signatures.values.size() < n * static_cast<std::size_t>(signatures.hashes))
        throw BackendError("cuda: the signature matrix holds fewer rows than digests");
    const auto h = static_cast<std::size_t>(signatures.hashes);
    const auto bands = static_cast<std::size_t>(lsh.bands);
    const std::size_t rowBytes = h * sizeof(uint32_t) + bands * sizeof(uint64_t);
    const std::size_t rowsPerChunk = std::max<std::size_t>(1, chunkBytes_ / rowBytes);

    std::lock_guard<std::mutex> lock(mutex_);
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    try {
        std::size_t d0 = 0;
        for (int round = 0; d0 < n; ++round) {
            const std::size_t docs = std::min(rowsPerChunk, n - d0);
            KeySlot& s = keySlots_[round % 2];
            const cudaStream_t stream = streams_[round % 2];
            finishKeys(s, keys, bands);
            const std::size_t sigBytes = docs * h * sizeof(uint32_t);
            const std::size_t keyBytes = docs * bands * sizeof(uint64_t);
            s.signaturesHost.reserve(sigBytes);
            s.signatures.reserve(sigBytes);
            s.keysHost.reserve(keyBytes);
            s.keys.reserve(keyBytes);
            std::memcpy(s.signaturesHost.data(), signatures.row(d0), sigBytes);
            checkCuda(cudaMemcpyAsync(s.signatures.data(), s.signaturesHost.data(), sigBytes,
                                      cudaMemcpyHostToDevice, stream),
                      "cudaMemcpyAsync (signatures for band keys)");
            BandKeyArgs args;
            args.signatures = static_cast<const uint32_t*>(s.signatures.data());
            args.keys = static_cast<uint64_t*>(s.keys.data());
            args.docs = docs;
            args.hashes = signatures.hashes;
            args.bands = lsh.bands;
            args.rows = lsh.rows;
            args.sumScheme = lsh.scheme == BandKeyScheme::Sum ? 1 : 0;
            args.modulus = modulus;
            checkCuda(static_cast<cudaError_t>(launchBandKeyKernel(args, stream)),
                      "band-key kernel launch");
            s.download(s.keysHost.data(), s.keys.data(), keyBytes, stream,
                       "cudaMemcpyAsync (band keys)", d0, docs);
            d0 += docs;
        }
        for (KeySlot& s : keySlots_)
            finishKeys(s, keys, bands);
    } catch (...) {
        abandon();
        throw;
    }
}

// ---- Comparison --------------------------------------------------------------------------------

void CudaBackend::gatherPass(CompareSlot& s, const CompareRequest& req, int keyBands) {
    const PassPlan& p = s.plan;
    const int hashes = req.signatures->hashes;
    const PassLayout l = passLayout(p, hashes, keyBands);
    s.passHost.reserve(l.total);
    s.pass.reserve(l.total);
    unsigned char* host = s.passHost.data();
    if (!p.tiles.empty())
        std::memcpy(host + l.tiles, p.tiles.data(), p.tiles.size() * sizeof(TileSegment));
    if (!p.pairs.empty())
        std::memcpy(host + l.pairs, p.pairs.data(), p.pairs.size() * sizeof(PairSegment));
    auto* keys = reinterpret_cast<uint64_t*>(host + l.keys);
    auto* sigs = reinterpret_cast<uint32_t*>(host + l.signatures);
    auto* ids = reinterpret_cast<uint32_t*>(host + l.ids);
    const auto h = static_cast<std::size_t>(hashes);
    const auto kb = static_cast<std::size_t>(keyBands);
    const auto bands = static_cast<std::size_t>(req.bands);
    // Rows lie anywhere in the matrix: the gather is the host's share of the work, spread over
    // the CPU threads while the device compares the other stage's pass.
    arena_.execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<std::size_t>(0, p.docs.size(), 512),
            [&](const tbb::blocked_range<std::size_t>& r) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) {
                    const uint32_t doc = p.docs[i];
                    std::memcpy(sigs + i * h, req.signatures->row(doc), h * sizeof(uint32_t));
                    if (kb)
                        std::memcpy(keys + i * kb, req.keys + doc * bands, kb * sizeof(uint64_t));
                    ids[i] = doc;
                }
            });
    });
    auto* device = static_cast<unsigned char*>(s.pass.data());
    CompareArgs& a = s.args;
    a = CompareArgs{};
    a.signatures = reinterpret_cast<const uint32_t*>(device + l.signatures);
    a.keys = kb ? reinterpret_cast<const uint64_t*>(device + l.keys) : nullptr;
    a.ids = reinterpret_cast<const uint32_t*>(device + l.ids);
    a.hashes = hashes;
    a.keyBands = keyBands;
    a.minMatches = req.minMatches;
    a.tileSegments = reinterpret_cast<const TileSegment*>(device + l.tiles);
    a.tileSegmentCount = static_cast<uint32_t>(p.tiles.size());
    a.pairSegments = reinterpret_cast<const PairSegment*>(device + l.pairs);
    a.pairSegmentCount = static_cast<uint32_t>(p.pairs.size());
    taskRanges(p, 0, p.tasks(), a);
    if (s.capacity == 0) {
        s.capacity = initialPairs_;
        s.pairs.reserve(s.capacity * sizeof(FoundPair));
        s.pairsHost.reserve(s.capacity * sizeof(FoundPair));
    }
    s.counters.reserve(sizeof(CompareCounters));
    s.countersHost.reserve(sizeof(CompareCounters));
    a.out = static_cast<FoundPair*>(s.pairs.data());
    a.capacity = s.capacity;
    a.counters = static_cast<CompareCounters*>(s.counters.data());
    const int index = static_cast<int>(&s - compareSlots_);
    checkCuda(
        cudaMemcpyAsync(s.pass.data(), host, l.total, cudaMemcpyHostToDevice, streams_[index]),
        "cudaMemcpyAsync (pass)");
}

// Enqueues the kernels for the tasks in s.args and the copy of the counters back.
void CudaBackend::launchPass(CompareSlot& s) {
    const cudaStream_t stream = streams_[&s - compareSlots_];
    checkCuda(cudaMemsetAsync(s.counters.data(), 0, sizeof(CompareCounters), stream),
              "cudaMemsetAsync (counters)");
    checkCuda(static_cast<cudaError_t>(launchCompareKernels(s.args, stream)),
              "comparison kernel launch");
    checkCuda(cudaMemcpyAsync(s.countersHost.data(), s.counters.data(), sizeof(CompareCounters),
                              cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (counters)");
}

CompareCounters CudaBackend::runTasks(CompareSlot& s, uint64_t begin, uint64_t end) {
    taskRanges(s.plan, begin, end, s.args);
    launchPass(s);
    checkCuda(cudaStreamSynchronize(streams_[&s - compareSlots_]), "comparison kernel");
    CompareCounters c;
    std::memcpy(&c, s.countersHost.data(), sizeof c);
    return c;
}

uint64_t CudaBackend::finishPass(CompareSlot& s, std::vector<ScoredPair>& out) {
    if (!s.busy) return 0;
    const cudaStream_t stream = streams_[&s - compareSlots_];
    checkCuda(cudaStreamSynchronize(stream), "comparison kernel");
    s.busy = false;
    CompareCounters first;
    std::memcpy(&first, s.countersHost.data(), sizeof first);
    const auto launch = [&](uint64_t b, uint64_t e) { return runTasks(s, b, e); };
    const auto grow = [&](uint64_t pairs) {
        s.pairs.reserve(pairs * sizeof(FoundPair));
        s.pairsHost.reserve(pairs * sizeof(FoundPair));
        s.capacity = pairs;
        s.args.out = static_cast<FoundPair*>(s.pairs.data());
        s.args.capacity = pairs;
        return pairs;
    };
    const auto collect = [&](uint64_t found) {
        if (found == 0) return;
        checkCuda(cudaMemcpyAsync(s.pairsHost.data(), s.pairs.data(), found * sizeof(FoundPair),
                                  cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync (pairs)");
        checkCuda(cudaStreamSynchronize(stream), "cudaMemcpyAsync (pairs)");
        const auto* pairs = reinterpret_cast<const FoundPair*>(s.pairsHost.data());
        out.reserve(out.size() + found);
        for (uint64_t i = 0; i < found; ++i)
            out.push_back({pairs[i].a, pairs[i].b, pairs[i].matches, -1.0f});
    };
    uint64_t capacity = s.capacity;
    return settleTasks(0, s.plan.tasks(), first, capacity, maxPairs_, launch, grow, collect);
}

uint64_t CudaBackend::compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                                     std::vector<ScoredPair>& out) {
    if (buckets.buckets() == 0) return 0;
    if (!req.signatures || req.signatures->hashes <= 0)
        throw BackendError("cuda: comparison without signatures");
    if (buckets.bucketBegin.back() > buckets.members.size())
        throw BackendError("cuda: bucket offsets exceed the members");
    const int keyBands = keyBandsFor(buckets, req);
    if (keyBands > 0 && req.bands < keyBands)
        throw BackendError("cuda: band keys hold fewer bands than the band compared");

    std::lock_guard<std::mutex> lock(mutex_);
    // Step one on the host, with the CPU backend's code: exact copies join their group leader.
    CollapsedBatch collapsed;
    arena_.execute([&] { collapseBatch(buckets, req, collapsed); });
    out.insert(out.end(), collapsed.copies.begin(), collapsed.copies.end());
    uint64_t decided = collapsed.copiesDecided;

    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    const uint64_t rowBytes = uint64_t(req.signatures->hashes) * sizeof(uint32_t) +
                              uint64_t(keyBands) * sizeof(uint64_t) + sizeof(uint32_t) +
                              sizeof(TileSegment);
    const uint64_t maxRows = passRows_ ? passRows_ : passBytes_ / rowBytes;
    PassPlanner planner(collapsed, maxRows);
    try {
        // Step two, pass after pass on alternating stages: the host gathers pass p + 1 while
        // the device compares pass p.
        for (int round = 0;; ++round) {
            CompareSlot& s = compareSlots_[round % 2];
            decided += finishPass(s, out);
            if (!planner.next(s.plan)) break;
            gatherPass(s, req, keyBands);
            launchPass(s);
            s.busy = true;
        }
        for (CompareSlot& s : compareSlots_)
            decided += finishPass(s, out);
    } catch (...) {
        abandon();
        throw;
    }
    return decided;
}

std::unique_ptr<Backend> makeCudaBackend(int device, int cpuThreads) {
    return std::make_unique<CudaBackend>(device, cpuThreads);
}

}  // namespace neardup::gpu
