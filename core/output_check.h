// Checking output paths before a run or an export starts, so that a long run does not end in
// "cannot write" after hours of work, and nothing is written when one output cannot be.
#pragma once

#include <string>
#include <vector>

#include "document_table.h"
#include "exporter.h"

namespace neardup {

struct NamedOutput {
    std::string option;  // "--out-jsonl", for messages
    std::string path;    // empty: not requested
};

// The outputs of `outputs`, named by their command-line options.
std::vector<NamedOutput> namedOutputs(const ExportOptions& outputs);

// An empty string when every requested output can be created, else a message naming the first
// that cannot: its directory is missing, not a directory or not writable; the path is a
// directory; two outputs share one path; or (when `files` are given) the output is one of the
// input files. The final write can still fail (a full disk); that is reported then, and leaves
// nothing partial behind.
std::string outputProblem(const std::vector<NamedOutput>& outputs,
                          const std::vector<InputFile>& files = {});
std::string outputProblem(const ExportOptions& outputs);

// As above for a run's `inputs` as given (files or directories, expanded as the run expands
// them; an input that cannot be expanded is left to the run to report).
std::string outputProblem(const ExportOptions& outputs, const std::vector<std::string>& inputs);
}  // namespace neardup
