// Every rejected line of a dataset, not just the first 1000 samples: kept in the project's
// sidecar directory as "rejections-<dataset>.bin" (16 bytes a line), exported as JSONL by
// `neardup export --rejected`.
//
// Layout, little-endian:
//   0   char[8]  magic "NDWREJ01"
//   8   uint64   count (n)
//   16  n records of { uint64 line; uint32 file index; uint8 reason; 3 bytes zero }
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jsonl_reader.h"
#include "project_store.h"

namespace neardup {

class OutputFile;

namespace rejected_lines {

std::string fileName(int64_t datasetId);

// Writes `path` atomically (temporary file, fsync, rename). Throws StoreError.
void write(const std::string& path, const std::vector<RejectedLine>& lines);

// The dataset's rejected lines from the sidecar directory of `store`; false when the project
// does not hold them (in-memory project, a dataset saved before they were kept, a damaged or
// missing file) or when they do not add up to the dataset's per-reason counts.
bool load(ProjectStore& store, const DatasetRecord& dataset, std::vector<RejectedLine>& out);

struct ExportCounts {
    uint64_t lines = 0;         // written
    uint64_t withRaw = 0;       // of which with the raw input line
    uint64_t filesChanged = 0;  // input files changed or unreadable since: no raw lines
};

// One JSON object per rejected line, in input order: {"file", "line", "reason"[, "detail"]
// [, "raw"]}. "detail" where the project keeps the sample's explanation; "raw" is the input
// line without its line end, when its file is unchanged since it was read and the line is
// valid UTF-8. Throws std::runtime_error naming the file.
ExportCounts exportJsonl(const DatasetRecord& dataset, const std::vector<RejectedLine>& lines,
                         OutputFile& out);

}  // namespace rejected_lines
}  // namespace neardup
