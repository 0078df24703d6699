// The read and signatures phases (read_sign_phase.h): the chunks' layout, the reading
// pipeline's three stages, resuming from a checkpoint and what the read leaves in the dataset.
#include "read_sign_phase.h"

#include <tbb/concurrent_queue.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <optional>

#include "band_keys.h"
#include "chunk_work.h"
#include "hash_math.h"
#include "input_pin.h"
#include "jsonl_reader.h"
#include "memory_budget.h"
#include "run_failures.h"
#include "run_memory.h"

namespace neardup {

namespace {

// Everything one chunk needs on its way through the read/sign pipeline; recycled. Its rows are
// the chunk's signatures when signed in the parallel stage.
struct ChunkToken : ChunkWork {
    LineChunk chunk;
    PinPart pin;  // the chunk's part of its file's content pin (content_pin.h)
    // The rows' digests, when the rows were signed in the parallel stage: hashing them there
    // keeps the in-order stage, which bounds the read on many cores, short.
    std::vector<uint64_t> digests;
    // The rows' raw band keys, when they were signed in the parallel stage of a run that
    // spills: keyed there too, the rows go from the token to the spill files as they are.
    std::vector<uint64_t> keys;
};

// Who reads the chunks, how many are in flight and how large they are.
struct ChunkLayout {
    // A backend reading chunks itself (MpiBackend: on other ranks) takes the parallel stage's
    // work, and needs that many more chunks in flight to stay busy.
    std::size_t elsewhere = 0;
    bool signInParallel = false;
    std::size_t tokens = 0;
    std::size_t chunkBytes = 0;
    uint64_t bufferBytes = 0;  // estimated bytes of the chunks in flight
};

// Tells a backend that reads chunks itself (Backend::startChunks) that reading ended, however
// it ended.
struct FinishChunks {
    Backend& backend;
    bool active;
    ~FinishChunks() {
        if (active) backend.finishChunks();
    }
};

// Starts the backend's own reading, if it has one, and sizes the chunks: those in flight get at
// most an eighth of the budget (never below kMinChunkBytes), so the reading stage's memory does
// not grow with the corpus, only with the threads; the rest is left to the per-document floor
// growing beside them.
ChunkLayout layOutChunks(RunState& s, const ReaderOptions& reader) {
    const auto h = static_cast<std::size_t>(s.params.signature.hashes);
    ChunkSetup setup;
    setup.files = &s.files;
    setup.reader = reader;
    setup.signature = s.params.signature;
    setup.threads = s.run.threads;
    ChunkLayout layout;
    layout.elsewhere = s.backend.startChunks(setup);
    layout.signInParallel = layout.elsewhere > 0 || s.backend.signsConcurrently();
    layout.tokens = static_cast<std::size_t>(s.run.threads) * 2 + 2 + layout.elsewhere;
    const uint64_t bytesPerChunkByte =
        kBytesPerChunkByte + (layout.signInParallel ? 4 * h / kShortDocumentBytes : 0);
    const auto chunkCap =
        static_cast<std::size_t>(s.memory.budget() / 8 / layout.tokens / bytesPerChunkByte);
    layout.chunkBytes = std::min(s.params.reader.chunkBytes, std::max(kMinChunkBytes, chunkCap));
    layout.bufferBytes = layout.tokens * layout.chunkBytes * bytesPerChunkByte;
    return layout;
}

// One read through the inputs: the three stages of the reading pipeline and what they share.
class ChunkStream {
  public:
    ChunkStream(RunState& s, const ReaderOptions& reader, const ChunkLayout& layout)
        : s_(s),
          layout_(layout),
          sp_(s.params.signature),
          constants_(HashConstants::derive(sp_)),
          h_(static_cast<std::size_t>(sp_.hashes)),
          source_(s.files, layout.chunkBytes, OnError::Skip, reader.maxLineBytes),
          workers_(
              [&files = s.files, reader, sp = sp_] { return ChunkProcessor(files, reader, sp); }),
          pool_(layout.tokens) {
        for (auto& t : pool_) {
            t = std::make_unique<ChunkToken>();
            freeTokens_.push(t.get());
        }
        for (const auto& f : s.files) {
            totalBytes_ += f.size;
            sizesKnown_ = sizesKnown_ && f.compression == InputFile::Compression::None;
        }
    }

