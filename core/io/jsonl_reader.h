// JSON Lines input: expanding inputs to files, streaming them as chunks of whole lines, and
// parsing a chunk into documents and rejected lines.
//
// Reading is split in two so that parsing runs on many threads: LineChunkSource is sequential
// (I/O, decompression, cutting at line ends); ChunkParser is per thread and stateless between
// chunks.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "content_pin.h"
#include "document_table.h"
#include "params.h"

namespace neardup {

// Raised for problems with the inputs as a whole (missing path, unreadable file, corrupt
// compressed stream). Its message names the file.
class InputError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// An input in a format NearDup does not read (Parquet or Arrow under another name, or in a build
// without Arrow; a SQLite database, a NearDup project among them): never read as text, whatever
// --on-error says; the message names the file and its format.
class UnsupportedInputError : public InputError {
  public:
    using InputError::InputError;
};

// Files given directly are taken whatever their name; directories are walked recursively,
// taking *.jsonl, *.ndjson, *.json and those names with .gz or .zst appended, *.parquet and
// *.arrow, in sorted path order; a Hugging Face `datasets` folder found on the way is its shards
// in its own order (dataset_folder.h). Compression is detected from the magic bytes; a name
// ending in .parquet or .arrow is read as Parquet or Arrow IPC (parquet_rows.h,
// arrow_ipc_file.h), refused by name in a build without Arrow.
// Throws InputError.
std::vector<InputFile> expandInputs(const std::vector<std::string>& inputs);
// As above, but an input that exists and cannot be read is not passed over in silence: a file
// without read permission, an unreadable subdirectory, a dangling symlink or a symlink loop with
// an input name. With OnError::Skip it is listed with mtimeNs = -1 (so that a dataset holding it
// is never reused once it becomes readable), for a LineChunkSource reading with OnError::Skip to
// report as an unreadable_file rejection; with OnError::Fail it throws InputError naming it.
// A path that does not exist at all throws either way.
std::vector<InputFile> expandInputs(const std::vector<std::string>& inputs, OnError onError);
// As above, and each file's name relative to the input it was found under, for outputs that
// mirror the inputs (--out-dir): a file given directly is its base name, a file found in a
// directory its path below that directory ("sub/b.parquet"). `names` gets one per file.
std::vector<InputFile> expandInputs(const std::vector<std::string>& inputs, OnError onError,
                                    std::vector<std::string>& names);

// The first file both among `inputs` and among `references` (the same path, or the same device
// and inode), named in a problem; empty when they share none. Whether its documents are to be
// protected or deduplicated cannot be guessed.
std::string sharedInputProblem(const std::vector<InputFile>& inputs,
                               const std::vector<InputFile>& references);

enum class RejectReason : uint8_t {
    MalformedJson,
    NotAnObject,
    MissingText,
    TextNotString,
    InvalidUtf8,
    ControlCharacter,
    InvalidId,
    // Not lines of JSON but input that could not be read; each counts as one line read and
    // rejected, so the accounting covers them. The file as a whole (line 0) could not be
    // opened or read; or a compressed stream is damaged or truncated: the lines before the
    // damage are read, the incomplete line at the damage and everything after it are not.
    UnreadableFile,
    CorruptInput,
    // A line longer than ReaderOptions::maxLineBytes: skipped without being held in memory.
    LineTooLong,
    // An object (the top-level one, or one a field path passes through) holding a key twice:
    // readers disagree on which value counts. Last among the reasons: the numbers are stored.
    DuplicateKey,
    Count_
};
inline constexpr int kRejectReasonCount = static_cast<int>(RejectReason::Count_);
const char* toString(RejectReason r);  // snake_case names: "malformed_json", ...

// Whole lines of one file. Offsets are byte offsets in the decompressed file.
struct LineChunk {
    uint32_t file = 0;
    uint64_t firstLine = 1;   // 1-based line number of the first line in `data`
    uint64_t baseOffset = 0;  // offset of data[0] in the file
    std::string data;         // complete lines, each ending in '\n' except possibly the file's last
    bool fileStart = false;   // data begins at offset 0 (a UTF-8 BOM may follow)
    // Only from a source reading with OnError::Skip: a chunk without data standing for input
    // that could not be read (reason UnreadableFile or CorruptInput, message naming the file
    // and the byte offset). It counts as one line, at firstLine (0 for a whole file).
    std::string failure;
    RejectReason failureReason = RejectReason::CorruptInput;
    uint64_t dropped = 0;  // a failure chunk's bytes of the incomplete line before the damage
    // A line_too_long chunk: `dropped` is the line's bytes with its '\n', streamed past; this
    // is their part of the file's pin (content_pin.h), the bytes of its edges in droppedEdges.
    PinPart droppedPin;
    std::string droppedEdges;
    // A Parquet row group instead of lines (parquet_rows.h): `data` holds the bytes of the file
    // the group owns, from baseOffset; its `rows` rows are numbered from firstLine.
    bool parquet = false;
    uint32_t rowGroup = 0;
    uint64_t rows = 0;
};

class LineChunkSource {
  public:
    // OnError::Fail: next() throws InputError on unreadable or damaged input. OnError::Skip:
    // it delivers the complete lines before the problem, then a failure chunk, then goes on
    // with the next file.
    // A line longer than `maxLineBytes` (0: no limit) becomes a failure chunk of reason
    // LineTooLong, whatever `onError` says; only its first bytes are ever held in memory.
    LineChunkSource(std::vector<InputFile> files, std::size_t chunkBytes,
                    OnError onError = OnError::Fail, uint64_t maxLineBytes = 0);
    ~LineChunkSource();
    LineChunkSource(const LineChunkSource&) = delete;
    LineChunkSource& operator=(const LineChunkSource&) = delete;

