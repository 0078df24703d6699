#include "rejected_lines.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <simdjson.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "arrow_ipc_file.h"
#include "atomic_file.h"
#include "json_text.h"
#include "output_file.h"

namespace neardup::rejected_lines {

static_assert(std::endian::native == std::endian::little,
              "rejection files are little-endian; add byte swapping for this platform");

namespace {

constexpr char kMagic[8] = {'N', 'D', 'W', 'R', 'E', 'J', '0', '1'};

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

std::string fileName(int64_t datasetId) {
    return "rejections-" + std::to_string(datasetId) + ".bin";
}

void write(const std::string& path, const std::vector<RejectedLine>& lines) {
    try {
        AtomicFile file(path);
        std::string header(kMagic, sizeof kMagic);
        const uint64_t n = lines.size();
        header.append(reinterpret_cast<const char*>(&n), sizeof n);
        file.write(header);
        file.write(lines.data(), lines.size() * sizeof(RejectedLine));
        file.commit();
    } catch (const std::runtime_error& e) {
        throw StoreError(e.what());
    }
}

bool load(ProjectStore& store, const DatasetRecord& dataset, std::vector<RejectedLine>& out) {
    out.clear();
    uint64_t expected = 0;
    for (const RejectionCount& r : dataset.rejections)
        expected += r.count;
    if (expected == 0) return true;
    const std::string& project = store.path();
    if (project.empty() || project == ":memory:") return false;
    const std::string path = project + ".d/" + fileName(dataset.id);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char header[16];
    bool ok = ::read(fd, header, sizeof header) == static_cast<ssize_t>(sizeof header) &&
              std::memcmp(header, kMagic, sizeof kMagic) == 0;
    uint64_t n = 0;
    if (ok) std::memcpy(&n, header + 8, sizeof n);
    ok = ok && n == expected;
    if (ok) {
        out.resize(static_cast<std::size_t>(n));
        auto* p = reinterpret_cast<char*>(out.data());
        std::size_t left = out.size() * sizeof(RejectedLine);
        while (ok && left > 0) {
            const ssize_t r = ::read(fd, p, left);
            if (r < 0 && errno == EINTR) continue;
            ok = r > 0;
            if (ok) {
                p += r;
                left -= static_cast<std::size_t>(r);
            }
        }
    }
    ::close(fd);
    // The per-reason counts must match, and every entry must point into the dataset.
    uint64_t counts[kRejectReasonCount] = {};
    for (const RejectedLine& r : out) {
        if (!ok) break;
        ok = r.reason < kRejectReasonCount && r.file < dataset.files.size();
        if (ok) ++counts[r.reason];
    }
    for (const RejectionCount& r : dataset.rejections) {
        if (!ok) break;
        for (int k = 0; k < kRejectReasonCount; ++k)
            if (r.reason == toString(static_cast<RejectReason>(k))) ok = counts[k] == r.count;
    }
    if (!ok) out.clear();
    return ok;
}

ExportCounts exportJsonl(const DatasetRecord& dataset, const std::vector<RejectedLine>& lines,
                         OutputFile& out) {
    ExportCounts counts;
    const auto& files = dataset.files;
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
        while (sample < dataset.rejectionSamples.size()) {
            const Rejection& s = dataset.rejectionSamples[sample];
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
