// LineChunkSource: the sequential half of reading (I/O, decompression, cutting at line ends).
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include "arrow_ipc_file.h"
#include "byte_stream.h"
#include "input_pin.h"
#include "jsonl_reader.h"

namespace neardup {

namespace {

constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING;

// Position after the last '\n' in [data, data + n), or 0 when there is none.
std::size_t afterLastNewline(const char* data, std::size_t n) {
    const void* p = ::memrchr(data, '\n', n);
    return p == nullptr ? 0 : static_cast<std::size_t>(static_cast<const char*>(p) - data) + 1;
}

// memchr is SIMD in glibc; std::count over chars is not reliably vectorized.
uint64_t countNewlines(const char* data, std::size_t n) {
    uint64_t count = 0;
    const char* end = data + n;
    for (const char* p = data; p < end; ++count) {
        const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
        if (nl == nullptr) break;
        p = static_cast<const char*>(nl) + 1;
    }
    return count;
}

}  // namespace

struct LineChunkSource::Impl {
    std::vector<InputFile> files;
    std::size_t chunkBytes;
    OnError onError = OnError::Fail;
    uint64_t maxLineBytes = 0;  // 0: no limit
    ByteStream stream;
    std::size_t nextFile = 0;
    uint32_t current = 0;
    bool eof = false;
    // Decompressed bytes of the current file not yet delivered; they start at `offset`.
    std::string pending;
    uint64_t offset = 0;
    uint64_t line = 1;
    // Read by bytesRead() from other threads (progress reports) while next() runs.
    std::atomic<uint64_t> delivered{0};
    // With OnError::Skip: the current file cannot be read further (eof is set too); the
    // complete lines before the problem are still delivered, then one failure chunk.
    std::string damage;
    RejectReason damageReason = RejectReason::CorruptInput;
    // startAt(): where the first file opened starts.
    uint64_t startOffset = 0, startLine = 1;
    // The current file is columnar (Parquet or Arrow IPC): its row groups or record batches,
    // delivered one per chunk, and the next one.
    bool parquet = false;
    std::vector<columnar::RowGroupSpan> spans;
    std::size_t nextSpan = 0;

    // Opens the current file as columnar: its row groups (or record batches), then the stream
    // that reads their spans in order (from the checkpoint's row group when resuming).
    void openParquet() {
        const InputFile& f = files[current];
        try {
            spans = columnar::columnarSpans(f.path, f.size);
        } catch (const columnar::ColumnarError& e) {
            throw InputError(e.what());
        }
        nextSpan = 0;
        stream.open(f);
        uint64_t skip = 0;
        if (startOffset > 0) {
            while (nextSpan < spans.size() && spans[nextSpan].end <= startOffset)
                ++nextSpan;
            skip = nextSpan < spans.size() ? spans[nextSpan].begin : spans.back().end;
            if (skip != startOffset)
                throw InputError("input '" + f.path +
                                 "' changed since it was read: no row group ends at byte " +
                                 std::to_string(startOffset));
            startOffset = 0;
        }
        std::string buffer(std::min<uint64_t>(skip, uint64_t{1} << 20), '\0');
        for (uint64_t left = skip; left > 0;) {
            const std::size_t got = stream.read(
                buffer.data(), static_cast<std::size_t>(std::min<uint64_t>(left, buffer.size())));
            if (got == 0)
                throw InputError("input '" + f.path + "' is shorter than when it was read");
            left -= got;
        }
        offset = skip;
    }

    // The next row group of the current Parquet file, its span's bytes read whole; false (and
    // the stream closed) after the last.
    bool nextRowGroup(LineChunk& chunk) {
        if (nextSpan >= spans.size()) {
            stream.close();
            return false;
        }
        const columnar::RowGroupSpan& span = spans[nextSpan];
        const auto want = static_cast<std::size_t>(span.end - span.begin);
        chunk.data.clear();
        if (chunk.data.capacity() < want + kPadding) chunk.data.reserve(want + kPadding);
        chunk.data.resize(want);
        std::size_t have = 0;
        try {
            while (have < want) {
                const std::size_t got = stream.read(chunk.data.data() + have, want - have);
                if (got == 0)
                    throw InputError("input '" + files[current].path +
                                     "' ends before its row group " + std::to_string(nextSpan));
                have += got;
            }
        } catch (const InputError& e) {
            if (onError == OnError::Fail) throw;
            pending.clear();
            deliverFailure(chunk, e.what(), RejectReason::UnreadableFile, span.firstRow + 1);
            chunk.failure += " (its rows from here on are not read)";
            return true;
        }
        chunk.failure.clear();
        chunk.dropped = 0;
        chunk.droppedPin = PinPart{};
        chunk.droppedEdges.clear();
        chunk.file = current;
        chunk.firstLine = span.firstRow + 1;
        chunk.baseOffset = span.begin;
        chunk.fileStart = span.begin == 0;
        chunk.parquet = true;
        chunk.rowGroup = static_cast<uint32_t>(nextSpan);
        chunk.rows = span.rows;
        offset = span.end;
        line = span.firstRow + span.rows + 1;
        delivered.fetch_add(want, std::memory_order_relaxed);
        ++nextSpan;
        return true;
    }