    // Empties the run's documents and signatures and starts the dataset's files afresh.
    void clearOutputs() {
        s_.sigs.resize(0, sp_.hashes);
        s_.docs.clear();
        s_.dataset.files = s_.files;
        unfingerprinted_.assign(s_.files.size(), 0);
        pinnedBefore_.assign(s_.files.size(), 0);
        pinners_.clear();
        for (InputFile& f : s_.dataset.files) {
            f.contentBytes = 0;
            pinners_.emplace_back(f.pinKey);
        }
    }

    // Takes the rows of a checkpoint left by an earlier run of the same read (checkpoint.h)
    // and has the source go on after them; false when there was no usable checkpoint.
    bool resumeFromCheckpoint() {
        ReadCheckpoint& checkpoint = *s_.checkpoint;
        const std::vector<InputFile>& files = s_.files;
        const auto at = checkpoint.restore(s_.docs, s_.sigs, rejections_, s_.dataset, bytesBefore_);
        if (!at) return false;
        failOnRejection(s_.params.reader.onError, rejections_.samples, files);
        source_.startAt(at->file, at->offset, at->line);
        // The fingerprints of what the checkpoint covers: read once more, without parsing.
        for (std::size_t i = 0; i < files.size() && i <= at->file; ++i) {
            InputFile& f = s_.dataset.files[i];
            try {
                const uint64_t upTo =
                    i < at->file ? std::numeric_limits<uint64_t>::max() : at->offset;
                pinners_[i] = pinFilePrefix(files[i], upTo);
                f.contentBytes = pinners_[i].bytes();
                if (i == at->file && f.contentBytes != at->offset) unfingerprinted_[i] = 1;
            } catch (const std::exception&) {
                unfingerprinted_[i] = 1;  // unreadable or damaged: no fingerprint
            }
        }
        s_.report.info("resuming the read from a checkpoint: " + std::to_string(s_.docs.size()) +
                       " documents signed, going on at " +
                       (at->file < files.size()
                            ? files[at->file].path + ":" + std::to_string(at->line)
                            : std::string("the end")));
        if (!s_.memory.fitsInMemory(s_.docs, s_.docs.size())) {
            s_.memory.startSpill(s_.sigs, s_.docs.size(), s_.run);
            checkpoint.disable();
        }
        return true;
    }

    // Takes the reference's documents, signatures, counts, rejected lines and pins from the
    // dataset an earlier run read from exactly its files (RunState::referenceSeed) and has the
    // source start at the first input file: the reference is neither read nor signed again.
    // Signatures beyond the budget are streamed from their cache into the spill, whose rows the
    // inputs' then follow. Its files were found unchanged by their identity
    // (ProjectStore::findDataset), as a reused dataset's are. Its rejected lines also go into
    // the checkpoint's first record.
    void startAfterReference() {
        RunState::ReferenceSeed& seed = *s_.referenceSeed;
        const uint32_t files = s_.referenceFiles;
        s_.docs = std::move(seed.docs);
        s_.sigs = std::move(seed.sigs);
        s_.dataset.linesRead = seed.dataset.linesRead;
        s_.dataset.blankLines = seed.dataset.blankLines;
        for (const Rejection& r : seed.rejections)
            rejections_.add(r);
        s_.checkpoint->addRejections(std::move(seed.rejections));
        bytesBefore_ = seed.dataset.inputBytes;
        for (uint32_t i = 0; i < files; ++i) {
            InputFile& f = s_.dataset.files[i];
            f = seed.dataset.files[i];
            f.reference = true;
            f.pinKey = s_.files[i].pinKey;
            pinnedBefore_[i] = 1;
        }
        if (seed.cachedRows) {
            s_.memory.spillCachedPrefix(std::move(seed.cachedRows->fd), seed.cachedRows->valuesAt,
                                        s_.docs.size(), s_.run);
            spilling_.store(true, std::memory_order_release);
        }
        source_.startAt(files, 0, 1);
        s_.run.referenceReused = true;
        s_.referenceDatasetId = seed.datasetId;
        // The new dataset shares the reference's document rows instead of storing them again
        // (one level: a reference that shares its own rows with another is stored whole).
        if (!seed.dataset.baseDataset && s_.docs.size() > 0) {
            s_.dataset.baseDataset = seed.datasetId;
            s_.dataset.baseDocuments = s_.docs.size();
        }
        s_.report.info("the reference's " + std::to_string(s_.docs.size()) +
                       " documents and their signatures come from dataset " +
                       std::to_string(seed.datasetId) +
                       ", read by an earlier run: reading the inputs only");
        s_.referenceSeed.reset();
    }

