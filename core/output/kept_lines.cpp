// writeDocumentLines (kept_lines.h): the inputs streamed once, in order, with the next chunks
// read ahead on a second thread when the caller may use two.
#include "kept_lines.h"

#include <tbb/concurrent_queue.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

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

// Whether the table's documents are in input order (by file, then offset), as a run stores
// them: what the parallel copy's search for a chunk's documents relies on. A damaged project's
// rows may not be; they are copied one by one, which names the first that does not match.
bool inInputOrder(const DocumentTable& docs) {
    for (std::size_t i = 1; i < docs.size(); ++i)
        if (docs.file[i] < docs.file[i - 1] ||
            (docs.file[i] == docs.file[i - 1] && docs.offset[i] <= docs.offset[i - 1]))
            return false;
    return true;
}

// A chunk of input lines on its way through the parallel copy: read in order, its documents'
// rows checked and their lines gathered on any thread, written in order.
struct LineBatch {
    LineChunk chunk;
    std::size_t first = 0, last = 0;  // the table's documents with an offset in the chunk
    std::string lines;                // the wanted ones' lines, each ending in '\n'
    std::size_t refused = 0;          // with `problem`: the first whose row does not match
    std::string problem;
};

// What the copy of lines needs to know of the run, its documents and the inputs read.
struct LineCopy {
    const RunResult& run;
    const std::vector<InputFile>& files;
    const DocumentTable& docs;
    const LineTargets& targets;
    const std::vector<uint32_t>& datasetIndex;  // the source's file indices to the dataset's
    std::function<bool(std::size_t)> wanted;
    std::function<void(std::size_t, const std::string&)> refuseRow;  // throws
};

// The documents of a chunk of file `file` covering [begin, end), in a table in input order.
std::pair<std::size_t, std::size_t> documentsIn(const DocumentTable& docs, uint32_t file,
                                                uint64_t begin, uint64_t end) {
    auto before = [&docs](std::size_t i, uint32_t f, uint64_t offset) {
        return docs.file[i] < f || (docs.file[i] == f && docs.offset[i] < offset);
    };
    std::size_t lo = 0, hi = docs.size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (before(mid, file, begin))
            lo = mid + 1;
        else
            hi = mid;
    }
    std::size_t last = lo;
    while (last < docs.size() && docs.file[last] == file && docs.offset[last] < end)
        ++last;
    return {lo, last};
}

// Copies the wanted documents' lines of JSON Lines inputs with `threads` threads: chunks are
// read in order, their documents' rows checked and their lines gathered in parallel (the
// checks parse each line, the bulk of the work), and each chunk's lines written in order, so
// that the output is the one the copy line by line writes, and a row that does not match is
// refused as it refuses the first one. `next` is the first document not yet copied.
void copyLinesInParallel(const LineCopy& c, LineChunkSource& source, ExportTicker& ticker,
                         int threads, std::size_t& next) {
    const DocumentTable& docs = c.docs;
    tbb::enumerable_thread_specific<StoredRowCheck> checks(c.targets.reader);
    std::vector<std::unique_ptr<LineBatch>> pool(static_cast<std::size_t>(threads) * 2);
    tbb::concurrent_queue<LineBatch*> free;
    for (auto& b : pool) {
        b = std::make_unique<LineBatch>();
        free.push(b.get());
    }
    auto read = [&](tbb::flow_control& fc) -> LineBatch* {
        LineBatch* b = nullptr;
        if (!free.try_pop(b) || !source.next(b->chunk)) {
            if (b) free.push(b);
            fc.stop();
            return nullptr;
        }
        return b;
    };
    auto gather = [&](LineBatch* b) {
        const LineChunk& chunk = b->chunk;
        std::tie(b->first, b->last) =
            documentsIn(docs, c.datasetIndex[chunk.file], chunk.baseOffset,
                        chunk.baseOffset + chunk.data.size());
        b->lines.clear();
        b->problem.clear();
        StoredRowCheck& check = checks.local();
        for (std::size_t d = b->first; d < b->last; ++d) {
            if (!c.wanted(d)) continue;
            const uint64_t at = docs.offset[d] - chunk.baseOffset;
            b->problem = check.problem(chunk.data, chunk.baseOffset == 0, at, docs.length[d],
                                       docs.id(d), docs.line[d]);
            if (!b->problem.empty()) {
                b->refused = d;
                break;
            }
            b->lines.append(chunk.data, at, docs.length[d]);
            b->lines += '\n';
        }
        return b;
    };
    auto write = [&](LineBatch* b) {
        const std::size_t from = next;
        while (next < b->first && !c.wanted(next))
            ++next;
        // A wanted document before the chunk's belongs to a file the source left before
        // reaching it, one shorter than when it was read: nothing more is copied, and the
        // caller says so.
        if (next < b->first) return free.push(b);
        if (!b->problem.empty()) c.refuseRow(b->refused, b->problem);
        if (!b->lines.empty()) c.targets.sinks[docs.file[b->first]]->write(b->lines);
        next = std::max(next, b->last);
        ticker.advance(next - from);
        free.push(b);
    };
    tbb::task_arena arena(threads);
    arena.execute([&] {
        tbb::parallel_pipeline(
            pool.size(),
            tbb::make_filter<void, LineBatch*>(tbb::filter_mode::serial_in_order, read) &
                tbb::make_filter<LineBatch*, LineBatch*>(tbb::filter_mode::parallel, gather) &
                tbb::make_filter<LineBatch*, void>(tbb::filter_mode::serial_in_order, write));
    });
}

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
    auto refuseRowOf = [&](std::size_t doc, const std::string& problem) {
        throw std::runtime_error(
            (targets.project.empty() ? std::string("the project")
                                     : "the project '" + targets.project + "'") +
            " is damaged: the row of document #" + std::to_string(doc) + " of dataset " +
            std::to_string(run.datasetId) + " (line " + std::to_string(docs.line[doc]) + " of '" +
            files[docs.file[doc]].path + "') does not match its line: " + problem +
            "; export refused");
    };
    const bool parquetWritten = [&] {
        for (uint32_t f = 0; f < files.size(); ++f)
            if (parquet[f] && targets.sinks[f] != nullptr) return true;
        return false;
    }();
    if (targets.threads >= 2 && !annotation && !parquetWritten && inInputOrder(docs)) {
        const LineCopy copy{run, files, docs, targets, datasetIndex, wanted, refuseRowOf};
        copyLinesInParallel(copy, source, ticker, targets.threads, next);
        while (next < n && !wanted(next))
            ++next;
        if (next < n)
            throw std::runtime_error("input '" + files[docs.file[next]].path +
                                     "' is shorter than when it was read; export aborted");
        return;
    }
    std::unique_ptr<DocumentFetcher> rows;
    std::optional<ChunkReadAhead> ahead;
    if (targets.readAhead) ahead.emplace(source);
    LineChunk own;
    StoredRowCheck rowCheck(targets.reader);
    auto refuseRow = [&](const std::string& problem) { refuseRowOf(next, problem); };
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
