// --out-dir: the deduplicated dataset written shard by shard, mirroring the inputs' names, each
// shard in its input's format: JSON Lines as it was (plain, gzip or zstd) with exactly the kept
// lines byte for byte in input order; Parquet with the input's schema and compression holding
// exactly the kept rows in order (core/columnar's copyParquetRows); Arrow IPC in its input's IPC
// format (file or stream) with the input's schema (copyArrowRows), and the JSON metadata of a
// Hugging Face `datasets` folder beside its shards (dataset_metadata.h). With --annotate every
// document is written with its cluster fields or columns (cluster_annotation.h). Every input
// file gets its shard, one without rows when none of its documents is kept.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "document_table.h"
#include "exporter.h"
#include "run_result.h"

namespace neardup {

class ExportTicker;
class OutputFile;

// Each file's path below the deepest folder that holds every one of `files` (absolute paths);
// one file alone is its base name.
std::vector<std::string> namesBelowCommonFolder(const std::vector<InputFile>& files);

// The names of `files` under --out-dir: `options.shardNames`, or namesBelowCommonFolder.
std::vector<std::string> shardNames(const ExportOptions& options,
                                    const std::vector<InputFile>& files);

// "" when every shard has a name of its own, else a message naming two input files that would
// be written to one shard.
std::string shardNameProblem(const std::vector<InputFile>& files,
                             const std::vector<std::string>& names, const std::string& outDir);

// Writes every shard under options.outDir (creating the folders below it) to its temporary,
// complete, and appends the files to `written` for the caller to rename into place. Throws
// std::runtime_error naming the file.
void writeDatasetShards(const RunResult& run, const std::vector<InputFile>& files,
                        const DocumentTable& docs, const ExportOptions& options,
                        ExportTicker& ticker, std::vector<std::unique_ptr<OutputFile>>& written);

}  // namespace neardup
