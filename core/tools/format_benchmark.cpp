// The input-format case of the benchmark (format_benchmark.h).
#include "format_benchmark.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "atomic_file.h"
#include "json_text.h"
#include "parquet_file.h"

namespace neardup {

std::string writeParquetCopy(const std::string& jsonl, const std::string& parquet,
                             const ReaderOptions& reader) {
    const std::vector<InputFile> files = expandInputs({jsonl});
    LineChunkSource source(files, reader.chunkBytes);
    ChunkParser parser(files, reader);
    LineChunk chunk;
    ParsedChunk parsed;
    AtomicFileStream out(parquet);
    columnar::ParquetListWriter writer(
        parquet,
        {{"id", columnar::ParquetListWriter::Type::String},
         {"text", columnar::ParquetListWriter::Type::String}},
        [&](std::string_view bytes) {
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        },
        kBenchmarkRowsPerGroup);
    FormatCopy copy;
    while (source.next(chunk)) {
        parser.parse(chunk, parsed);
        for (const ParsedDocument& d : parsed.docs) {
            writer.addString(parsed.id(d));
            writer.addString(parsed.text(d));
            writer.endRow();
            ++copy.documents;
            copy.textBytes += d.textLength;
        }
    }
    writer.close();
    out.commit();
    return fmt::format("documents {}\ntext_bytes {}\n", copy.documents, copy.textBytes);
}

FormatCopy parseFormatCopy(const std::string& text) {
    FormatCopy copy;
    std::istringstream in(text);
    for (std::string key; in >> key;) {
        if (key == "documents") in >> copy.documents;
        if (key == "text_bytes") in >> copy.textBytes;
    }
    return copy;
}

namespace {

double readSeconds(const BenchmarkCase& c) {
    for (const BenchmarkPhase& p : c.phases)
        if (p.name == "read") return p.seconds;
    return 0;
}

}  // namespace

BenchmarkFormatCase formatCase(const std::string& format, const std::string& path,
                               const FormatCopy& copy, const std::vector<BenchmarkCase>& runs) {
    if (runs.empty()) throw std::runtime_error("bench: no run of the " + format + " case");
    std::vector<const BenchmarkCase*> order;
    for (const BenchmarkCase& c : runs)
        order.push_back(&c);
    std::sort(order.begin(), order.end(), [](const BenchmarkCase* a, const BenchmarkCase* b) {
        return readSeconds(*a) < readSeconds(*b);
    });
    const BenchmarkCase& median = *order[order.size() / 2];
    BenchmarkFormatCase f;
    f.format = format;
    f.path = path;
    f.fileBytes = median.bytes;
    f.textBytes = copy.textBytes;
    f.documents = median.documents;
    f.threads = median.threads;
    f.readSeconds = readSeconds(median);
    if (f.readSeconds > 0) {
        f.textMBps = double(f.textBytes) / 1e6 / f.readSeconds;
        f.documentsPerSecond = double(f.documents) / f.readSeconds;
    }
    f.wallSeconds = median.wallSeconds;
    f.peakRssBytes = median.peakRssBytes;
    for (const BenchmarkCase& c : runs)
        f.repeatReadSeconds.push_back(readSeconds(c));
    return f;
}

void appendFormatsJson(std::string& o, const std::vector<BenchmarkFormatCase>& cases) {
    o += "\"formats\":[";
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const BenchmarkFormatCase& f = cases[i];
        o += i ? ",{\"format\":" : "{\"format\":";
        json::appendString(o, f.format);
        o += ",\"path\":";
        json::appendString(o, f.path);
        auto number = [&](const char* name, double value) {
            o += fmt::format(",\"{}\":", name);
            json::appendNumber(o, value);
        };
        number("file_bytes", double(f.fileBytes));
        number("text_bytes", double(f.textBytes));
        number("documents", double(f.documents));
        number("threads", f.threads);
        number("read_seconds", f.readSeconds);
        number("text_mb_per_s", f.textMBps);
        number("docs_per_s", f.documentsPerSecond);
        number("wall_seconds", f.wallSeconds);
        number("peak_rss_bytes", double(f.peakRssBytes));
        o += ",\"repeat_read_seconds\":[";
        for (std::size_t j = 0; j < f.repeatReadSeconds.size(); ++j) {
            if (j) o += ',';
            json::appendNumber(o, f.repeatReadSeconds[j]);
        }
        o += "]}";
    }
    o += "]";
}

std::string formatsTable(const std::vector<BenchmarkFormatCase>& cases) {
    if (cases.empty()) return {};
    std::string o =
        "| input format | file MB | text MB | docs | threads | read s | text MB/s | docs/s | "
        "run s | peak RSS MiB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const BenchmarkFormatCase& f : cases)
        o += fmt::format(
            "| {} | {:.1f} | {:.1f} | {} | {} | {:.3f} | {:.1f} | {:.0f} | {:.2f} | "
            "{:.0f} |\n",
            f.format, double(f.fileBytes) / 1e6, double(f.textBytes) / 1e6, f.documents, f.threads,
            f.readSeconds, f.textMBps, f.documentsPerSecond, f.wallSeconds,
            double(f.peakRssBytes) / double(uint64_t{1} << 20));
    return o;
}

}  // namespace neardup
