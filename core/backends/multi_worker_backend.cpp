#include "multi_worker_backend.h"

#include <exception>
#include <stdexcept>

#include "elapsed.h"

namespace neardup {

namespace {

// Signing a document costs its symbols plus a fixed part (finishing H minima, the row write);
// this is that fixed part in symbols, so that many empty documents still count for something.
constexpr uint64_t kDocumentWeight = 16;
// Scratch pair vectors larger than this are released after each call instead of kept.
constexpr std::size_t kKeptPairCapacity = std::size_t{1} << 16;

const char* const kPhaseNames[] = {"signatures", "buckets", "compare"};

}  // namespace

struct MultiWorkerBackend::Worker {
    std::size_t index = 0;
    std::unique_ptr<Backend> backend;
    std::string label;
    std::thread thread;
    // The job in progress, under mutex_.
    const std::function<void(std::size_t)>* job = nullptr;
    Phase phase = kSignatures;
    bool hasJob = false;
    std::exception_ptr error;
    // Totals since the last takeWorkerTimings; written by this worker's thread during a job,
    // read by the caller once the job is done (ordered by mutex_).
    double seconds[kPhases] = {};
    uint64_t items[kPhases] = {};
    uint64_t bytes[kPhases] = {};
    // Scratch reused from call to call: this worker's part of a batch, and its pairs.
    SymbolBatch symbols;
    BucketBatch buckets;
    std::vector<ScoredPair> pairs;
    uint64_t decided = 0;
};

MultiWorkerBackend::MultiWorkerBackend(std::vector<std::unique_ptr<Backend>> workers,
                                       std::vector<std::string> labels) {
    if (workers.empty()) throw std::invalid_argument("MultiWorkerBackend: no workers");
    if (!labels.empty() && labels.size() != workers.size())
        throw std::invalid_argument("MultiWorkerBackend: one label per worker expected");
    const bool named = !labels.empty();
    bool alike = true;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        if (!workers[i]) throw std::invalid_argument("MultiWorkerBackend: null worker");
        alike = alike && workers[i]->description() == workers[0]->description();
    }
    const std::size_t n = workers.size();
    description_ = std::to_string(n) + (n == 1 ? " worker: " : " workers: ");
    if (!named && alike) {
        description_ += workers[0]->description() + " x" + std::to_string(n);
    } else {
        for (std::size_t i = 0; i < n; ++i)
            description_ += (i ? ", " : "") + (named ? labels[i] : workers[i]->description());
    }
    for (std::size_t i = 0; i < n; ++i) {
        auto w = std::make_unique<Worker>();
        w->index = i;
        w->label =
            named ? labels[i] : "worker " + std::to_string(i) + ": " + workers[i]->description();
        w->backend = std::move(workers[i]);
        workers_.push_back(std::move(w));
    }
    // One std::thread per worker for the backend's lifetime, not tbb::task_group tasks: a worker
    // waits for jobs between calls and owns its backend's per-thread state (a GPU backend's
    // current device, a CPU backend's own task arena inside it); TBB tasks may neither block
    // for long nor stay on one thread.
    try {
        for (auto& w : workers_)
            w->thread = std::thread([this, worker = w.get()] { loop(*worker); });
    } catch (...) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& w : workers_)
            if (w->thread.joinable()) w->thread.join();
        throw;
    }
}

MultiWorkerBackend::~MultiWorkerBackend() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_)
        if (w->thread.joinable()) w->thread.join();
    // Each sub-backend is destroyed here, after its thread ended; a GPU backend selects its
    // device again in its destructor.
}

void MultiWorkerBackend::loop(Worker& w) {
    for (;;) {
        const std::function<void(std::size_t)>* job = nullptr;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || w.hasJob; });
            if (!w.hasJob) return;
            job = w.job;
        }
        const auto start = SteadyClock::now();
        try {
            (*job)(w.index);
        } catch (...) {
            w.error = std::current_exception();
        }
        w.seconds[w.phase] += secondsSince(start);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            w.hasJob = false;
            w.job = nullptr;
            if (--pending_ == 0) done_.notify_all();
        }
    }
}

std::vector<std::size_t> MultiWorkerBackend::splitByWeight(
    std::size_t n, std::size_t parts, const std::function<uint64_t(std::size_t)>& cumulative) {
    std::vector<std::size_t> bounds(parts + 1, 0);
    bounds[parts] = n;
    if (n == 0 || parts <= 1) return bounds;
    const uint64_t total = cumulative(n - 1);
    const uint64_t quotient = total / parts, remainder = total % parts;
    for (std::size_t p = 1; p < parts; ++p) {
        // floor(total * p / parts) without overflow.
        const uint64_t target = quotient * p + remainder * p / parts;
        // Part p starts at the first item whose cumulative weight exceeds the target.
        std::size_t lo = bounds[p - 1], hi = n;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (cumulative(mid) <= target)
                lo = mid + 1;
            else
                hi = mid;
        }
        bounds[p] = lo;
    }
    return bounds;
}

void MultiWorkerBackend::runOnWorkers(Phase phase, const std::vector<std::size_t>& bounds,
                                      const std::function<void(std::size_t)>& job) {
    std::size_t active = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        phaseUsed_[phase] = true;
        for (auto& w : workers_) {
            if (bounds[w->index] == bounds[w->index + 1]) continue;
            w->job = &job;
            w->phase = phase;
            w->hasJob = true;
            w->error = nullptr;
            ++active;
        }
        pending_ = active;
    }
    if (active == 0) return;
    wake_.notify_all();
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return pending_ == 0; });
    }
    for (auto& w : workers_) {
        if (w->error) {
            std::exception_ptr error = w->error;
            for (auto& other : workers_)
                other->error = nullptr;
            std::rethrow_exception(error);
        }
    }
}

