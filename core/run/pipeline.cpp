#include "pipeline.h"

#include <tbb/concurrent_queue.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <thread>

#include "checkpoint.h"
#include "chunk_work.h"
#include "clustering.h"
#include "decisions.h"
#include "hash_math.h"
#include "input_pin.h"
#include "jsonl_reader.h"
#include "lsh_buckets.h"
#include "memory_budget.h"
#include "output_check.h"
#include "pair_verifier.h"
#include "run_accounting.h"
#include "run_failures.h"
#include "run_lock.h"
#include "run_memory.h"
#include "run_time.h"
#include "shingles.h"
#include "spill_compare.h"
#include "spill_files.h"
#include "spill_signatures.h"
#include "verify_slices.h"

namespace neardup {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

int resolveThreads(int threads) {
    return threads > 0 ? threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Everything one chunk needs on its way through the read/sign pipeline; recycled. Its rows are
// the chunk's signatures when signed in the parallel stage.
struct ChunkToken : ChunkWork {
    LineChunk chunk;
    uint64_t fingerprint = 0;  // the chunk's part of its file's fingerprint (input_pin.h)
};

class RunContext {
  public:
    RunContext(Backend& backend, PipelineObserver* observer, const std::atomic<bool>* cancel,
               const RunParams& params, uint64_t budget, WorkDir& work)
        : backend_(backend),
          observer_(observer),
          cancel_(cancel),
          params_(params),
          budget_(budget),
          work_(work) {}

    void checkCancel() const {
        if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw Cancelled();
    }
    void started(const std::string& phase) {
        if (observer_) observer_->phaseStarted(phase);
    }
    void progress(const std::string& phase, uint64_t done, uint64_t total) {
        if (observer_) observer_->progress(phase, done, total);
    }
    void finished(RunResult& run, PhaseTiming timing) {
        if (observer_) observer_->phaseFinished(timing);
        run.phases.push_back(std::move(timing));
    }
    void info(const std::string& message) {
        if (observer_) observer_->info(message);
    }

    bool spilled() const { return spill_ != nullptr; }

    // Whether the in-memory path (signature matrix, band keys, one band's entries) fits the
    // budget for `n` documents next to the document table.
    bool fitsInMemory(const DocumentTable& docs, std::size_t n) const {
        const uint64_t need = documentTableBytes(docs) + kStoreCacheBytes +
                              n * (rowBytes(params_) + 9 + inMemoryBytesPerDocument(params_));
        return need <= budget_;
    }

    // read + signatures, streamed: chunks are cut sequentially, parsed and normalized in
    // parallel, then signed in order by the backend. The serial stage keeps the signature
    // matrix in memory while the budget allows and appends rows (with their raw band keys) to
    // the spill files from the chunk where it no longer does.
    void readAndSign(const std::vector<InputFile>& files, DatasetRecord& dataset,
                     DocumentTable& docs, SignatureMatrix& sigs, RunResult& run,
                     ReadCheckpoint* checkpoint = nullptr) {
        const auto& sp = params_.signature;
        const HashConstants constants = HashConstants::derive(sp);
        const int threads = resolveThreads(params_.threads);
        const auto h = static_cast<std::size_t>(sp.hashes);
        // Lines longer than this are streamed past as line_too_long, never held in memory.
        ReaderOptions reader = params_.reader;
        if (reader.maxLineBytes == 0)
            reader.maxLineBytes = std::max<uint64_t>(budget_ / 16, uint64_t{1} << 20);
        // A backend reading chunks itself (MpiBackend: on other ranks) takes the parallel
        // stage's work, and needs that many more chunks in flight to stay busy.
        ChunkSetup setup;
        setup.files = &files;
        setup.reader = reader;
        setup.signature = sp;
        setup.threads = threads;
        const std::size_t elsewhere = backend_.startChunks(setup);
        struct FinishChunks {
            Backend& backend;
            bool active;
            ~FinishChunks() {
                if (active) backend.finishChunks();
            }
        } finishChunks{backend_, elsewhere > 0};
        const bool signInParallel = elsewhere > 0 || backend_.signsConcurrently();
        uint64_t totalBytes = 0;
        bool sizesKnown = true;
        for (const auto& f : files) {
            totalBytes += f.size;
            sizesKnown = sizesKnown && f.compression == InputFile::Compression::None;
        }
        const std::size_t tokens = static_cast<std::size_t>(threads) * 2 + 2 + elsewhere;
        // Chunks in flight get at most a quarter of the budget (never below kMinChunkBytes):
        // the reading stage's memory does not grow with the corpus, only with the threads.
        const uint64_t bytesPerChunkByte =
            kBytesPerChunkByte + (signInParallel ? 4 * h / kShortDocumentBytes : 0);
        const auto chunkCap = static_cast<std::size_t>(budget_ / 4 / tokens / bytesPerChunkByte);
        const std::size_t chunkBytes =
            std::min(params_.reader.chunkBytes, std::max(kMinChunkBytes, chunkCap));
        readBuffers_ = tokens * chunkBytes * bytesPerChunkByte;
        LineChunkSource source(files, chunkBytes, OnError::Skip, reader.maxLineBytes);
        tbb::enumerable_thread_specific<ChunkProcessor> workers(
            [&] { return ChunkProcessor(files, reader, sp); });
        std::vector<std::unique_ptr<ChunkToken>> pool(tokens);
        tbb::concurrent_queue<ChunkToken*> freeTokens;
        for (auto& t : pool) {
            t = std::make_unique<ChunkToken>();
            freeTokens.push(t.get());
        }
        RejectionLog rejections;
        std::atomic<int64_t> readNs{0}, signNs{0};
        sigs.resize(0, sp.hashes);
        docs.clear();
        dataset.files = files;
        unfingerprinted_.assign(files.size(), 0);
        for (InputFile& f : dataset.files) {
            f.fingerprint = 0;
            f.contentBytes = 0;
        }
        uint64_t bytesBefore = 0, consumed = 0;  // input before a checkpoint, and since
        if (checkpoint)
            resumeFromCheckpoint(*checkpoint, source, files, docs, sigs, rejections, dataset, run,
                                 bytesBefore);
        const auto start = Clock::now();
        started("read");
        started("signatures");
        // Threads waiting for chunks read elsewhere only wait: they come on top of `threads`
        // (TBB would otherwise start no more threads than this machine has cores).
        std::optional<tbb::global_control> waiters;
        if (elsewhere > 0)
            waiters.emplace(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads) + elsewhere);
        tbb::task_arena arena(threads + static_cast<int>(elsewhere));
        arena.execute([&] {
            tbb::parallel_pipeline(
                tokens,
                tbb::make_filter<void, ChunkToken*>(tbb::filter_mode::serial_in_order,
                                                    [&](tbb::flow_control& fc) -> ChunkToken* {
                                                        ChunkToken* token = nullptr;
                                                        if ((cancel_ && cancel_->load()) ||
                                                            !freeTokens.try_pop(token)) {
                                                            fc.stop();
                                                            return nullptr;
                                                        }
                                                        const auto t0 = Clock::now();
                                                        const bool more = source.next(token->chunk);
                                                        readNs += (Clock::now() - t0).count();
                                                        if (!more) {
                                                            freeTokens.push(token);
                                                            fc.stop();
                                                            return nullptr;
                                                        }
                                                        return token;
                                                    }) &
                    tbb::make_filter<ChunkToken*, ChunkToken*>(
                        tbb::filter_mode::parallel,
                        [&](ChunkToken* token) {
                            if (cancel_ && cancel_->load()) return token;  // drain at once
                            const LineChunk& c = token->chunk;
                            token->fingerprint =
                                fingerprintPart(c.data.data(), c.data.size(), c.baseOffset);
                            if (elsewhere > 0) {
                                backend_.processChunk(token->chunk, *token);
                                readNs += token->parseNs;
                                signNs += token->signNs;
                                return token;
                            }
                            ChunkProcessor& w = workers.local();
                            const auto t0 = Clock::now();
                            w.prepare(token->chunk, *token);
                            const auto t1 = Clock::now();
                            if (signInParallel) {
                                token->rows.resize(token->symbols.size() * h);
                                backend_.computeSignatures(token->symbols, constants,
                                                           token->rows.data());
                            }
                            const auto t2 = Clock::now();
                            readNs += (t1 - t0).count();
                            signNs += (t2 - t1).count();
                            return token;
                        }) &
                    tbb::make_filter<ChunkToken*, void>(
                        tbb::filter_mode::serial_in_order, [&](ChunkToken* token) {
                            if (cancel_ && cancel_->load()) return freeTokens.push(token);
                            failOnRejection(params_.reader.onError, token->parsed.rejections,
                                            files);
                            const auto t0 = Clock::now();
                            const ParsedChunk& p = token->parsed;
                            const std::size_t first = docs.size();
                            const std::size_t n = p.docs.size();
                            if (!spill_ && !reserveRows(docs, sigs, first + n))
                                startSpill(sigs, first, run);
                            sigs.digests.resize(first + n);
                            sigs.eligible.resize(first + n);
                            uint32_t* rows = nullptr;
                            if (spill_) {
                                block_.resize(n, sp.hashes);
                                rows = block_.values.data();
                            } else {
                                sigs.values.resize((first + n) * h);
                                rows = sigs.values.data() + first * h;
                            }
                            if (signInParallel)
                                std::copy(token->rows.begin(), token->rows.end(), rows);
                            else
                                backend_.computeSignatures(token->symbols, constants, rows);
                            for (std::size_t i = 0; i < n; ++i) {
                                const ParsedDocument& d = p.docs[i];
                                docs.append(p.file, d.line, d.offset, d.length, token->chars[i],
                                            d.keepValue, p.id(d));
                                const std::size_t row = first + i;
                                sigs.digests[row] =
                                    hashmath::signatureDigest(rows + i * h, sp.hashes);
                                const uint64_t count =
                                    token->symbols.docEnd[i] - token->symbols.docBegin(i);
                                sigs.eligible[row] = count >= static_cast<uint64_t>(sp.ngram);
                            }
                            if (spill_) spillBlock();
                            for (const Rejection& r : p.rejections)
                                rejections.add(r);
                            dataset.linesRead += p.lines;
                            dataset.blankLines += p.blankLines;
                            {
                                const LineChunk& c = token->chunk;
                                InputFile& f = dataset.files[c.file];
                                const bool skippedLine =
                                    !c.failure.empty() &&
                                    c.failureReason == RejectReason::LineTooLong;
                                f.fingerprint += token->fingerprint + c.droppedFingerprint;
                                f.contentBytes += c.data.size() + (skippedLine ? c.dropped : 0);
                                if (!c.failure.empty() && !skippedLine)
                                    unfingerprinted_[c.file] = 1;
                            }
                            if (checkpoint) {
                                consumed += token->chunk.data.size() + token->chunk.dropped;
                                if (spill_)
                                    checkpoint->disable();
                                else
                                    checkpoint->afterChunk(token->chunk, p, docs, sigs, dataset,
                                                           bytesBefore + consumed);
                            }
                            signNs += (Clock::now() - t0).count();
                            progress("read", source.bytesRead(), sizesKnown ? totalBytes : 0);
                            freeTokens.push(token);
                        }));
        });
        checkCancel();
        readBuffers_ = 0;
        // The document table kept growing after the matrix last grew: check once more.
        if (!spill_ && !fitsInMemory(docs, docs.size())) startSpill(sigs, docs.size(), run);
        block_ = SignatureMatrix{};
        const double wall = secondsSince(start);
        // A file read to its end, without damage, has a fingerprint; a plain file's content is
        // its size.
        for (std::size_t i = 0; i < dataset.files.size(); ++i) {
            InputFile& f = dataset.files[i];
            f.fingerprinted =
                !unfingerprinted_[i] && f.mtimeNs >= 0 &&
                (f.compression != InputFile::Compression::None || f.contentBytes == f.size);
        }
        dataset.inputBytes = bytesBefore + source.bytesRead();
        for (int r = 0; r < kRejectReasonCount; ++r) {
            const auto reason = static_cast<RejectReason>(r);
            if (rejections.counts[r] == 0) continue;
            const Rejection* first = rejections.first(reason);
            dataset.rejections.push_back({toString(reason), rejections.counts[r],
                                          first ? files[first->file].path : std::string(),
                                          first ? first->line : 0});
        }
        dataset.rejectionSamples = rejections.samples;
        dataset.rejectedLines = std::move(rejections.all);
        // The stages overlap, so wall time is shared between read and signatures in proportion
        // to the thread time each consumed; the two add up to the wall time of the stage.
        const double busy = static_cast<double>(readNs.load() + signNs.load());
        const double readShare = busy > 0 ? static_cast<double>(readNs.load()) / busy : 0.5;
        finished(run, {"read", wall * readShare, docs.size(), dataset.inputBytes, false});
        finished(run,
                 {"signatures", wall * (1.0 - readShare), docs.size(), dataset.inputBytes, false});
    }

    std::vector<ScoredPair> bucketAndCompare(const DocumentTable& docs, const SignatureMatrix& sigs,
                                             std::size_t n, uint64_t modulus, RunResult& run) {
        if (spill_) return bucketAndCompareSpilled(docs, sigs, modulus, run);
        const auto& lsh = params_.lsh;
        const int threads = resolveThreads(params_.threads);
        std::vector<uint64_t> keys(n * static_cast<std::size_t>(lsh.bands));
        started("buckets");
        auto t0 = Clock::now();
        backend_.computeBandKeys(sigs, lsh, modulus, keys.data());
        double bucketSeconds = secondsSince(t0), compareSeconds = 0;
        uint64_t entries = 0;
        std::vector<BucketEntry> scratch;
        BucketBatch batch;
        std::vector<ScoredPair> pairs;
        uint64_t decided = 0;
        CompareRequest req{&sigs, keys.data(), lsh.bands, minMatches()};
        started("compare");
        for (int band = 0; band < lsh.bands; ++band) {
            checkCancel();
            t0 = Clock::now();
            BandStats stats;
            buildBuckets(keys.data(), n, lsh.bands, band, sigs.eligible, threads, scratch, batch,
                         stats);
            entries += scratch.size();
            run.bands.push_back(std::move(stats));
            const auto t1 = Clock::now();
            bucketSeconds += std::chrono::duration<double>(t1 - t0).count();
            decided += backend_.compareBuckets(batch, req, pairs);
            compareSeconds += secondsSince(t1);
            progress("compare", static_cast<uint64_t>(band + 1), static_cast<uint64_t>(lsh.bands));
        }
        // Each pair is decided in exactly one band (its first collision), so sorting is all
        // that is needed for a canonical order.
        t0 = Clock::now();
        tbb::task_arena arena(threads);
        arena.execute([&] { tbb::parallel_sort(pairs.begin(), pairs.end()); });
        compareSeconds += secondsSince(t0);
        run.counts.candidatePairs = decided;
        finished(run, {"buckets", bucketSeconds, entries, 0, false});
        finished(run, {"compare", compareSeconds, decided, 0, false});
        return pairs;
    }

    // Takes the rows of a checkpoint left by an earlier run of the same read (checkpoint.h)
    // and has `source` go on after them.
    void resumeFromCheckpoint(ReadCheckpoint& checkpoint, LineChunkSource& source,
                              const std::vector<InputFile>& files, DocumentTable& docs,
                              SignatureMatrix& sigs, RejectionLog& rejections,
                              DatasetRecord& dataset, RunResult& run, uint64_t& bytesBefore) {
        const auto at = checkpoint.restore(docs, sigs, rejections, dataset, bytesBefore);
        if (!at) return;
        failOnRejection(params_.reader.onError, rejections.samples, files);
        source.startAt(at->file, at->offset, at->line);
        // The fingerprints of what the checkpoint covers: read once more, without parsing.
        for (std::size_t i = 0; i < files.size() && i <= at->file; ++i) {
            InputFile& f = dataset.files[i];
            try {
                const uint64_t upTo =
                    i < at->file ? std::numeric_limits<uint64_t>::max() : at->offset;
                f.fingerprint = fingerprintFile(files[i], upTo, f.contentBytes);
            } catch (const std::exception&) {
                unfingerprinted_[i] = 1;  // unreadable or damaged: no fingerprint
            }
        }
        info("resuming the read from a checkpoint: " + std::to_string(docs.size()) +
             " documents signed, going on at " +
             (at->file < files.size() ? files[at->file].path + ":" + std::to_string(at->line)
                                      : std::string("the end")));
        if (!fitsInMemory(docs, docs.size())) {
            startSpill(sigs, docs.size(), run);
            checkpoint.disable();
        }
    }

    // Memory left for working sets next to what stays resident (document table, digests and
    // flags, stored pairs counted twice for their growth).
    uint64_t workingBytes(const DocumentTable& docs, const SignatureMatrix& sigs,
                          const std::vector<ScoredPair>& pairs) const {
        const uint64_t resident = documentTableBytes(docs) + capacityBytes(sigs.digests) +
                                  capacityBytes(sigs.eligible) + 2 * capacityBytes(pairs) +
                                  kStoreCacheBytes;
        return budget_ > resident ? budget_ - resident : 0;
    }

    // The spill files are closed (their space returned) once the comparison is done.
    void releaseSpill() {
        spill_.reset();
        block_ = SignatureMatrix{};
        blockKeys_ = {};
    }

  private:
    int minMatches() const {
        return static_cast<int>(
            std::ceil(params_.compare.storeFloor * params_.signature.hashes - 1e-9));
    }

    // Makes room for `rows` signature rows in memory, or returns false when the matrix (with
    // what the in-memory comparison adds later, and the copy made while growing) would no
    // longer fit the budget.
    bool reserveRows(const DocumentTable& docs, SignatureMatrix& sigs, std::size_t rows) {
        const auto h = static_cast<std::size_t>(params_.signature.hashes);
        if (rows * h <= sigs.values.capacity()) return true;
        const uint64_t capacityRows = sigs.values.capacity() / h;
        const uint64_t newRows =
            std::max<uint64_t>({rows, capacityRows + capacityRows / 2, uint64_t{4096}});
        const uint64_t newBytes = newRows * rowBytes(params_);
        const uint64_t resident =
            documentTableBytes(docs) + capacityBytes(sigs.digests) + capacityBytes(sigs.eligible);
        // While reading, the chunks in flight; later, the store's cache.
        const uint64_t growing = resident + readBuffers_ + capacityBytes(sigs.values) + newBytes;
        const uint64_t comparing =
            resident + kStoreCacheBytes + newBytes + newRows * inMemoryBytesPerDocument(params_);
        if (std::max(growing, comparing) > budget_) return false;
        sigs.values.reserve(static_cast<std::size_t>(newRows) * h);
        return true;
    }

    // Moves the first `rows` rows of the in-memory matrix to the spill files and frees it.
    void startSpill(SignatureMatrix& sigs, std::size_t rows, RunResult& run) {
        spill_ =
            std::make_unique<SignatureSpill>(work_, params_.signature.hashes, params_.lsh.bands);
        run.spilled = true;
        info("signatures exceed the memory budget of " + formatBytes(budget_) +
             ": spilling signatures and band keys to " + work_.path());
        const auto h = static_cast<std::size_t>(params_.signature.hashes);
        for (std::size_t first = 0; first < rows; first += kSpillBlockRows) {
            const std::size_t count = std::min(kSpillBlockRows, rows - first);
            block_.resize(count, params_.signature.hashes);
            std::copy(sigs.values.begin() + static_cast<std::ptrdiff_t>(first * h),
                      sigs.values.begin() + static_cast<std::ptrdiff_t>((first + count) * h),
                      block_.values.begin());
            spillBlock();
        }
        std::vector<uint32_t>().swap(sigs.values);
    }

    // Appends the rows in block_ with their raw band keys (K is applied when reading them).
    void spillBlock() {
        const std::size_t n = block_.size();
        blockKeys_.resize(n * static_cast<std::size_t>(params_.lsh.bands));
        backend_.computeBandKeys(block_, params_.lsh, 0, blockKeys_.data());
        spill_->append(block_.values.data(), blockKeys_.data(), n);
    }

    std::vector<ScoredPair> bucketAndCompareSpilled(const DocumentTable& docs,
                                                    const SignatureMatrix& sigs, uint64_t modulus,
                                                    RunResult& run) {
        const auto& lsh = params_.lsh;
        const int threads = resolveThreads(params_.threads);
        SpilledComparison spilled(backend_, work_, *spill_, sigs.digests, sigs.eligible, lsh,
                                  modulus, minMatches(), threads);
        std::vector<ScoredPair> pairs;
        uint64_t decided = 0;
        started("buckets");
        started("compare");
        for (int band = 0; band < lsh.bands; ++band) {
            checkCancel();
            BandStats stats;
            decided += spilled.runBand(band, workingBytes(docs, sigs, pairs), stats, pairs,
                                       [this] { checkCancel(); });
            run.bands.push_back(std::move(stats));
            releaseFreedMemory();
            progress("compare", static_cast<uint64_t>(band + 1), static_cast<uint64_t>(lsh.bands));
        }
        const auto t0 = Clock::now();
        tbb::task_arena arena(threads);
        arena.execute([&] { tbb::parallel_sort(pairs.begin(), pairs.end()); });
        const double sortSeconds = secondsSince(t0);
        info("out-of-core comparison: up to " + std::to_string(spilled.maxPartitions()) +
             " partition(s) per band, at least " + std::to_string(spilled.minPassRows()) +
             " rows per pass");
        run.counts.candidatePairs = decided;
        finished(run, {"buckets", spilled.bucketSeconds(), spilled.entries(), 0, false});
        finished(run, {"compare", spilled.compareSeconds() + sortSeconds, decided, 0, false});
        return pairs;
    }

    Backend& backend_;
    PipelineObserver* observer_;
    const std::atomic<bool>* cancel_;
    const RunParams& params_;
    uint64_t budget_;
    WorkDir& work_;
    std::unique_ptr<SignatureSpill> spill_;
    uint64_t readBuffers_ = 0;              // estimated bytes of the chunks in flight while reading
    SignatureMatrix block_;                 // rows on their way to the spill files
    std::vector<uint8_t> unfingerprinted_;  // per input file: not read whole, no fingerprint
    std::vector<uint64_t> blockKeys_;
};

// Spill files go next to the project unless the run names a directory; in-memory projects
// use the system's temporary directory.
std::string workParent(const ProjectStore& store, const RunParams& params) {
    if (!params.workDir.empty()) return params.workDir;
    const std::string& path = store.path();
    if (path.empty() || path == ":memory:") return std::filesystem::temp_directory_path().string();
    return path + ".d";
}

}  // namespace

