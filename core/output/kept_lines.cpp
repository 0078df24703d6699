// writeDocumentLines (kept_lines.h): the inputs streamed once, in order, with the next chunks
// read ahead on a second thread when the caller may use two.
#include "kept_lines.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "arrow_ipc_file.h"
#include "cluster_annotation.h"
#include "document_fetcher.h"
#include "export_ticker.h"
#include "input_pin.h"
#include "output_file.h"
#include "stored_row_check.h"

namespace neardup {

namespace {

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

}  // namespace

void writeDocumentLines(const RunResult& run, const std::vector<InputFile>& files,
                        const DocumentTable& docs, const LineTargets& targets,
                        ExportTicker& ticker) {
    const ClusterAnnotation* annotation = targets.annotation;
    auto wanted = [&](std::size_t doc) {
        // The reference's documents are never written, annotated or not.
        return targets.sinks[docs.file[doc]] != nullptr && !run.reference(doc) &&
               (annotation || !run.removed(doc));
    };
    std::size_t next = 0;  // next document to consider, in input order
    const std::size_t n = docs.size();
    auto skipUnwanted = [&] {
        const std::size_t from = next;
        while (next < n && !wanted(next))
            ++next;
        ticker.advance(next - from);
    };
    std::string annotated;
    auto write = [&](std::string_view line) {
        OutputFile& out = *targets.sinks[docs.file[next]];
        if (annotation) {
            annotated = annotation->annotateLine(line, next);
            line = annotated;
        }
        out.write(line);
        out.write("\n");
        ++next;
        ticker.advance(1);
        skipUnwanted();
    };
    skipUnwanted();
    if (next == n) return;
    // The stored offsets are used only on the files they came from (input_pin.h).
    if (const std::string problem = pinProblem(files); !problem.empty())
        throw InputError(problem + "; export refused");
    // Skip: an unreadable file or a damaged stream was a rejection when the run read it; what
    // is missing after it is caught below as a short input.
    // No written line is longer than the longest document: longer lines (rejected as too long
    // when read) are streamed past, never held in memory.
    // The line source reads the JSON Lines inputs written here only; its file indices map to
    // the dataset's.
    std::vector<InputFile> textFiles;
    std::vector<uint32_t> datasetIndex;
    std::vector<uint8_t> parquet(files.size(), 0);
    for (uint32_t f = 0; f < files.size(); ++f) {
        parquet[f] = columnar::isColumnarName(files[f].path) ? 1 : 0;
        if (parquet[f] || targets.sinks[f] == nullptr) continue;
        textFiles.push_back(files[f]);
        datasetIndex.push_back(f);
    }
    uint32_t longest = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (!parquet[docs.file[i]]) longest = std::max(longest, docs.length[i]);
    LineChunkSource source(textFiles, std::size_t{4} << 20, OnError::Skip, uint64_t{longest} + 1);
    std::unique_ptr<DocumentFetcher> rows;
    std::optional<ChunkReadAhead> ahead;
    if (targets.readAhead) ahead.emplace(source);
    LineChunk own;
    StoredRowCheck rowCheck(targets.reader);
    auto refuseRow = [&](const std::string& problem) {
        throw std::runtime_error(
            (targets.project.empty() ? std::string("the project")
                                     : "the project '" + targets.project + "'") +
            " is damaged: the row of document #" + std::to_string(next) + " of dataset " +
            std::to_string(run.datasetId) + " (line " + std::to_string(docs.line[next]) + " of '" +
            files[docs.file[next]].path + "') does not match its line: " + problem +
            "; export refused");
    };
    auto nextChunk = [&]() -> const LineChunk* {
        if (ahead) return ahead->next();
        return source.next(own) ? &own : nullptr;
    };
    while (next < n) {
        if (parquet[docs.file[next]]) {
            if (!rows) rows = std::make_unique<DocumentFetcher>(files, targets.reader);
            const FetchedDocument row = rows->fetch(docs, next);
            if (!row.ok)
                throw std::runtime_error("cannot export row " + std::to_string(docs.line[next]) +
                                         " of '" + files[docs.file[next]].path + "': " + row.error);
            write(row.line);
            continue;
        }
        const LineChunk* current = nextChunk();
        if (!current) break;
        const LineChunk& chunk = *current;
        const uint32_t chunkFile = datasetIndex[chunk.file];
        const uint64_t end = chunk.baseOffset + chunk.data.size();
        while (next < n && docs.file[next] == chunkFile && docs.offset[next] < end) {
            const uint64_t at = docs.offset[next] - chunk.baseOffset;
            if (docs.offset[next] < chunk.baseOffset) refuseRow("its offset lies in a line before");
            if (std::string problem =
                    rowCheck.problem(chunk.data, chunk.baseOffset == 0, at, docs.length[next],
                                     docs.id(next), docs.line[next]);
                !problem.empty())
                refuseRow(problem);
            write(std::string_view(chunk.data).substr(at, docs.length[next]));
        }
    }
    if (next < n)
        throw std::runtime_error("input '" + files[docs.file[next]].path +
                                 "' is shorter than when it was read; export aborted");
}

}  // namespace neardup
