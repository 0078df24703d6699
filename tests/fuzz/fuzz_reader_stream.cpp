// Fuzz target: the whole reading path on one file of arbitrary bytes (plain, or gzip/zstd when
// the bytes start like one): expandInputs, LineChunkSource with OnError::Skip (decompression,
// cutting at line ends, damaged streams), ChunkParser, and RangeReader reading every document
// back. The first byte picks the chunk size, so long lines and chunk boundaries get explored.
// Parquet and Arrow files are refused by their magic bytes, and by nothing else.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "jsonl_reader.h"

using namespace neardup;

namespace {

// One in-memory file, rewritten for every input and opened by path like any input file.
const std::string& memoryFile() {
    static const std::string path = [] {
        const int fd = ::memfd_create("fuzz.jsonl", 0);
        FUZZ_CHECK(fd >= 0);
        return "/proc/self/fd/" + std::to_string(fd);
    }();
    return path;
}

void rewrite(const uint8_t* data, std::size_t size) {
    const int fd = std::stoi(memoryFile().substr(14));
    FUZZ_CHECK(::ftruncate(fd, 0) == 0);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
        FUZZ_CHECK(n > 0);
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t chunkBytes = 1 + (data[0] & 0x3f) * (data[0] & 0x40 ? 64 : 1);
    rewrite(data + 1, size - 1);

    std::vector<InputFile> files;
    try {
        files = expandInputs({memoryFile()}, OnError::Skip);
    } catch (const UnsupportedInputError&) {
        // Columnar files and SQLite databases (a project given as an input) are refused by
        // name, whatever --on-error says; only their magic bytes may cause it (Parquet "PAR1",
        // Arrow IPC "ARROW1" or a stream's 0xFFFFFFFF marker, SQLite's "SQLite format 3\0").
        const std::string_view head(reinterpret_cast<const char*>(data + 1), size - 1);
        FUZZ_CHECK(head.starts_with("PAR1") || head.starts_with("ARROW1") ||
                   head.starts_with("\xff\xff\xff\xff") ||
                   head.starts_with(std::string_view("SQLite format 3\0", 16)));
        return 0;
    }
    FUZZ_CHECK(files.size() == 1);
    const bool plain = files[0].compression == InputFile::Compression::None;
    LineChunkSource source(files, chunkBytes, OnError::Skip);
    ChunkParser parser(files, ReaderOptions{});
    RangeReader ranges(files);
    LineChunk chunk;
    ParsedChunk parsed;
    std::string back;
    uint64_t nextLine = 1, nextOffset = 0, lines = 0, accounted = 0, failures = 0;
    while (source.next(chunk)) {
        FUZZ_CHECK(failures == 0);  // a failure chunk is a file's last
        FUZZ_CHECK(chunk.file == 0);
        FUZZ_CHECK(chunk.baseOffset == nextOffset);
        parser.parse(chunk, parsed);
        lines += parsed.lines;
        accounted += parsed.docs.size() + parsed.rejections.size() + parsed.blankLines;
        if (!chunk.failure.empty()) {
            ++failures;
            FUZZ_CHECK(chunk.data.empty() && !plain);
            FUZZ_CHECK(parsed.lines == 1 && parsed.rejections.size() == 1);
            FUZZ_CHECK(chunk.firstLine == nextLine);
            continue;
        }
        FUZZ_CHECK(!chunk.data.empty());
        FUZZ_CHECK(chunk.firstLine == nextLine);
        nextLine += parsed.lines;
        nextOffset += chunk.data.size();
        for (const ParsedDocument& d : parsed.docs) {
            back.clear();
            ranges.read(0, d.offset, d.length, back);
            FUZZ_CHECK(back ==
                       std::string_view(chunk.data).substr(d.offset - chunk.baseOffset, d.length));
        }
    }
    FUZZ_CHECK(lines == accounted);
    FUZZ_CHECK(source.bytesRead() >= nextOffset);
    if (plain) FUZZ_CHECK(source.bytesRead() == size - 1);
    return 0;
}