Pipeline::Pipeline(ProjectStore& store, Backend& backend, PipelineObserver* observer,
                   const std::atomic<bool>* cancel)
    : store_(store), backend_(backend), observer_(observer), cancel_(cancel) {}

RunResult Pipeline::run(const std::vector<std::string>& inputs, const RunParams& params,
                        const ExportOptions& exports) {
    if (const std::string problem = validate(params); !problem.empty())
        throw std::invalid_argument(problem);
    // A project the run cannot write is found now, not after the corpus was read and signed.
    if (const std::string problem = store_.writeProblem(); !problem.empty())
        throw StoreError(problem);
    RunResult run;
    run.memoryBudget = resolveMemoryBudget(params.memoryBudget);
    // Declared before the context, which holds spill files inside it: the directory goes last,
    // however the run ends.
    WorkDir work(workParent(store_, params));
    RunContext ctx(backend_, observer_, cancel_, params, run.memoryBudget, work);
    run.params = params;
    run.backend = backend_.description();
    backend_.takeWorkerTimings();  // counts from before this run are not its own
    run.threads = resolveThreads(params.threads);
    run.startedAt = utcNow();

    std::vector<InputFile> files;
    try {
        files = expandInputs(inputs, OnError::Skip);  // unreadable ones fail in input order
    } catch (...) {
        recordUnfinishedRun(store_, run, std::nullopt, {}, 0, std::current_exception());
        throw;
    }
    // Outputs are checked against the inputs and the project before any work (and before the
    // run is recorded): nothing the user needs is ever overwritten.
    if (const std::string problem = outputProblem(namedOutputs(exports), files, store_.path());
        !problem.empty())
        throw std::runtime_error(problem);
    // Held until the run ends: tells other processes it is live, and after a kill, that it is
    // not (run_lock.h).
    // Inputs by absolute path: a resume record works from any directory.
    std::vector<std::string> absoluteInputs;
    for (const std::string& input : inputs)
        absoluteInputs.push_back(canonicalPath(input));
    RunLock lock(store_, absoluteInputs, params, run.startedAt);
    const std::string cacheKey = signatureCacheKey(params.signature, params.reader);
    DocumentTable docs;
    SignatureMatrix sigs;
    DatasetRecord dataset;
    std::vector<ScoredPair> pairs;
    bool pairsReady = false;  // compared and verified while a new dataset was being saved
    auto resolveBuckets = [&](std::size_t n) {
        return params.lsh.bucketMode == BucketMode::Exact  ? uint64_t{0}
               : params.lsh.bucketMode == BucketMode::Auto ? autoBucketCount(n)
                                                           : params.lsh.buckets;
    };
    // Borderline (or every) pair judged by its exact Jaccard; `heldBytes` of signatures are
    // still in memory next to it.
    auto verify = [&](uint64_t heldBytes) {
        if (params.compare.verify == VerifyMode::None && !run.pairsReused) return;
        ctx.started("verify");
        const auto t0 = Clock::now();
        const uint64_t working = ctx.workingBytes(docs, sigs, pairs);
        const std::size_t verified = verifyWithinBudget(
            pairs, files, docs, params, run.threads,
            std::max(working > heldBytes ? working - heldBytes : 0, kMinVerifyBytes),
            [&] { ctx.checkCancel(); });
        ctx.finished(run, {"verify", secondsSince(t0), verified, 0, false});
    };
    std::optional<int64_t> datasetId = store_.findDataset(files, params.reader);
    bool haveSignatures = false;
    if (datasetId) {
        dataset = store_.loadDataset(*datasetId, &docs);
        files = dataset.files;  // as pinned when they were read: with their fingerprints
        failOnStoredRejections(store_, run, *datasetId, dataset, docs.size());
        if (ctx.fitsInMemory(docs, docs.size())) {
            haveSignatures = store_.loadSignatures(*datasetId, cacheKey, sigs) &&
                             sigs.size() == docs.size() && sigs.hashes == params.signature.hashes;
        } else {
            ctx.info(
                "the project's signatures for this dataset exceed the memory budget; "
                "computing them again, out of core");
        }
    }
    if (haveSignatures) {
        run.signaturesReused = true;
        ctx.info("reusing the project's signatures for this dataset");
        ctx.finished(run, {"read", 0, docs.size(), dataset.inputBytes, true});
        ctx.finished(run, {"signatures", 0, docs.size(), dataset.inputBytes, true});
    } else {
        DatasetRecord fresh;
        fresh.files = files;
        fresh.reader = params.reader;
        // Rows signed so far go to a checkpoint now and then, for a run killed while reading.
        ReadCheckpoint checkpoint(sidecarDirectory(store_.path()), files, params.reader, cacheKey,
                                  params.signature.hashes);
        try {
            ctx.readAndSign(files, fresh, docs, sigs, run, &checkpoint);
        } catch (...) {
            recordUnfinishedRun(store_, run, datasetId, fresh, docs.size(),
                                std::current_exception());
            throw;
        }
        // The reading stage's buffers are gone; give their pages back before the next phases.
        releaseFreedMemory();
        // Ctrl-C rolls a dataset being saved back; the run is recorded as interrupted.
        auto save = [&] {
            const StoreInterruptScope interruptible(store_, [&] { ctx.checkCancel(); });
            if (datasetId) {
                fresh.id = *datasetId;
            } else {
                fresh.id = store_.saveDataset(fresh, docs);
                datasetId = fresh.id;
            }
            if (ctx.spilled())
                ctx.info("signatures not cached in the project: they exceed the memory budget");
            else
                try {
                    store_.saveSignatures(*datasetId, cacheKey, sigs);
                } catch (const Cancelled&) {
                    throw;
                } catch (const std::exception& e) {
                    // The cache only spares a later run its reading: a full disk costs that,
                    // never this run.
                    ctx.info(std::string("warning: signatures not cached in the project (") +
                             e.what() + "); a later run on these inputs reads them again");
                }
            ctx.checkCancel();
        };
        // With a second thread, a new dataset and its signatures are written into the project
        // while its buckets are compared and its pairs verified: those phases only read the
        // tables being saved, and the run's row waits for the dataset's id. On one thread the
        // project writes stay in sequence.
        std::future<void> saving;
        try {
            if (!datasetId && run.threads >= 2 && !ctx.spilled()) {
                saving = std::async(std::launch::async, save);
                run.resolvedBuckets = resolveBuckets(docs.size());
                pairs = ctx.bucketAndCompare(docs, sigs, docs.size(), run.resolvedBuckets, run);
                verify(capacityBytes(sigs.values));
                ctx.checkCancel();
                pairsReady = true;
                saving.get();
            } else {
                save();
            }
        } catch (...) {
            if (saving.valid()) saving.wait();  // its own failure, if any, is the lesser one
            recordUnfinishedRun(store_, run, datasetId, fresh, docs.size(),
                                std::current_exception());
            throw;
        }
        checkpoint.remove();  // the dataset and its signatures are in the project now
        files = fresh.files;  // with the fingerprints taken while reading
        dataset = std::move(fresh);
    }
    run.datasetId = *datasetId;
    run.rejections = dataset.rejections;
    RunCounts& c = run.counts;
    c.linesRead = dataset.linesRead;
    c.blankLines = dataset.blankLines;
    c.inputBytes = dataset.inputBytes;
    c.documents = docs.size();
    for (const auto& r : dataset.rejections)
        c.rejected += r.count;
    for (const uint8_t e : sigs.eligible)
        c.shortDocuments += e ? 0 : 1;

    const std::size_t n = docs.size();
    run.resolvedBuckets = resolveBuckets(n);
    run.runId = lock.beginRun(run);
    try {
        // Nothing to deduplicate, or more rejected than the user accepts: the run fails
        // before any output is written, saying why line by line.
        if (n == 0) throw InputError("no documents in the input: " + accountingText(run));
        if (const uint64_t lines = c.documents + c.rejected;
            params.maxRejected < 1.0 && lines > 0 &&
            static_cast<double>(c.rejected) > params.maxRejected * static_cast<double>(lines))
            throw InputError("too many rejected lines: " + accountingText(run) +
                             "; more than --max-rejected " + std::to_string(params.maxRejected));
        if (pairsReady) {
            sigs = SignatureMatrix{};
            releaseFreedMemory();
        } else {
            if (auto previous = store_.findReusablePairs(*datasetId, params, run.resolvedBuckets)) {
                RunResult earlier = store_.loadRun(*previous);
                pairs = std::move(earlier.pairs);
                run.bands = std::move(earlier.bands);
                c.candidatePairs = earlier.counts.candidatePairs;
                run.pairsReused = true;
                ctx.info("reusing the compared pairs of run " + std::to_string(*previous));
                ctx.finished(run, {"buckets", 0, 0, 0, true});
                ctx.finished(run, {"compare", 0, c.candidatePairs, 0, true});
            } else {
                pairs = ctx.bucketAndCompare(docs, sigs, n, run.resolvedBuckets, run);
            }
            // Nothing after this point reads signatures.
            sigs = SignatureMatrix{};
            ctx.releaseSpill();
            releaseFreedMemory();
            verify(0);
        }
        ctx.checkCancel();
        c.storedPairs = pairs.size();
        ctx.started("union");
        auto t0 = Clock::now();
        clusterDocuments(pairs, params.signature.hashes, params.compare.threshold, params.keep,
                         params.decide, docs, run);
        ctx.finished(run, {"union", secondsSince(t0), pairs.size(), 0, false});
        run.pairs = std::move(pairs);
        checkAccounting(run);
        // The dataset's audit decisions (core/project/decisions.h) shape what is exported; the run
        // is stored as the engine clustered it.
        const std::vector<Decision> decisions = listDecisions(store_, *datasetId);
        // Every output is complete under its temporary name before the run's final commit and
        // renamed into place only after it: an output under its final name means a finished run.
        PendingOutputs pending;
        auto exportAudited = [&](const ExportOptions& o) {
            if (decisions.empty()) {
                exportRun(run, files, docs, o, &pending);
                return;
            }
            RunResult audited = withDecisions(run, decisions, docs);
            audited.pairs.swap(run.pairs);  // lent: the clusters output reads witness pairs
            try {
                exportRun(audited, files, docs, o, &pending);
            } catch (...) {
                run.pairs.swap(audited.pairs);
                throw;
            }
            run.pairs.swap(audited.pairs);
        };
        ExportOptions outputs = exports;
        outputs.summaryJson.clear();  // written last, once the export phase is timed too
        outputs.cancel = cancel_;     // Ctrl-C stops the export too; nothing is renamed into place
        outputs.readAhead = run.threads >= 2;
        outputs.project = store_.path();
        if (outputs.any()) {
            ctx.started("export");
            t0 = Clock::now();
            try {
                exportAudited(outputs);
            } catch (const ExportCancelled&) {
                throw Cancelled();
            }
            ctx.finished(run, {"export", secondsSince(t0), c.kept, 0, false});
        }
        run.status = "ok";
        run.finishedAt = utcNow();
        run.spillBytes = work.bytesWritten();
        run.peakRssBytes = peakRssBytes();
        run.workerPhases = backend_.takeWorkerTimings();
        if (!exports.summaryJson.empty()) {
            ExportOptions summaryOnly;
            summaryOnly.summaryJson = exports.summaryJson;
            summaryOnly.project = store_.path();
            exportAudited(summaryOnly);
        }
        store_.finishRun(run);
        pending.commit();
        lock.finished();
    } catch (const Cancelled&) {
        store_.markRun(run.runId, "interrupted", "cancelled by the user");
        throw;
    } catch (const std::exception& e) {
        store_.markRun(run.runId, "failed", e.what());
        throw;
    }
    return run;
}

}  // namespace neardup