    // Appends up to `want` more bytes of the current file to `pending`, keeping the padding that
    // ChunkParser relies on allocated behind them.
    void readMore(std::size_t want) {
        const std::size_t old = pending.size();
        if (pending.capacity() < old + want + kPadding) pending.reserve(old + want + kPadding);
        pending.resize(old + want);
        std::size_t got = 0;
        try {
            got = stream.read(pending.data() + old, want);
        } catch (const InputError& e) {
            if (onError == OnError::Fail) throw;
            damage = e.what();
            damageReason = dynamic_cast<const CorruptStreamError*>(&e) != nullptr
                               ? RejectReason::CorruptInput
                               : RejectReason::UnreadableFile;
        }
        pending.resize(old + got);
        if (got == 0) eof = true;
    }

    // Where the data of a file's last chunk ends: all of it, or after its last complete line
    // when the file is damaged (the incomplete line goes into the failure chunk).
    std::size_t finalCut() const {
        return damage.empty() ? pending.size() : afterLastNewline(pending.data(), pending.size());
    }

    // Turns `chunk` into the failure chunk for the current file, dropping what is pending.
    void deliverFailure(LineChunk& chunk, std::string message, RejectReason reason,
                        uint64_t lineNo) {
        if (!pending.empty()) {
            message += "; the incomplete line before it (" + std::to_string(pending.size()) +
                       " bytes) is not read";
        }
        chunk.data.clear();
        chunk.file = current;
        chunk.firstLine = lineNo;
        chunk.baseOffset = offset;
        chunk.fileStart = offset == 0;
        chunk.failure = std::move(message);
        chunk.failureReason = reason;
        chunk.dropped = pending.size();
        offset += pending.size();
        delivered.fetch_add(pending.size(), std::memory_order_relaxed);
        pending.clear();
        damage.clear();
        stream.close();
    }

    // Returned by cutPoint() for a first line longer than maxLineBytes.
    static constexpr std::size_t kTooLong = std::numeric_limits<std::size_t>::max();

    // Streams past the rest of the line `pending` begins with (longer than maxLineBytes) and
    // turns `chunk` into its line_too_long failure chunk. At most one read's worth of the line
    // is held at a time.
    void skipLongLine(LineChunk& chunk) {
        uint64_t skipped = 0;
        PinPartBuilder pin(files[current].pinKey, offset);
        for (;;) {
            const void* nl = std::memchr(pending.data(), '\n', pending.size());
            const std::size_t take =
                nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - pending.data()) + 1
                   : pending.size();
            pin.add(pending.data(), take);
            skipped += take;
            pending.erase(0, take);
            if (nl || eof) break;
            readMore(chunkBytes);
            if (pending.empty() && eof) break;
        }
        chunk.data.clear();
        chunk.file = current;
        chunk.firstLine = line++;
        chunk.baseOffset = offset;
        chunk.fileStart = offset == 0;
        chunk.failure = "line of " + std::to_string(skipped) + " bytes, longer than the limit of " +
                        std::to_string(maxLineBytes) + " (--max-line-bytes); skipped";
        chunk.failureReason = RejectReason::LineTooLong;
        chunk.dropped = skipped;
        chunk.droppedPin = pin.finish(chunk.droppedEdges);
        offset += skipped;
        delivered.fetch_add(skipped, std::memory_order_relaxed);
    }

    // Length of the next chunk's data in `pending` (which is non-empty): whole lines up to
    // chunkBytes, or one longer line on its own, or everything left at the end of the file;
    // kTooLong when the first line is longer than maxLineBytes.
    std::size_t cutPoint() {
        while (pending.size() < chunkBytes && !eof)
            readMore(chunkBytes - pending.size());
        if (eof && pending.size() <= chunkBytes) return finalCut();
        const std::size_t cut = afterLastNewline(pending.data(), chunkBytes);
        if (cut != 0) return cut;
        // The first line is longer than chunkBytes: find its end, growing geometrically.
        std::size_t from = chunkBytes;
        for (;;) {
            const void* p = std::memchr(pending.data() + from, '\n', pending.size() - from);
            if (p != nullptr) {
                return static_cast<std::size_t>(static_cast<const char*>(p) - pending.data()) + 1;
            }
            if (eof) return finalCut();
            if (maxLineBytes > 0 && pending.size() > maxLineBytes) return kTooLong;
            from = pending.size();
            std::size_t more = std::max(chunkBytes, pending.size());
            if (maxLineBytes > 0 && pending.size() + more > maxLineBytes + 1)
                more = std::max<std::size_t>(
                    static_cast<std::size_t>(maxLineBytes + 1 - pending.size()), 1);
            readMore(more);
        }
    }
};

