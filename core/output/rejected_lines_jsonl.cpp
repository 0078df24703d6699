// Rejected lines written as JSON Lines (rejected_lines_jsonl.h).
#include "rejected_lines_jsonl.h"

#include <sys/stat.h>

#include <simdjson.h>

#include <cstring>
#include <memory>
#include <stdexcept>

#include "arrow_ipc_file.h"
#include "json_text.h"
#include "output_file.h"

namespace neardup::rejected_lines {

namespace {

bool isLeftover(RejectReason r) {
    // A line too long to hold in memory is not read back either.
    return r == RejectReason::UnreadableFile || r == RejectReason::CorruptInput ||
           r == RejectReason::LineTooLong;
}

// The input file is as it was when the dataset was read.
bool unchanged(const InputFile& f) {
    struct stat sb {};
    if (f.mtimeNs < 0 || ::stat(f.path.c_str(), &sb) != 0) return false;
    const int64_t mtime = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
    return static_cast<uint64_t>(sb.st_size) == f.size && mtime == f.mtimeNs;
}

}  // namespace

ExportCounts exportJsonl(const std::vector<InputFile>& files, const std::vector<Rejection>& samples,
                         const std::vector<RejectedLine>& lines, OutputFile& out) {
    ExportCounts counts;
    std::vector<bool> readable(files.size(), false);
    for (std::size_t f = 0; f < files.size(); ++f) {
        readable[f] = unchanged(files[f]);
        counts.filesChanged += readable[f] ? 0 : 1;
    }
    // Reads each needed file forward once; lines come in input order.
    std::unique_ptr<LineChunkSource> source;
    uint32_t sourceFile = UINT32_MAX;
    LineChunk chunk;
    bool haveChunk = false;
    std::size_t pos = 0;     // position in chunk.data of line `lineAt`
    uint64_t lineAt = 0;     // line number at `pos`
    std::size_t sample = 0;  // next sample to match for its detail
    std::string text;
    for (const RejectedLine& r : lines) {
        const auto reason = static_cast<RejectReason>(r.reason);
        text = "{\"file\":";
        json::appendString(text, r.file < files.size() ? files[r.file].path : std::string());
        text += ",\"line\":" + std::to_string(r.line) + ",\"reason\":\"" + toString(reason) + "\"";
        while (sample < samples.size()) {
            const Rejection& s = samples[sample];
            if (s.file < r.file || (s.file == r.file && s.line < r.line)) {
                ++sample;
                continue;
            }
            if (s.file == r.file && s.line == r.line && s.reason == reason) {
                text += ",\"detail\":";
                json::appendString(text, s.detail);
                ++sample;
            }
            break;
        }
        // A Parquet row has no raw line: the detail says what was wrong with it.
        if (r.line > 0 && !isLeftover(reason) && r.file < files.size() && readable[r.file] &&
            !columnar::isColumnarName(files[r.file].path)) {
            if (sourceFile != r.file) {
                source = std::make_unique<LineChunkSource>(std::vector<InputFile>{files[r.file]},
                                                           std::size_t{4} << 20, OnError::Skip);
                sourceFile = r.file;
                haveChunk = false;
            }
            // Advance to the chunk holding the line, then to the line.
            for (;;) {
                if (!haveChunk) {
                    if (!source->next(chunk) || !chunk.failure.empty()) break;
                    haveChunk = true;
                    pos = 0;
                    lineAt = chunk.firstLine;
                }
                while (lineAt < r.line && pos < chunk.data.size()) {
                    const void* nl =
                        std::memchr(chunk.data.data() + pos, '\n', chunk.data.size() - pos);
                    pos = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) -
                                                        chunk.data.data()) +
                                   1
                             : chunk.data.size();
                    ++lineAt;
                }
                if (lineAt == r.line && pos < chunk.data.size()) break;
                haveChunk = false;
            }
            if (haveChunk && lineAt == r.line) {
                const char* begin = chunk.data.data() + pos;
                const void* nl = std::memchr(begin, '\n', chunk.data.size() - pos);
                const std::size_t length =
                    nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin)
                       : chunk.data.size() - pos;
                if (simdjson::validate_utf8(begin, length)) {
                    text += ",\"raw\":";
                    json::appendString(text, std::string_view(begin, length));
                    ++counts.withRaw;
                }
            }
        }
        text += "}\n";
        out.write(text);
        ++counts.lines;
    }
    return counts;
}

}  // namespace neardup::rejected_lines
