// Every rejected line of a dataset written as JSON Lines (`neardup export --rejected`): what was
// wrong with each line and, where its input file is unchanged, the line itself. Which lines a
// dataset rejected is kept by the project (rejected_lines.h of core/project).
#pragma once

#include <cstdint>
#include <vector>

#include "document_table.h"
#include "jsonl_reader.h"

namespace neardup {

class OutputFile;

namespace rejected_lines {

struct ExportCounts {
    uint64_t lines = 0;         // written
    uint64_t withRaw = 0;       // of which with the raw input line
    uint64_t filesChanged = 0;  // input files changed or unreadable since: no raw lines
};

// One JSON object per rejected line, in input order: {"file", "line", "reason"[, "detail"]
// [, "raw"]}. `files` are the dataset's input files and `samples` its rejection samples (in
// input order). "detail" where a sample explains the line; "raw" is the input line without its
// line end, when its file is unchanged since it was read and the line is valid UTF-8. Throws
// std::runtime_error naming the file.
ExportCounts exportJsonl(const std::vector<InputFile>& files, const std::vector<Rejection>& samples,
                         const std::vector<RejectedLine>& lines, OutputFile& out);

}  // namespace rejected_lines
}  // namespace neardup