    // Fills `chunk` with the next lines; false when every file is exhausted. A line longer than
    // chunkBytes yields a chunk holding just that line. Throws InputError on I/O or
    // decompression failure (naming the file).
    bool next(LineChunk& chunk);
    // Before the first next(): start at `offset` decompressed bytes into file `file`, at line
    // `line` (a checkpoint's position), skipping what comes before. Skipped bytes are not
    // counted by bytesRead().
    void startAt(uint32_t file, uint64_t offset, uint64_t line);
    // Bytes read from the (decompressed) inputs so far, and total compressed input size.
    uint64_t bytesRead() const;
    const std::vector<InputFile>& files() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct ParsedDocument {
    // Parquet rows: line is the 1-based row of the file, offset its row group and length its
    // row within the group.
    uint64_t line = 0;
    uint64_t offset = 0;  // of the line's first byte (after a BOM)
    uint32_t length = 0;  // line bytes before '\n' (a '\r' before it is included)
    uint32_t textBegin = 0, textLength = 0;  // unescaped UTF-8 text in ParsedChunk::arena
    uint32_t idBegin = 0, idLength = 0;      // id in ParsedChunk::arena
    double keepValue = 0;                    // NaN when keepField is unset or not numeric
};

struct Rejection {
    RejectReason reason = RejectReason::MalformedJson;
    uint32_t file = 0;
    uint64_t line = 0;
    std::string detail;  // short human explanation, e.g. the simdjson error
};

struct ParsedChunk {
    uint32_t file = 0;
    std::vector<ParsedDocument> docs;
    std::string arena;
    std::vector<Rejection> rejections;
    uint64_t lines = 0;       // every line seen, blank or not
    uint64_t blankLines = 0;  // empty or whitespace-only
    uint64_t bytes = 0;

    std::string_view text(const ParsedDocument& d) const {
        return std::string_view(arena).substr(d.textBegin, d.textLength);
    }
    std::string_view id(const ParsedDocument& d) const {
        return std::string_view(arena).substr(d.idBegin, d.idLength);
    }
    void clear();
    // A line of this chunk's file set aside, with why.
    void reject(RejectReason reason, uint64_t line, std::string detail);
};

// Parses chunks; one instance per thread (it owns a simdjson parser and buffers).
class ChunkParser {
  public:
    ChunkParser(const std::vector<InputFile>& files, ReaderOptions options);
    ~ChunkParser();
    ChunkParser(const ChunkParser&) = delete;
    ChunkParser& operator=(const ChunkParser&) = delete;

    void parse(const LineChunk& chunk, ParsedChunk& out);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Where a rejected line is, compactly (16 bytes): every one of a corpus is kept.
struct RejectedLine {
    uint64_t line = 0;  // 0: the file as a whole
    uint32_t file = 0;
    uint8_t reason = 0;  // a RejectReason
    uint8_t pad[3] = {};
};
static_assert(sizeof(RejectedLine) == 16);

// Per-reason counts with the first file:line of each reason and up to `sampleLimit` samples.
struct RejectionLog {
    static constexpr std::size_t kSampleLimit = 1000;
    uint64_t counts[kRejectReasonCount] = {};
    std::vector<Rejection> samples;  // in input order, at most kSampleLimit
    std::vector<RejectedLine> all;   // every rejected line, in input order

    void add(const Rejection& r);
    uint64_t total() const;
    const Rejection* first(RejectReason reason) const;
};

// What a read rejected, as a dataset keeps it (its list of every rejected line, `all`, and its
// samples), given back as the rejections that, added in order to an empty RejectionLog, make
// that very log: `all` in order, each with its sample's detail where it is a sample. Which lines
// stay samples depends on the order of their reasons only, not on the details of the others.
std::vector<Rejection> replayedRejections(const std::vector<RejectedLine>& all,
                                          const std::vector<Rejection>& samples);

// Reads byte ranges of input files back, e.g. for exports and exact verification. Ranges must
// be requested in increasing (file, offset) order; compressed files are streamed forward.
class RangeReader {
  public:
    explicit RangeReader(const std::vector<InputFile>& files);
    ~RangeReader();
    RangeReader(const RangeReader&) = delete;
    RangeReader& operator=(const RangeReader&) = delete;

    // Appends the bytes [offset, offset + length) of `file` to out. Throws InputError.
    void read(uint32_t file, uint64_t offset, uint32_t length, std::string& out);
    // Tells the system that [offset, offset + length) of `file` will be read soon, so that it
    // starts reading it from disk now, beside other such ranges (posix_fadvise WILLNEED). Only
    // for an uncompressed file that is the one being read or the first; otherwise, and on any
    // failure, nothing happens: it is a hint.
    void willNeed(uint32_t file, uint64_t offset, uint64_t length);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace neardup
