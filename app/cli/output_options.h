// The --out-* options shared by `run` and `export`.
#pragma once

#include <CLI/CLI.hpp>

#include "exporter.h"

namespace neardup::cli {

// "-" names standard output (for one of them at most). A name ending in .gz is written as gzip,
// one ending in .zst as zstd (core/output/output_file.h).
inline void addOutputOptions(CLI::App& cmd, ExportOptions& out) {
    cmd.add_option("--out-jsonl", out.jsonl,
                   "Write the kept input lines, byte for byte, in input order (gzip when FILE "
                   "ends in .gz, zstd when it ends in .zst, as every --out-* file)");
    cmd.add_option("--out-kept", out.kept, "Write the ids of kept documents, one per line");
    cmd.add_option("--out-removed", out.removed,
                   "Write the ids of removed documents, one per line");
    cmd.add_option("--out-clusters", out.clusters,
                   "Write clusters as JSONL: {\"id\", \"cluster\", \"representative\"} per member");
    cmd.add_option("--summary-json", out.summaryJson, "Write the run summary as JSON");
}

}  // namespace neardup::cli
