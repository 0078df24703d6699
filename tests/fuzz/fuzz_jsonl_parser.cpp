// Fuzz target: ChunkParser on one chunk of arbitrary bytes. The first byte picks the reader
// options (nested fields, a keep field, a BOM allowed at the start); the rest is the chunk.
// Every line must end up as exactly one document, rejection or blank line, and every document
// must point inside the chunk and the arena.
#include <simdjson.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>

#include "fuzz_check.h"
#include "jsonl_reader.h"

using namespace neardup;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const uint8_t select = data[0];
    static const std::vector<InputFile> files = {InputFile{"fuzz.jsonl", 0, 0, {}}};
    static std::array<std::unique_ptr<ChunkParser>, 8> parsers;
    const int variant = select & 7;
    if (!parsers[variant]) {
        ReaderOptions options;
        if (variant & 1) options.textField = "meta.text";
        if (variant & 2) options.idField = "meta.id";
        if (variant & 4) options.keepField = "score";
        parsers[variant] = std::make_unique<ChunkParser>(files, options);
    }

    LineChunk chunk;
    chunk.fileStart = (select & 8) != 0;
    chunk.firstLine = 1 + (select >> 4);
    chunk.baseOffset = 1000;
    // LineChunkSource guarantees this padding behind the data; the parser relies on it.
    chunk.data.reserve(size - 1 + simdjson::SIMDJSON_PADDING);
    chunk.data.assign(reinterpret_cast<const char*>(data) + 1, size - 1);

    ParsedChunk out;
    parsers[variant]->parse(chunk, out);

    const std::string& d = chunk.data;
    std::size_t begin = 0;
    if (chunk.fileStart && d.size() >= 3 && std::memcmp(d.data(), "\xEF\xBB\xBF", 3) == 0)
        begin = 3;
    uint64_t lines = 0;
    for (std::size_t i = begin; i < d.size(); ++i)
        lines += d[i] == '\n';
    if (d.size() > begin && d.back() != '\n') ++lines;
    FUZZ_CHECK(out.lines == lines);
    FUZZ_CHECK(out.docs.size() + out.rejections.size() + out.blankLines == lines);
    uint64_t previous = 0;
    for (const ParsedDocument& doc : out.docs) {
        FUZZ_CHECK(doc.line >= chunk.firstLine && doc.line < chunk.firstLine + lines);
        FUZZ_CHECK(doc.line > previous);
        previous = doc.line;
        FUZZ_CHECK(doc.offset >= chunk.baseOffset + begin);
        FUZZ_CHECK(doc.offset - chunk.baseOffset + doc.length <= d.size());
        FUZZ_CHECK(uint64_t{doc.textBegin} + doc.textLength <= out.arena.size());
        FUZZ_CHECK(uint64_t{doc.idBegin} + doc.idLength <= out.arena.size());
        const char* line = d.data() + (doc.offset - chunk.baseOffset);
        FUZZ_CHECK(doc.offset - chunk.baseOffset + doc.length == d.size() ||
                   line[doc.length] == '\n');
        FUZZ_CHECK(simdjson::validate_utf8(out.text(doc).data(), out.text(doc).size()));
    }
    for (const Rejection& r : out.rejections) {
        FUZZ_CHECK(static_cast<int>(r.reason) < kRejectReasonCount);
        FUZZ_CHECK(r.line >= chunk.firstLine && r.line < chunk.firstLine + lines);
        FUZZ_CHECK(!r.detail.empty());
    }
    return 0;
}
