#include "exporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "atomic_file.h"
#include "clustering.h"
#include "document_fetcher.h"
#include "input_pin.h"
#include "json_text.h"
#include "jsonl_reader.h"
#include "output_check.h"
#include "output_file.h"
#include "parquet_file.h"

namespace neardup {

namespace {

std::string number(double v) {
    return fmt::format("{:.6g}", v);
}

// Progress and cancellation, looked at every kEvery documents (no per-document call).
class Ticker {
  public:
    static constexpr uint64_t kEvery = 4096;
    Ticker(const ExportOptions& o, uint64_t total) : o_(o), total_(total) {}
    // Counts `docs` more documents done; reports and checks the cancel flag now and then.
    void advance(uint64_t docs) {
        done_ += docs;
        if (done_ - last_ >= kEvery) tick();
    }
    void tick() {
        last_ = done_;
        if (o_.cancel && o_.cancel->load(std::memory_order_relaxed)) throw ExportCancelled();
        if (o_.progress) o_.progress(std::min(done_, total_), total_);
    }

  private:
    const ExportOptions& o_;
    uint64_t total_, done_ = 0, last_ = 0;
};

// Reads the next chunks on a thread of its own while the caller writes the current one: the
// export's reading (I/O, decompression, line cutting) and writing then overlap. Stops and
// joins its thread when destroyed, however early the caller gives up.
// A std::thread, not a tbb::task_group task: the reader blocks on I/O and waits for the writer
// to hand chunks back, and TBB promises no concurrency between tasks, so as a task it could wait
// for a writer that waits for it (one-thread arenas, or an export started from a TBB worker).
class ChunkReadAhead {
  public:
    explicit ChunkReadAhead(LineChunkSource& source) : source_(source) {
        for (auto& c : pool_)
            free_.push_back(&c);
        thread_ = std::thread([this] { produce(); });
    }
    ~ChunkReadAhead() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }
    ChunkReadAhead(const ChunkReadAhead&) = delete;
    ChunkReadAhead& operator=(const ChunkReadAhead&) = delete;

    // The next chunk, valid until the following call; nullptr at the end. Rethrows the reading
    // thread's error.
    const LineChunk* next() {
        std::unique_lock lock(mutex_);
        if (current_) free_.push_back(current_);
        current_ = nullptr;
        changed_.notify_all();
        changed_.wait(lock, [&] { return !ready_.empty() || done_; });
        if (!ready_.empty()) {
            current_ = ready_.front();
            ready_.pop_front();
            changed_.notify_all();
            return current_;
        }
        if (error_) std::rethrow_exception(error_);
        return nullptr;
    }

  private:
    void produce() {
        try {
            for (;;) {
                LineChunk* chunk = nullptr;
                {
                    std::unique_lock lock(mutex_);
                    changed_.wait(lock, [&] { return stop_ || !free_.empty(); });
                    if (stop_) break;
                    chunk = free_.back();
                    free_.pop_back();
                }
                const bool more = source_.next(*chunk);
                std::lock_guard lock(mutex_);
                if (!more) break;
                ready_.push_back(chunk);
                changed_.notify_all();
            }
        } catch (...) {
            std::lock_guard lock(mutex_);
            error_ = std::current_exception();
        }
        std::lock_guard lock(mutex_);
        done_ = true;
        changed_.notify_all();
    }

