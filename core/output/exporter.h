// Writing a run's outputs: deduplicated JSONL, kept/removed id lists, clusters, summary.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "document_table.h"
#include "protected_files.h"
#include "run_result.h"

namespace neardup {

struct ExportOptions {
    std::string jsonl;    // kept input lines, byte for byte, in input order
    std::string kept;     // one id per line
    std::string removed;  // one id per line
    // JSONL, one line per member of each cluster: {"id", "cluster", "representative"}, plus
    // "kept": true on the other kept members, and on removed members "witness" (the id of the
    // kept document it is removed for), "jaccard" (their estimated Jaccard) and "exact" (when
    // verified), or "witness": null for a removal without one (components rule only).
    std::string clusters;
    std::string summaryJson;  // the run summary
    // The deduplicated dataset shard by shard (dataset_shards.h): each input file's kept rows
    // in a file of its own under this folder, in the input's format and compression.
    std::string outDir;
    // Per input file, its name under outDir (expandInputs' names: a file given directly is its
    // base name, one found in a folder its path below it); empty: each file's path below the
    // deepest folder holding them all (an export from a project, which keeps absolute paths).
    std::vector<std::string> shardNames;
    // --annotate: --out-jsonl and --out-dir write every document instead of the kept ones, with
    // its cluster fields appended (cluster_annotation.h).
    bool annotate = false;
    // Optional: called every few thousand documents with (documents done, documents in all,
    // counted over every requested output), on the exporting thread.
    std::function<void(uint64_t, uint64_t)> progress;
    // Optional: polled as often; once true, the export stops, renames nothing into place and
    // throws ExportCancelled (no output file is created or replaced).
    const std::atomic<bool>* cancel = nullptr;
    // Read the inputs ahead on a second thread while writing the deduplicated JSONL (for
    // callers that may use two threads).
    bool readAhead = false;
    // Threads that check the documents' rows and gather their lines for the deduplicated JSONL
    // and --out-dir's JSON Lines shards (kept_lines.h: LineTargets::threads).
    int threads = 1;
    // The dataset's reader options: a Parquet input's kept rows are written as JSON lines of
    // their id and text under these field names (parquet_rows.h).
    ReaderOptions reader;
    // The project the run belongs to and the inputs of its datasets: no output may be one of
    // them, the project's -journal/-wal/-shm file, or lie in its sidecar folder or in a dataset
    // folder it reads (core/output/output_check.h). Empty: not checked.
    ProtectedFiles project;

    bool any() const {
        return !jsonl.empty() || !kept.empty() || !removed.empty() || !clusters.empty() ||
               !summaryJson.empty() || !outDir.empty();
    }
};

class ExportCancelled : public std::runtime_error {
  public:
    ExportCancelled() : std::runtime_error("export cancelled") {}
};

class AtomicFile;

// Outputs written completely under temporary names, waiting to be renamed into place: a run
// renames its outputs only after its final commit to the project. Destroyed uncommitted, it
// removes the temporaries.
class PendingOutputs {
  public:
    PendingOutputs();
    ~PendingOutputs();
    PendingOutputs(const PendingOutputs&) = delete;
    PendingOutputs& operator=(const PendingOutputs&) = delete;

    // Renames every output into place; throws std::runtime_error naming the first that fails.
    void commit();
    void add(std::unique_ptr<AtomicFile> file);

  private:
    std::vector<std::unique_ptr<AtomicFile>> files_;
};

// Writes each requested output to a temporary file in the target directory and renames them
// all into place once every one is complete (or, with `pending`, hands them over complete,
// flushed and synced, for the caller to rename), so an output either is complete or does not
// exist, and a cancelled or failed export leaves none of its files. Checks every output first
// (outputProblem of core/output/output_check.h: never an input, the project or two outputs on one
// file). Throws std::runtime_error naming the path.
void exportRun(const RunResult& run, const std::vector<InputFile>& files, const DocumentTable& docs,
               const ExportOptions& options, PendingOutputs* pending = nullptr);

// The run summary as JSON (counts, rejections by reason, parameters, phases, and the components
// the run names when run.components is measured: components_json.h). `docs` gives the ids.
std::string summaryJson(const RunResult& run, const DocumentTable& docs);

}  // namespace neardup