    // Runs the three stages over every chunk until the inputs end or the user cancels.
    void pump() {
        const int threads = s_.run.threads;
        // Threads waiting for chunks read elsewhere only wait: they come on top of `threads`
        // (TBB would otherwise start no more threads than this machine has cores).
        std::optional<tbb::global_control> waiters;
        if (layout_.elsewhere > 0)
            waiters.emplace(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads) + layout_.elsewhere);
        tbb::task_arena arena(threads + static_cast<int>(layout_.elsewhere));
        arena.execute([&] {
            tbb::parallel_pipeline(layout_.tokens,
                                   tbb::make_filter<void, ChunkToken*>(
                                       tbb::filter_mode::serial_in_order,
                                       [this](tbb::flow_control& fc) { return cut(fc); }) &
                                       tbb::make_filter<ChunkToken*, ChunkToken*>(
                                           tbb::filter_mode::parallel,
                                           [this](ChunkToken* token) { return prepare(token); }) &
                                       tbb::make_filter<ChunkToken*, void>(
                                           tbb::filter_mode::serial_in_order,
                                           [this](ChunkToken* token) { take(token); }));
        });
    }

    // After the pipeline: what the read leaves in the dataset, and the two phases' timings.
    void finish(SteadyClock::time_point start) {
        s_.memory.setReadBuffers(0);
        s_.memory.checkFloor(s_.docs, 1.0);  // a read resumed from a checkpoint, too
        // The document table kept growing after the matrix last grew: check once more.
        if (!s_.memory.spilled() && !s_.memory.fitsInMemory(s_.docs, s_.docs.size()))
            s_.memory.startSpill(s_.sigs, s_.docs.size(), s_.run);
        s_.memory.dropBlock();
        const double wall = secondsSince(start);
        markFingerprinted();
        s_.dataset.inputBytes = bytesBefore_ + source_.bytesRead();
        summarizeRejections();
        // The stages overlap, so wall time is shared between read and signatures in proportion
        // to the thread time each consumed; the two add up to the wall time of the stage.
        const double busy = static_cast<double>(readNs_.load() + signNs_.load());
        const double readShare = busy > 0 ? static_cast<double>(readNs_.load()) / busy : 0.5;
        const std::size_t documents = s_.docs.size();
        s_.report.finished(s_.run,
                           {"read", wall * readShare, documents, s_.dataset.inputBytes, false});
        s_.report.finished(s_.run, {"signatures", wall * (1.0 - readShare), documents,
                                    s_.dataset.inputBytes, false});
    }

  private:
    // Stage 1 (serial, in order): the next chunk of input, or the end.
    ChunkToken* cut(tbb::flow_control& fc) {
        ChunkToken* token = nullptr;
        if (s_.report.cancelled() || !freeTokens_.try_pop(token)) {
            fc.stop();
            return nullptr;
        }
        const auto t0 = SteadyClock::now();
        const bool more = source_.next(token->chunk);
        readNs_ += (SteadyClock::now() - t0).count();
        if (!more) {
            freeTokens_.push(token);
            fc.stop();
            return nullptr;
        }
        return token;
    }