    LineChunkSource& source_;
    LineChunk pool_[3];
    std::vector<LineChunk*> free_;
    std::deque<LineChunk*> ready_;
    LineChunk* current_ = nullptr;
    bool stop_ = false, done_ = false;
    std::exception_ptr error_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::thread thread_;
};

// Copies the kept documents' lines by streaming each input once, in order; a Parquet input's
// kept rows become JSON lines of their id and text (each row group decoded once).
void writeJsonl(const RunResult& run, const std::vector<InputFile>& files,
                const DocumentTable& docs, OutputFile& out, Ticker& ticker, bool readAhead,
                const ReaderOptions& reader) {
    std::size_t next = 0;  // next document to consider, in input order
    const std::size_t n = docs.size();
    auto skipRemoved = [&] {
        const std::size_t from = next;
        while (next < n && run.removed(next))
            ++next;
        ticker.advance(next - from);
    };
    skipRemoved();
    if (next == n) return;
    // The stored offsets are used only on the files they came from (input_pin.h).
    if (const std::string problem = pinProblem(files); !problem.empty())
        throw InputError(problem + "; export refused");
    // Skip: an unreadable file or a damaged stream was a rejection when the run read it; what
    // is missing after it is caught below as a short input.
    // No kept line is longer than the longest document: longer lines (rejected as too long
    // when read) are streamed past, never held in memory.
    // The line source reads the JSON Lines inputs only; its file indices map to the dataset's.
    std::vector<InputFile> textFiles;
    std::vector<uint32_t> datasetIndex;
    std::vector<uint8_t> parquet(files.size(), 0);
    for (uint32_t f = 0; f < files.size(); ++f) {
        parquet[f] = columnar::isParquetName(files[f].path) ? 1 : 0;
        if (parquet[f]) continue;
        textFiles.push_back(files[f]);
        datasetIndex.push_back(f);
    }
    uint32_t longest = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (!parquet[docs.file[i]]) longest = std::max(longest, docs.length[i]);
    LineChunkSource source(textFiles, std::size_t{4} << 20, OnError::Skip, uint64_t{longest} + 1);
    std::unique_ptr<DocumentFetcher> rows;
    std::optional<ChunkReadAhead> ahead;
    if (readAhead) ahead.emplace(source);
    LineChunk own;
    auto nextChunk = [&]() -> const LineChunk* {
        if (ahead) return ahead->next();
        return source.next(own) ? &own : nullptr;
    };
    while (next < n) {
        if (parquet[docs.file[next]]) {
            if (!rows) rows = std::make_unique<DocumentFetcher>(files, reader);
            const FetchedDocument row = rows->fetch(docs, next);
            if (!row.ok)
                throw std::runtime_error("cannot export row " + std::to_string(docs.line[next]) +
                                         " of '" + files[docs.file[next]].path + "': " + row.error);
            out.write(row.line);
            out.write("\n");
            ++next;
            ticker.advance(1);
            skipRemoved();
            continue;
        }
        const LineChunk* current = nextChunk();
        if (!current) break;
        const LineChunk& chunk = *current;
        const uint32_t chunkFile = datasetIndex[chunk.file];
        const uint64_t end = chunk.baseOffset + chunk.data.size();
        while (next < n && docs.file[next] == chunkFile && docs.offset[next] < end) {
            const uint64_t at = docs.offset[next] - chunk.baseOffset;
            out.write(std::string_view(chunk.data).substr(at, docs.length[next]));
            out.write("\n");
            ++next;
            ticker.advance(1);
            skipRemoved();
        }
    }
    if (next < n)
        throw std::runtime_error("input '" + files[docs.file[next]].path +
                                 "' is shorter than when it was read; export aborted");
}

}  // namespace

PendingOutputs::PendingOutputs() = default;
PendingOutputs::~PendingOutputs() = default;

void PendingOutputs::add(std::unique_ptr<AtomicFile> file) {
    files_.push_back(std::move(file));
}

void PendingOutputs::commit() {
    for (auto& f : files_)
        f->commit();
    files_.clear();
}

void exportRun(const RunResult& run, const std::vector<InputFile>& files, const DocumentTable& docs,
               const ExportOptions& options, PendingOutputs* pending) {
    if (const std::string problem = outputProblem(namedOutputs(options), files, options.project);
        !problem.empty())
        throw std::runtime_error(problem);
    const std::size_t n = docs.size();
    uint64_t outputs = 0;
    for (const std::string* p :
         {&options.jsonl, &options.kept, &options.removed, &options.clusters})
        outputs += p->empty() ? 0 : 1;
    Ticker ticker(options, outputs * n);
    ticker.tick();  // a flag raised before the start cancels at once
    // Every output is complete under its temporary name before any is renamed into place.
    // Each compressed as its name asks (output_file.h).
    std::vector<std::unique_ptr<OutputFile>> written;
    auto open = [&](const std::string& path) -> OutputFile& {
        written.push_back(std::make_unique<OutputFile>(path));
        return *written.back();
    };
    if (!options.jsonl.empty())
        writeJsonl(run, files, docs, open(options.jsonl), ticker, options.readAhead,
                   options.reader);
    for (const bool kept : {true, false}) {
        const std::string& path = kept ? options.kept : options.removed;
        if (path.empty()) continue;
        OutputFile& out = open(path);
        for (std::size_t i = 0; i < n; ++i) {
            if (run.removed(i) != kept) {
                out.write(docs.id(i));
                out.write("\n");
            }
            ticker.advance(1);
        }
    }
    if (!options.clusters.empty()) {
        OutputFile& out = open(options.clusters);
        // Members grouped by cluster, clusters in order of their smallest member.
        std::vector<std::vector<uint32_t>> members(run.representative.size());
        for (std::size_t i = 0; i < n; ++i)
            if (run.clusterOf[i] != RunResult::kNoCluster)
                members[run.clusterOf[i]].push_back(static_cast<uint32_t>(i));
        std::string line;
        uint64_t outside = n;  // documents in no cluster count as done at the end
        for (std::size_t c = 0; c < members.size(); ++c) {
            for (const uint32_t d : members[c]) {
                const bool representative = run.representative[c] == d;
                line = "{\"id\":" + json::quote(docs.id(d)) + ",\"cluster\":" + std::to_string(c) +
                       ",\"representative\":" + (representative ? "true" : "false");
                const bool wholeKept = !run.keepAll.empty() && run.keepAll[c];
                if (representative && !wholeKept) {
                } else if (!run.removed(d)) {
                    // Kept too: no kept duplicate vouches for its removal (witness rule), or
                    // the cluster is kept whole by a "keep all" decision.
                    line += ",\"kept\":true";
                } else if (const std::optional<ScoredPair> p = witnessPair(run, run.pairs, d)) {
                    const uint32_t w = p->a == d ? p->b : p->a;
                    line += ",\"witness\":" + json::quote(docs.id(w)) + ",\"jaccard\":";
                    json::appendNumber(
                        line, static_cast<double>(p->matches) / run.params.signature.hashes);
                    if (p->exact >= 0.0f) {
                        line += ",\"exact\":";
                        json::appendNumber(line, p->exact);
                    }
                } else {
                    // Removed by the components rule without a duplicate pair with the kept
                    // document: a chained removal.
                    line += ",\"witness\":null";
                }
                line += "}\n";
                out.write(line);
            }
            ticker.advance(members[c].size());
            outside -= members[c].size();
        }
        ticker.advance(outside);
    }
    if (!options.summaryJson.empty()) {
        OutputFile& out = open(options.summaryJson);
        out.write(summaryJson(run));
        out.write("\n");
    }
    ticker.tick();
    for (auto& out : written)
        out->finish();
    if (pending) {
        for (auto& out : written)
            pending->add(out->release());
        return;
    }
    for (auto& out : written)
        out->commit();
}

