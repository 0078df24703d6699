// Every rejected line of a dataset, not just the first 1000 samples: kept in the project's
// sidecar directory as "rejections-<dataset>.bin" (16 bytes a line), exported as JSONL by
// `neardup export --rejected` (rejected_lines_jsonl.h of core/output).
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

namespace rejected_lines {

std::string fileName(int64_t datasetId);

// Writes `path` atomically (temporary file, fsync, rename). Throws StoreError.
void write(const std::string& path, const std::vector<RejectedLine>& lines);

// The dataset's rejected lines from the sidecar directory of `store`; false when the project
// does not hold them (in-memory project, a dataset saved before they were kept, a damaged or
// missing file) or when they do not add up to the dataset's per-reason counts.
bool load(ProjectStore& store, const DatasetRecord& dataset, std::vector<RejectedLine>& out);

}  // namespace rejected_lines
}  // namespace neardup