    // Stage 2 (parallel): parse, normalize and shingle the chunk, and sign it here when the
    // backend signs concurrently; or have the backend do all of it elsewhere.
    ChunkToken* prepare(ChunkToken* token) {
        if (s_.report.cancelled()) return token;  // drain at once
        const LineChunk& c = token->chunk;
        token->pin = pinPart(s_.files[c.file].pinKey, c.data.data(), c.data.size(), c.baseOffset);
        if (layout_.signInParallel) {
            if (layout_.elsewhere > 0)
                s_.backend.processChunk(token->chunk, *token);
            else  // each document as it is normalized, on a CPU backend
                workers_.local().process(token->chunk, *token, s_.backend, constants_);
            const auto t0 = SteadyClock::now();
            digestRows(*token);
            keyRows(*token);
            readNs_ += token->parseNs;
            signNs_ += token->signNs + (SteadyClock::now() - t0).count();
            return token;
        }
        const auto t0 = SteadyClock::now();
        workers_.local().prepare(token->chunk, *token);
        readNs_ += (SteadyClock::now() - t0).count();
        return token;
    }

    // The digest of each of the token's signed rows (SignatureMatrix::digests).
    void digestRows(ChunkToken& token) const {
        const std::size_t n = token.rows.size() / h_;
        token.digests.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            token.digests[i] = hashmath::signatureDigest(token.rows.data() + i * h_, sp_.hashes);
    }

    // The raw band keys of the token's signed rows, once the run spills (before, its rows stay
    // in memory and are keyed by the comparison; a chunk prepared as the spill starts is keyed
    // in the in-order stage instead).
    void keyRows(ChunkToken& token) const {
        token.keys.clear();
        if (!spilling_.load(std::memory_order_acquire)) return;
        const std::size_t n = token.rows.size() / h_;
        token.keys.resize(n * static_cast<std::size_t>(s_.params.lsh.bands));
        rawBandKeys(token.rows.data(), n, sp_.hashes, s_.params.lsh, token.keys.data());
    }

    // Stage 3 (serial, in order): the chunk's documents and rows join the run's, its counts the
    // dataset's; then the checkpoint and progress.
    void take(ChunkToken* token) {
        if (s_.report.cancelled()) return freeTokens_.push(token);
        failOnRejection(s_.params.reader.onError, token->parsed.rejections, s_.files);
        const auto t0 = SteadyClock::now();
        appendRows(*token);
        countChunk(*token);
        checkpointChunk(*token);
        signNs_ += (SteadyClock::now() - t0).count();
        s_.report.progress("read", source_.bytesRead(), sizesKnown_ ? totalBytes_ : 0);
        freeTokens_.push(token);
    }

