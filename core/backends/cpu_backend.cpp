// The CPU backend: TBB-parallel loops over documents and buckets, calling the reference math.
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "backend.h"
#include "band_keys.h"
#include "bucket_compare.h"
#include "hash_math.h"
#include "thread_count.h"

namespace neardup {

namespace {

// Buckets with more members than this are compared by several threads at once.
constexpr uint64_t kLargeBucket = 1024;

class CpuBackend final : public Backend {
  public:
    explicit CpuBackend(int threads) : threads_(resolveThreads(threads)), arena_(threads_) {}

    std::string description() const override {
        return "cpu (" + std::to_string(threads_) + (threads_ == 1 ? " thread)" : " threads)");
    }

    bool signsConcurrently() const override { return true; }
    bool signsOneDocument() const override { return true; }
    void signDocument(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                      uint32_t* out, std::vector<uint64_t>& scratch) const override {
        signatureRolling(symbols, count, c, out, scratch);
    }

    void computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                           uint32_t* out) override {
        const auto h = static_cast<std::size_t>(c.hashes);
        auto sign = [&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, batch.size(), 16),
                              [&](const tbb::blocked_range<std::size_t>& r) {
                                  auto& scratch = scratch_.local();
                                  for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                      const uint64_t b = batch.docBegin(i);
                                      signatureRolling(batch.symbols.data() + b,
                                                       batch.docEnd[i] - b, c, out + i * h,
                                                       scratch);
                                  }
                              });
        };
        // Called from a pipeline stage, the caller's arena already runs on no more than our
        // threads; entering arena_ instead would leave that arena's worker behind, idle, and
        // sign on one thread. Isolation keeps the waiting caller from picking up the
        // pipeline's other stages in the middle of a batch.
        if (tbb::this_task_arena::max_concurrency() <= threads_)
            tbb::this_task_arena::isolate(sign);
        else
            arena_.execute(sign);
    }

    void computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh, uint64_t modulus,
                         uint64_t* keys) override {
        computeBandKeyRange(signatures, 0, signatures.size(), lsh, modulus, keys);
    }

    void computeBandKeyRange(const SignatureMatrix& signatures, std::size_t first,
                             std::size_t count, const LshParams& lsh, uint64_t modulus,
                             uint64_t* keys) override {
        const auto bands = static_cast<std::size_t>(lsh.bands);
        arena_.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 256),
                              [&](const tbb::blocked_range<std::size_t>& r) {
                                  for (std::size_t i = r.begin(); i != r.end(); ++i)
                                      bandKeysOfRow(signatures.row(first + i), lsh, modulus,
                                                    keys + i * bands);
                              });
        });
    }

    uint64_t compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                            std::vector<ScoredPair>& out) override {
        struct Local {
            BucketScratch scratch;
            std::vector<ScoredPair> pairs;
            uint64_t decided = 0;
        };
        tbb::enumerable_thread_specific<Local> locals;
        auto sizeOf = [&](std::size_t j) {
            return buckets.bucketBegin[j + 1] - buckets.bucketBegin[j];
        };
        // A large bucket would keep one thread busy while the others idle: its copies are
        // collapsed first, then its tile rows are spread over the threads.
        std::vector<std::size_t> large;
        for (std::size_t j = 0; j < buckets.buckets(); ++j)
            if (sizeOf(j) > kLargeBucket) large.push_back(j);
        arena_.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, buckets.buckets(), 16),
                              [&](const tbb::blocked_range<std::size_t>& r) {
                                  Local& local = locals.local();
                                  for (std::size_t j = r.begin(); j != r.end(); ++j) {
                                      if (sizeOf(j) > kLargeBucket) continue;
                                      local.decided += compareBucket(
                                          buckets.members.data() + buckets.bucketBegin[j],
                                          sizeOf(j), buckets.band, req, local.scratch, local.pairs);
                                  }
                              });
            std::vector<uint32_t> leaders;
            for (const std::size_t j : large) {
                Local& local = locals.local();
                local.decided +=
                    collapseCopies(buckets.members.data() + buckets.bucketBegin[j], sizeOf(j),
                                   buckets.band, req, local.scratch, local.pairs);
                leaders = local.scratch.leaders;
                tbb::parallel_for(tbb::blocked_range<std::size_t>(0, tileCount(leaders.size()), 1),
                                  [&](const tbb::blocked_range<std::size_t>& r) {
                                      Local& mine = locals.local();
                                      mine.decided += compareLeaderTiles(
                                          leaders.data(), leaders.size(), r.begin(), r.end(),
                                          buckets.band, req, mine.scratch, mine.pairs);
                                  });
            }
        });
        uint64_t decided = 0;
        for (Local& local : locals) {
            decided += local.decided;
            out.insert(out.end(), local.pairs.begin(), local.pairs.end());
        }
        return decided;
    }

  private:
    int threads_;
    tbb::task_arena arena_;
    tbb::enumerable_thread_specific<std::vector<uint64_t>> scratch_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(int threads) {
    return std::make_unique<CpuBackend>(threads);
}

}  // namespace neardup
