#include "pipeline.h"

#include <tbb/concurrent_queue.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <thread>

#include "clustering.h"
#include "hash_math.h"
#include "jsonl_reader.h"
#include "lsh_buckets.h"
#include "pair_verifier.h"
#include "shingles.h"

namespace neardup {

std::string utcNow() {
    const auto now = std::chrono::system_clock::now();
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms % 1000));
    return buf;
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

int resolveThreads(int threads) {
    return threads > 0 ? threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Everything one chunk needs on its way through the read/sign pipeline; recycled.
struct ChunkToken {
    LineChunk chunk;
    ParsedChunk parsed;
    SymbolBatch symbols;
    std::vector<uint32_t> chars;
};

struct WorkerState {
    explicit WorkerState(const std::vector<InputFile>& files, const ReaderOptions& reader,
                         const NormalizeOptions& normalize)
        : parser(files, reader), normalizer(normalize) {}
    ChunkParser parser;
    Normalizer normalizer;
    std::vector<uint32_t> words;
};

class RunContext {
  public:
    RunContext(ProjectStore& store, Backend& backend, PipelineObserver* observer,
               const std::atomic<bool>* cancel, const RunParams& params)
        : store_(store), backend_(backend), observer_(observer), cancel_(cancel), params_(params) {}

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

    // read + signatures, streamed: chunks are cut sequentially, parsed and normalized in
    // parallel, then signed in order by the backend.
    void readAndSign(const std::vector<InputFile>& files, DatasetRecord& dataset,
                     DocumentTable& docs, SignatureMatrix& sigs, RunResult& run) {
        const auto& sp = params_.signature;
        const HashConstants constants = HashConstants::derive(sp);
        const int threads = resolveThreads(params_.threads);
        const auto h = static_cast<std::size_t>(sp.hashes);
        uint64_t totalBytes = 0;
        bool sizesKnown = true;
        for (const auto& f : files) {
            totalBytes += f.size;
            sizesKnown = sizesKnown && f.compression == InputFile::Compression::None;
        }
        LineChunkSource source(files, params_.reader.chunkBytes);
        tbb::enumerable_thread_specific<WorkerState> workers(
            [&] { return WorkerState(files, params_.reader, sp.normalize); });
        const std::size_t tokens = static_cast<std::size_t>(threads) * 2 + 2;
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
        const auto start = Clock::now();
        started("read");
        started("signatures");
        tbb::task_arena arena(threads);
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
                            WorkerState& w = workers.local();
                            const auto t0 = Clock::now();
                            w.parser.parse(token->chunk, token->parsed);
                            const auto t1 = Clock::now();
                            token->symbols.clear();
                            token->chars.clear();
                            for (const ParsedDocument& d : token->parsed.docs) {
                                const auto& cps = w.normalizer.run(token->parsed.text(d));
                                token->chars.push_back(static_cast<uint32_t>(cps.size()));
                                if (sp.shingle == ShingleKind::Char) {
                                    token->symbols.symbols.insert(token->symbols.symbols.end(),
                                                                  cps.begin(), cps.end());
                                } else {
                                    toSymbols(sp.shingle, cps, w.words);
                                    token->symbols.symbols.insert(token->symbols.symbols.end(),
                                                                  w.words.begin(), w.words.end());
                                }
                                token->symbols.docEnd.push_back(token->symbols.symbols.size());
                            }
                            const auto t2 = Clock::now();
                            readNs += (t1 - t0).count();
                            signNs += (t2 - t1).count();
                            return token;
                        }) &
                    tbb::make_filter<ChunkToken*, void>(
                        tbb::filter_mode::serial_in_order, [&](ChunkToken* token) {
                            const auto t0 = Clock::now();
                            const ParsedChunk& p = token->parsed;
                            const std::size_t first = docs.size();
                            const std::size_t n = p.docs.size();
                            sigs.values.resize((first + n) * h);
                            sigs.digests.resize(first + n);
                            sigs.eligible.resize(first + n);
                            backend_.computeSignatures(token->symbols, constants,
                                                       sigs.values.data() + first * h);
                            for (std::size_t i = 0; i < n; ++i) {
                                const ParsedDocument& d = p.docs[i];
                                docs.append(p.file, d.line, d.offset, d.length, token->chars[i],
                                            d.keepValue, p.id(d));
                                const std::size_t row = first + i;
                                sigs.digests[row] =
                                    hashmath::signatureDigest(sigs.row(row), sp.hashes);
                                const uint64_t count =
                                    token->symbols.docEnd[i] - token->symbols.docBegin(i);
                                sigs.eligible[row] = count >= static_cast<uint64_t>(sp.ngram);
                            }
                            for (const Rejection& r : p.rejections)
                                rejections.add(r);
                            dataset.linesRead += p.lines;
                            dataset.blankLines += p.blankLines;
                            signNs += (Clock::now() - t0).count();
                            progress("read", source.bytesRead(), sizesKnown ? totalBytes : 0);
                            freeTokens.push(token);
                        }));
        });
        checkCancel();
        const double wall = secondsSince(start);
        dataset.inputBytes = source.bytesRead();
        for (int r = 0; r < kRejectReasonCount; ++r) {
            const auto reason = static_cast<RejectReason>(r);
            if (rejections.counts[r] == 0) continue;
            const Rejection* first = rejections.first(reason);
            dataset.rejections.push_back({toString(reason), rejections.counts[r],
                                          first ? files[first->file].path : std::string(),
                                          first ? first->line : 0});
        }
        dataset.rejectionSamples = rejections.samples;
        // The stages overlap, so wall time is shared between read and signatures in proportion
        // to the thread time each consumed; the two add up to the wall time of the stage.
        const double busy = static_cast<double>(readNs.load() + signNs.load());
        const double readShare = busy > 0 ? static_cast<double>(readNs.load()) / busy : 0.5;
        finished(run, {"read", wall * readShare, docs.size(), dataset.inputBytes, false});
        finished(run,
                 {"signatures", wall * (1.0 - readShare), docs.size(), dataset.inputBytes, false});
    }

    std::vector<ScoredPair> bucketAndCompare(const SignatureMatrix& sigs, std::size_t n,
                                             uint64_t modulus, RunResult& run) {
        const auto& lsh = params_.lsh;
        const int threads = resolveThreads(params_.threads);
        const int hashes = params_.signature.hashes;
        const auto minMatches =
            static_cast<int>(std::ceil(params_.compare.storeFloor * hashes - 1e-9));
        std::vector<uint64_t> keys(n * static_cast<std::size_t>(lsh.bands));
        started("buckets");
        auto t0 = Clock::now();
        backend_.computeBandKeys(sigs, lsh, modulus, keys.data());
        double bucketSeconds = secondsSince(t0), compareSeconds = 0;
        uint64_t entries = 0;
        std::vector<std::pair<uint64_t, uint32_t>> scratch;
        BucketBatch batch;
        std::vector<ScoredPair> pairs;
        uint64_t decided = 0;
        CompareRequest req{&sigs, keys.data(), lsh.bands, minMatches};
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

  private:
    ProjectStore& store_;
    Backend& backend_;
    PipelineObserver* observer_;
    const std::atomic<bool>* cancel_;
    const RunParams& params_;
};

