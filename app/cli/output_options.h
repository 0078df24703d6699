// The --out-* options shared by `run` and `export`.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "exporter.h"
#include "output_check.h"

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
    cmd.add_option("--out-dir", out.outDir,
                   "Write the deduplicated dataset shard by shard into DIR, mirroring the inputs' "
                   "names (a file given: its base name; a folder given: the paths below it), each "
                   "in its input's format: JSONL as it was (plain, .gz, .zst), Parquet with the "
                   "same schema and compression")
        ->type_name("DIR");
    cmd.add_flag("--annotate", out.annotate,
                 "With --out-dir and --out-jsonl: write every document instead of the kept ones, "
                 "with cluster_id (-1: in no cluster), cluster_size (1 then) and "
                 "duplicate_removed (keep the rows where it is false for the deduplicated set)");
}

// The check every writer makes (output_check.h): no output onto an input, a NearDup project or
// into its sidecar, into a folder given as an input, nor two outputs on one file. Prints the
// problem and returns false when there is one, before anything is read or written.
inline bool outputsAllowed(const char* command, const std::vector<NamedOutput>& outputs,
                           const std::vector<InputFile>& inputs = {},
                           const ProtectedFiles& guarded = {}) {
    const std::string problem = outputProblem(outputs, inputs, guarded);
    if (problem.empty()) return true;
    fmt::print(stderr, "neardup {}: {}\n", command, problem);
    return false;
}

}  // namespace neardup::cli