    // The chunk's documents into the table, their signatures (signed now unless they were in
    // the parallel stage) into the matrix or, once spilling, the spill files.
    void appendRows(ChunkToken& token) {
        DocumentTable& docs = s_.docs;
        SignatureMatrix& sigs = s_.sigs;
        const ParsedChunk& p = token.parsed;
        const std::size_t first = docs.size();
        const std::size_t n = p.docs.size();
        std::size_t idBytes = 0;
        for (const ParsedDocument& d : p.docs)
            idBytes += p.id(d).size();
        SignatureMemory::growDocuments(docs, sigs, n, idBytes);
        if (!s_.memory.spilled() &&
            !s_.memory.reserveRows(docs, sigs, first + n, expectedRows(token)))
            s_.memory.startSpill(sigs, first, s_.run);
        sigs.digests.resize(first + n);
        sigs.eligible.resize(first + n);
        if (s_.memory.spilled()) spilling_.store(true, std::memory_order_release);
        const bool keyed = s_.memory.spilled() && layout_.signInParallel &&
                           token.keys.size() == n * static_cast<std::size_t>(s_.params.lsh.bands);
        if (keyed) {
            s_.memory.spillKeyedRows(token.rows.data(), token.keys.data(), n);
            std::copy(token.digests.begin(), token.digests.end(), sigs.digests.begin() + first);
        } else {
            uint32_t* rows = nullptr;
            if (s_.memory.spilled()) {
                s_.memory.block().resize(n, sp_.hashes);
                rows = s_.memory.block().values.data();
            } else {
                sigs.values.resize((first + n) * h_);
                rows = sigs.values.data() + first * h_;
            }
            if (layout_.signInParallel) {
                std::copy(token.rows.begin(), token.rows.end(), rows);
                std::copy(token.digests.begin(), token.digests.end(), sigs.digests.begin() + first);
            } else {
                s_.backend.computeSignatures(token.symbols, constants_, rows);
                for (std::size_t i = 0; i < n; ++i)
                    sigs.digests[first + i] = hashmath::signatureDigest(rows + i * h_, sp_.hashes);
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            const ParsedDocument& d = p.docs[i];
            docs.append(p.file, d.line, d.offset, d.length, token.chars[i], d.keepValue, p.id(d));
            const std::size_t row = first + i;
            const uint64_t count = token.symbols.docEnd[i] - token.symbols.docBegin(i);
            sigs.eligible[row] = count >= static_cast<uint64_t>(sp_.ngram);
        }
        if (s_.memory.spilled() && !keyed) s_.memory.spillBlock();
        // The documents so far already above the budget: stop now rather than after the read.
        const uint64_t through = bytesBefore_ + consumed_ + token.chunk.data.size();
        s_.memory.checkFloor(docs, sizesKnown_ && totalBytes_ > 0
                                       ? std::min(1.0, static_cast<double>(through) /
                                                           static_cast<double>(totalBytes_))
                                       : 0.0);
    }

    // The documents the whole input is expected to hold, from those so far and `token`'s (not
    // in the table yet), and a sixteenth for the estimate's error; 0 when the input's size is
    // unknown (compressed).
    std::size_t expectedRows(const ChunkToken& token) const {
        const uint64_t through = bytesBefore_ + consumed_ + token.chunk.data.size();
        if (!sizesKnown_ || through == 0 || through >= totalBytes_) return 0;
        const double perByte = static_cast<double>(s_.docs.size() + token.parsed.docs.size()) /
                               static_cast<double>(through);
        const double expected = perByte * static_cast<double>(totalBytes_);
        return static_cast<std::size_t>(expected + expected / 16);
    }

    // The chunk's rejections, lines and part of its file's fingerprint.
    void countChunk(const ChunkToken& token) {
        const ParsedChunk& p = token.parsed;
        for (const Rejection& r : p.rejections)
            rejections_.add(r);
        s_.dataset.linesRead += p.lines;
        s_.dataset.blankLines += p.blankLines;
        const LineChunk& c = token.chunk;
        InputFile& f = s_.dataset.files[c.file];
        const bool skippedLine = !c.failure.empty() && c.failureReason == RejectReason::LineTooLong;
        f.contentBytes += c.data.size() + (skippedLine ? c.dropped : 0);
        if (!c.failure.empty() && !skippedLine) unfingerprinted_[c.file] = 1;
        ContentPinner& pinner = pinners_[c.file];
        // Read with a gap (damage, or parts that do not follow each other): no pin.
        if (token.pin.offset != pinner.bytes()) unfingerprinted_[c.file] = 1;
        if (unfingerprinted_[c.file]) return;
        pinner.add(token.pin, c.data.data());
        if (skippedLine)
            pinner.add(c.droppedPin, c.droppedEdges.data(),
                       c.droppedEdges.data() + c.droppedPin.head);
    }

    // Runs that spill do not checkpoint; the others leave a record when enough input went by.
    void checkpointChunk(const ChunkToken& token) {
        ReadCheckpoint& checkpoint = *s_.checkpoint;
        consumed_ += token.chunk.data.size() + token.chunk.dropped;
        if (s_.memory.spilled())
            checkpoint.disable();
        else
            checkpoint.afterChunk(token.chunk, token.parsed, s_.docs, s_.sigs, s_.dataset,
                                  bytesBefore_ + consumed_);
    }

    // A file read to its end, without damage, has a fingerprint; a plain file's content is its
    // size.
    void markFingerprinted() {
        for (std::size_t i = 0; i < s_.dataset.files.size(); ++i) {
            if (pinnedBefore_[i]) continue;  // the reference's, pinned when first read
            InputFile& f = s_.dataset.files[i];
            f.fingerprinted =
                !unfingerprinted_[i] && f.mtimeNs >= 0 &&
                (f.compression != InputFile::Compression::None || f.contentBytes == f.size);
            f.legacySum = false;
            if (f.fingerprinted) f.pin = pinners_[i].finish();
        }
    }

    // Per reason: how many lines, and the first one; then the samples and every rejected line.
    void summarizeRejections() {
        const std::vector<InputFile>& files = s_.files;
        for (int r = 0; r < kRejectReasonCount; ++r) {
            const auto reason = static_cast<RejectReason>(r);
            if (rejections_.counts[r] == 0) continue;
            const Rejection* first = rejections_.first(reason);
            const bool aboutFile =
                reason == RejectReason::UnreadableFile || reason == RejectReason::CorruptInput;
            s_.dataset.rejections.push_back({toString(reason), rejections_.counts[r],
                                             first ? files[first->file].path : std::string(),
                                             first ? first->line : 0,
                                             first && aboutFile ? first->detail : std::string()});
        }
        s_.dataset.rejectionSamples = rejections_.samples;
        s_.dataset.rejectedLines = std::move(rejections_.all);
    }

    RunState& s_;
    const ChunkLayout& layout_;
    const SignatureParams& sp_;
    const HashConstants constants_;
    const std::size_t h_;
    LineChunkSource source_;
    tbb::enumerable_thread_specific<ChunkProcessor> workers_;
    std::vector<std::unique_ptr<ChunkToken>> pool_;
    tbb::concurrent_queue<ChunkToken*> freeTokens_;
    RejectionLog rejections_;
    std::atomic<int64_t> readNs_{0}, signNs_{0};
    uint64_t totalBytes_ = 0;
    bool sizesKnown_ = true;
    uint64_t bytesBefore_ = 0, consumed_ = 0;  // input before a checkpoint, and since
    std::vector<uint8_t> unfingerprinted_;     // per input file: not read whole, no fingerprint
    std::vector<uint8_t> pinnedBefore_;        // per input file: its pin comes from a dataset
    std::vector<ContentPinner> pinners_;       // per input file: its content pin so far
    // Set by the in-order stage once the run spills: the parallel stage keys its rows from then.
    std::atomic<bool> spilling_{false};
};

}  // namespace

void ReadSignPhase::run() {
    // Lines longer than this are streamed past as line_too_long, never held in memory.
    ReaderOptions reader = s_.params.reader;
    if (reader.maxLineBytes == 0)
        reader.maxLineBytes = std::max<uint64_t>(s_.memory.budget() / 16, uint64_t{1} << 20);
    const ChunkLayout layout = layOutChunks(s_, reader);
    const FinishChunks finishChunks{s_.backend, layout.elsewhere > 0};
    s_.memory.setReadBuffers(layout.bufferBytes);
    ChunkStream stream(s_, reader, layout);
    stream.clearOutputs();
    const bool resumed = resume_ && stream.resumeFromCheckpoint();
    if (!resumed && s_.referenceSeed) stream.startAfterReference();
    const auto start = SteadyClock::now();
    s_.report.started("read");
    s_.report.started("signatures");
    stream.pump();
    s_.report.checkCancel();
    stream.finish(start);
}

}  // namespace neardup