LineChunkSource::LineChunkSource(std::vector<InputFile> files, std::size_t chunkBytes,
                                 OnError onError, uint64_t maxLineBytes)
    : impl_(std::make_unique<Impl>()) {
    impl_->files = std::move(files);
    impl_->chunkBytes = std::max<std::size_t>(chunkBytes, 1);
    impl_->onError = onError;
    impl_->maxLineBytes = maxLineBytes;
}

LineChunkSource::~LineChunkSource() = default;

bool LineChunkSource::next(LineChunk& chunk) {
    Impl& s = *impl_;
    chunk.parquet = false;
    chunk.rowGroup = 0;
    chunk.rows = 0;
    for (;;) {
        if (s.parquet && s.stream.isOpen()) {
            if (s.nextRowGroup(chunk)) return true;
            continue;
        }
        if (!s.stream.isOpen()) {
            if (s.nextFile >= s.files.size()) {
                chunk.data.clear();
                return false;
            }
            s.current = static_cast<uint32_t>(s.nextFile++);
            s.eof = false;
            s.pending.clear();
            s.damage.clear();
            s.offset = 0;
            s.line = 1;
            s.parquet = columnar::isColumnarName(s.files[s.current].path);
            try {
                if (s.parquet) {
                    s.openParquet();
                    continue;
                }
                s.stream.open(s.files[s.current]);
            } catch (const InputError& e) {
                if (s.onError == OnError::Fail) throw;
                s.deliverFailure(chunk, e.what(), RejectReason::UnreadableFile, 0);
                return true;
            }
            if (s.startOffset > 0) {  // resuming at a checkpoint: skip what was read before
                std::string skip(std::size_t{1} << 20, '\0');
                for (uint64_t left = s.startOffset; left > 0;) {
                    const std::size_t got = s.stream.read(
                        skip.data(),
                        static_cast<std::size_t>(std::min<uint64_t>(left, skip.size())));
                    if (got == 0)
                        throw InputError("input '" + s.files[s.current].path +
                                         "' is shorter than when it was read");
                    left -= got;
                }
                s.offset = s.startOffset;
                s.line = s.startLine;
                s.startOffset = 0;
            }
        }
        if (s.pending.empty() && !s.eof) s.readMore(s.chunkBytes);
        if (s.pending.empty() && s.damage.empty()) {
            s.stream.close();
            continue;
        }
        const std::size_t cut = s.pending.empty() ? 0 : s.cutPoint();
        if (cut == Impl::kTooLong) {
            s.skipLongLine(chunk);
            return true;
        }
        if (cut == 0) {
            // Only a damaged file gets here: nothing but an incomplete line is left before the
            // damage. Nothing was read from a file that fails at its first byte, so it stands
            // as a whole (line 0) when its problem is not a damaged compressed stream.
            const bool whole = s.offset == 0 && s.pending.empty() &&
                               s.damageReason == RejectReason::UnreadableFile;
            s.deliverFailure(chunk, s.damage, s.damageReason, whole ? 0 : s.line++);
            return true;
        }

        // Hand over the buffer itself; only the partial tail is copied back.
        chunk.data.swap(s.pending);
        s.pending.assign(chunk.data, cut, std::string::npos);
        chunk.data.resize(cut);
        if (chunk.data.capacity() < cut + kPadding) chunk.data.reserve(cut + kPadding);

        chunk.failure.clear();
        chunk.dropped = 0;
        chunk.droppedPin = PinPart{};
        chunk.droppedEdges.clear();
        chunk.file = s.current;
        chunk.firstLine = s.line;
        chunk.baseOffset = s.offset;
        chunk.fileStart = s.offset == 0;
        s.line += countNewlines(chunk.data.data(), cut);
        s.offset += cut;
        s.delivered.fetch_add(cut, std::memory_order_relaxed);
        return true;
    }
}

void LineChunkSource::startAt(uint32_t file, uint64_t offset, uint64_t line) {
    impl_->nextFile = file;
    impl_->startOffset = offset;
    impl_->startLine = line;
}

uint64_t LineChunkSource::bytesRead() const {
    return impl_->delivered.load(std::memory_order_relaxed);
}

const std::vector<InputFile>& LineChunkSource::files() const {
    return impl_->files;
}

}  // namespace neardup