// Written by hand with json_text.h: the layout (one field per line, nested objects on one line as
// {"a": 1, "b": 2}, numbers as %.6g, parameters as stored in the project) is what scripts and the
// comparison of builds read byte for byte. nlohmann-json's dump() has no such mixed layout (all on
// one line, or every nested field on a line of its own) and writes shortest doubles.
std::string summaryJson(const RunResult& run) {
    const RunCounts& c = run.counts;
    std::string s = "{\n";
    auto field = [&](const char* name, const std::string& value, bool last = false) {
        s += "  \"";
        s += name;
        s += "\": ";
        s += value;
        s += last ? "\n" : ",\n";
    };
    field("run", std::to_string(run.runId));
    field("status", json::quote(run.status));
    field("started_at", json::quote(run.startedAt));
    field("finished_at", json::quote(run.finishedAt));
    field("lines_read", std::to_string(c.linesRead));
    field("blank_lines", std::to_string(c.blankLines));
    field("documents", std::to_string(c.documents));
    field("kept", std::to_string(c.kept));
    field("removed", std::to_string(c.removed));
    field("rejected", std::to_string(c.rejected));
    std::string reasons = "{";
    for (std::size_t i = 0; i < run.rejections.size(); ++i) {
        const auto& r = run.rejections[i];
        if (i) reasons += ", ";
        reasons += json::quote(r.reason);
        reasons += ": ";
        reasons += std::to_string(r.count);
    }
    field("rejected_by_reason", reasons + "}");
    std::string firsts = "{";
    for (std::size_t i = 0; i < run.rejections.size(); ++i) {
        const auto& r = run.rejections[i];
        if (i) firsts += ", ";
        firsts += json::quote(r.reason);
        firsts += ": ";
        firsts += json::quote(r.firstFile + ":" + std::to_string(r.firstLine));
    }
    field("first_rejected_line", firsts + "}");
    field("short_documents", std::to_string(c.shortDocuments));
    field("input_bytes", std::to_string(c.inputBytes));
    field("candidate_pairs", std::to_string(c.candidatePairs));
    field("stored_pairs", std::to_string(c.storedPairs));
    field("duplicate_pairs", std::to_string(c.duplicatePairs));
    field("clusters", std::to_string(c.clusters));
    field("decide", json::quote(toString(run.params.decide)));
    field("chained_removals", std::to_string(c.chainedRemovals));
    field("decisions_applied", std::to_string(run.decisionsApplied));
    field("buckets_k",
          run.resolvedBuckets ? std::to_string(run.resolvedBuckets) : std::string("\"exact\""));
    field("signatures_reused", run.signaturesReused ? "true" : "false");
    field("pairs_reused", run.pairsReused ? "true" : "false");
    field("memory_budget", std::to_string(run.memoryBudget));
    field("spilled", run.spilled ? "true" : "false");
    field("spill_bytes", std::to_string(run.spillBytes));
    field("peak_rss_bytes", std::to_string(run.peakRssBytes));
    field("threads", std::to_string(run.threads));
    field("backend", json::quote(run.backend));
    field("parameters", toJson(run.params));
    std::string phases = "{";
    std::string throughput = "{";
    for (std::size_t i = 0; i < run.phases.size(); ++i) {
        const PhaseTiming& p = run.phases[i];
        if (i) phases += ", ";
        phases += json::quote(p.name);
        phases += ": ";
        phases += number(p.seconds);
        const double mbs = p.seconds > 0 ? static_cast<double>(p.bytes) / 1e6 / p.seconds : 0;
        const double items = p.seconds > 0 ? static_cast<double>(p.items) / p.seconds : 0;
        if (i) throughput += ", ";
        throughput += json::quote(p.name) + ": {\"items\": " + std::to_string(p.items) +
                      ", \"items_per_s\": " + number(items) + ", \"mb_per_s\": " + number(mbs) +
                      ", \"reused\": " + (p.reused ? "true" : "false") + "}";
    }
    field("phases", phases + "}");
    field("phase_details", throughput + "}", true);
    return s + "}";
}

}  // namespace neardup
