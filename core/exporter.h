// Writing a run's outputs: deduplicated JSONL, kept/removed id lists, clusters, summary.
#pragma once

#include <string>
#include <vector>

#include "document_table.h"
#include "run_result.h"

namespace neardup {

struct ExportOptions {
    std::string jsonl;        // kept input lines, byte for byte, in input order
    std::string kept;         // one id per line
    std::string removed;      // one id per line
    std::string clusters;     // JSONL: {"id": ..., "cluster": N, "representative": bool}
    std::string summaryJson;  // the run summary

    bool any() const {
        return !jsonl.empty() || !kept.empty() || !removed.empty() || !clusters.empty() ||
               !summaryJson.empty();
    }
};

// Writes each requested output to a temporary file in the target directory and renames it
// into place, so an output either is complete or does not exist. Refuses to overwrite an
// input file. Throws std::runtime_error naming the path.
void exportRun(const RunResult& run, const std::vector<InputFile>& files, const DocumentTable& docs,
               const ExportOptions& options);

// The run summary as JSON (counts, rejections by reason, parameters, phases).
std::string summaryJson(const RunResult& run);

}  // namespace neardup