void MultiWorkerBackend::computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                                           uint32_t* out) {
    std::lock_guard<std::mutex> call(call_);
    const std::size_t n = batch.size();
    const auto bounds = splitByWeight(n, workers_.size(), [&](std::size_t i) {
        return batch.docEnd[i] + kDocumentWeight * (i + 1);
    });
    const auto h = static_cast<std::size_t>(c.hashes);
    runOnWorkers(kSignatures, bounds, [&](std::size_t index) {
        Worker& w = *workers_[index];
        const std::size_t first = bounds[index], last = bounds[index + 1];
        const uint64_t begin = batch.docBegin(first), end = batch.docEnd[last - 1];
        if (first == 0 && last == n) {
            w.backend->computeSignatures(batch, c, out);
        } else {
            // The part's symbols are copied once (on this worker's thread): a Backend takes a
            // whole SymbolBatch, and the copy costs a small fraction of signing them.
            w.symbols.symbols.assign(batch.symbols.begin() + static_cast<std::ptrdiff_t>(begin),
                                     batch.symbols.begin() + static_cast<std::ptrdiff_t>(end));
            w.symbols.docEnd.resize(last - first);
            for (std::size_t i = first; i < last; ++i)
                w.symbols.docEnd[i - first] = batch.docEnd[i] - begin;
            w.backend->computeSignatures(w.symbols, c, out + first * h);
        }
        w.items[kSignatures] += last - first;
        w.bytes[kSignatures] += (end - begin) * sizeof(uint32_t);
    });
}

void MultiWorkerBackend::computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh,
                                         uint64_t modulus, uint64_t* keys) {
    computeBandKeyRange(signatures, 0, signatures.size(), lsh, modulus, keys);
}

void MultiWorkerBackend::computeBandKeyRange(const SignatureMatrix& signatures, std::size_t first,
                                             std::size_t count, const LshParams& lsh,
                                             uint64_t modulus, uint64_t* keys) {
    std::lock_guard<std::mutex> call(call_);
    const auto bounds = splitByWeight(count, workers_.size(),
                                      [](std::size_t i) { return static_cast<uint64_t>(i) + 1; });
    const auto bands = static_cast<std::size_t>(lsh.bands);
    runOnWorkers(kBuckets, bounds, [&](std::size_t index) {
        Worker& w = *workers_[index];
        const std::size_t begin = bounds[index], end = bounds[index + 1];
        w.backend->computeBandKeyRange(signatures, first + begin, end - begin, lsh, modulus,
                                       keys + begin * bands);
        w.items[kBuckets] += end - begin;
    });
}

uint64_t MultiWorkerBackend::compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                                            std::vector<ScoredPair>& out) {
    std::lock_guard<std::mutex> call(call_);
    const std::size_t count = buckets.buckets();
    // Comparison work of buckets 0..j: the pairs inside each, plus its members (collapsing).
    std::vector<uint64_t> work(count);
    uint64_t sum = 0;
    for (std::size_t j = 0; j < count; ++j) {
        const uint64_t size = buckets.bucketBegin[j + 1] - buckets.bucketBegin[j];
        sum += size * (size - 1) / 2 + size;
        work[j] = sum;
    }
    const auto bounds =
        splitByWeight(count, workers_.size(), [&](std::size_t j) { return work[j]; });
    for (auto& w : workers_)
        w->decided = 0;
    runOnWorkers(kCompare, bounds, [&](std::size_t index) {
        Worker& w = *workers_[index];
        const std::size_t first = bounds[index], last = bounds[index + 1];
        w.pairs.clear();
        if (first == 0 && last == count) {
            w.decided = w.backend->compareBuckets(buckets, req, w.pairs);
        } else {
            const uint64_t begin = buckets.bucketBegin[first];
            w.buckets.band = buckets.band;
            w.buckets.members.assign(
                buckets.members.begin() + static_cast<std::ptrdiff_t>(begin),
                buckets.members.begin() + static_cast<std::ptrdiff_t>(buckets.bucketBegin[last]));
            w.buckets.bucketBegin.resize(last - first + 1);
            for (std::size_t j = first; j <= last; ++j)
                w.buckets.bucketBegin[j - first] = buckets.bucketBegin[j] - begin;
            w.decided = w.backend->compareBuckets(w.buckets, req, w.pairs);
        }
        w.items[kCompare] += w.decided;
    });
    uint64_t decided = 0;
    std::size_t total = out.size();
    for (const auto& w : workers_)
        total += w->pairs.size();
    out.reserve(total);
    for (auto& w : workers_) {
        decided += w->decided;
        out.insert(out.end(), w->pairs.begin(), w->pairs.end());
        w->pairs.clear();
        if (w->pairs.capacity() > kKeptPairCapacity) std::vector<ScoredPair>().swap(w->pairs);
    }
    return decided;
}

std::vector<WorkerTiming> MultiWorkerBackend::takeWorkerTimings() {
    std::lock_guard<std::mutex> call(call_);
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<WorkerTiming> timings;
    for (int phase = 0; phase < kPhases; ++phase) {
        if (!phaseUsed_[phase]) continue;
        phaseUsed_[phase] = false;
        for (auto& w : workers_) {
            timings.push_back({static_cast<int>(w->index), kPhaseNames[phase], w->label,
                               w->seconds[phase], w->items[phase], w->bytes[phase]});
            w->seconds[phase] = 0;
            w->items[phase] = 0;
            w->bytes[phase] = 0;
        }
    }
    return timings;
}

}  // namespace neardup