void checkAccounting(const RunResult& run) {
    const RunCounts& c = run.counts;
    if (c.documents + c.rejected + c.blankLines != c.linesRead)
        throw std::runtime_error("internal error: documents (" + std::to_string(c.documents) +
                                 ") + rejected (" + std::to_string(c.rejected) + ") + blank (" +
                                 std::to_string(c.blankLines) + ") != lines read (" +
                                 std::to_string(c.linesRead) + ")");
    if (c.kept + c.removed != c.documents)
        throw std::runtime_error("internal error: kept + removed != documents");
}

}  // namespace

Pipeline::Pipeline(ProjectStore& store, Backend& backend, PipelineObserver* observer,
                   const std::atomic<bool>* cancel)
    : store_(store), backend_(backend), observer_(observer), cancel_(cancel) {}

RunResult Pipeline::run(const std::vector<std::string>& inputs, const RunParams& params,
                        const ExportOptions& exports) {
    if (const std::string problem = validate(params); !problem.empty())
        throw std::invalid_argument(problem);
    RunContext ctx(store_, backend_, observer_, cancel_, params);
    RunResult run;
    run.params = params;
    run.backend = backend_.description();
    run.threads = resolveThreads(params.threads);
    run.startedAt = utcNow();

    const std::vector<InputFile> files = expandInputs(inputs);
    const std::string cacheKey = signatureCacheKey(params.signature, params.reader);
    DocumentTable docs;
    SignatureMatrix sigs;
    DatasetRecord dataset;
    std::optional<int64_t> datasetId = store_.findDataset(files, params.reader);
    bool haveSignatures = false;
    if (datasetId) {
        dataset = store_.loadDataset(*datasetId, &docs);
        haveSignatures = store_.loadSignatures(*datasetId, cacheKey, sigs) &&
                         sigs.size() == docs.size() && sigs.hashes == params.signature.hashes;
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
        ctx.readAndSign(files, fresh, docs, sigs, run);
        if (datasetId) {
            fresh.id = *datasetId;
        } else {
            fresh.id = store_.saveDataset(fresh, docs);
            datasetId = fresh.id;
        }
        dataset = std::move(fresh);
        store_.saveSignatures(*datasetId, cacheKey, sigs);
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
    run.resolvedBuckets = params.lsh.bucketMode == BucketMode::Exact  ? 0
                          : params.lsh.bucketMode == BucketMode::Auto ? autoBucketCount(n)
                                                                      : params.lsh.buckets;
    run.runId = store_.beginRun(run);
    try {
        std::vector<ScoredPair> pairs;
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
            pairs = ctx.bucketAndCompare(sigs, n, run.resolvedBuckets, run);
        }
        if (params.compare.verify != VerifyMode::None || run.pairsReused) {
            ctx.started("verify");
            const auto t0 = Clock::now();
            const std::size_t verified =
                verifyPairs(pairs, files, docs, params, run.threads, [&] { ctx.checkCancel(); });
            ctx.finished(run, {"verify", secondsSince(t0), verified, 0, false});
        }
        ctx.checkCancel();
        c.storedPairs = pairs.size();
        ctx.started("union");
        auto t0 = Clock::now();
        clusterDocuments(pairs, params.signature.hashes, params.compare.threshold, params.keep,
                         docs, run);
        ctx.finished(run, {"union", secondsSince(t0), pairs.size(), 0, false});
        run.pairs = std::move(pairs);
        checkAccounting(run);
        ExportOptions outputs = exports;
        outputs.summaryJson.clear();  // written last, once the export phase is timed too
        if (outputs.any()) {
            ctx.started("export");
            t0 = Clock::now();
            exportRun(run, files, docs, outputs);
            ctx.finished(run, {"export", secondsSince(t0), c.kept, 0, false});
        }
        run.status = "ok";
        run.finishedAt = utcNow();
        store_.finishRun(run);
        if (!exports.summaryJson.empty()) {
            ExportOptions summaryOnly;
            summaryOnly.summaryJson = exports.summaryJson;
            exportRun(run, files, docs, summaryOnly);
        }
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
