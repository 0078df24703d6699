// The input-format case of `neardup bench --formats`: the same generated documents read from
// JSON Lines and from Parquet by whole runs, compared by their read phase (MB/s of text,
// documents/s) and the run's peak memory, so that Parquet's decoding is seen not to be the
// bottleneck. benchmark.cpp runs the cases in its child processes; this file makes the Parquet
// copy and turns the runs into the report's rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "benchmark.h"
#include "jsonl_reader.h"

namespace neardup {

// Rows per row group of the Parquet copy: about 2.6 MB of text for the web corpus, the order
// of the row groups of the Hub's Parquet datasets.
inline constexpr uint64_t kBenchmarkRowsPerGroup = 1000;

// Writes the documents of the JSON Lines file `jsonl` as the Parquet file `parquet` (string
// columns id and text, zstd pages, row groups of kBenchmarkRowsPerGroup rows); returns
// "documents N\ntext_bytes B\n" for parseFormatCopy. Throws std::runtime_error.
std::string writeParquetCopy(const std::string& jsonl, const std::string& parquet,
                             const ReaderOptions& reader);

struct FormatCopy {
    uint64_t documents = 0, textBytes = 0;
};
FormatCopy parseFormatCopy(const std::string& text);

// The row of one format from its runs (`repeat` of them; the median by read time is
// reported): the read phase's seconds, text MB/s and documents/s, the run's peak RSS.
BenchmarkFormatCase formatCase(const std::string& format, const std::string& path,
                               const FormatCopy& copy, const std::vector<BenchmarkCase>& runs);

// The "formats" member of the JSON report and the Markdown table of the format cases.
void appendFormatsJson(std::string& o, const std::vector<BenchmarkFormatCase>& cases);
std::string formatsTable(const std::vector<BenchmarkFormatCase>& cases);

}  // namespace neardup
