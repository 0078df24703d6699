// Runs that stopped without finishing, as the project records them: the row of a run that
// stopped before it had one, and the recovery of the runs whose process died (kill -9, power
// loss).
//
// While a run works on a file-backed project, its process holds an flock on its lock file in
// the sidecar folder (run_record_file.h). The kernel releases a flock when its process ends,
// however it ends, so a lock that can be taken belongs to a dead process.
//
// recoverStaleRuns(), called explicitly by whoever opens a project to write it (a run as it
// starts, resume, export, relocate, the workbench; ProjectStore::recoverStaleRuns()), and by
// findResumable() (core/run), takes every such dead lock: a run it names that is still
// "running" becomes "interrupted"; a process killed before its run had a row gets an
// interrupted row (on an empty dataset, as a run interrupted while reading gets). The lock then
// becomes the run's resume record "run-<id>.resume". Temporary files of dead processes
// (AtomicFile's ".<name>.tmp-<pid>", and "*.tmp.<pid>" as older versions named them; spill
// directories "work-<pid>-*") and signature caches no row refers to are removed. All of it
// happens under the sweep lock, so a live run is never mistaken for a dead one.
//
// The sidecar is reached only through its descriptor (sidecar.h): a sidecar that is a link, not
// a folder or another user's is refused, and the recovery then touches nothing. What it removes
// is only what this program makes: regular files (spill folders: real folders, emptied without
// following a link inside) owned by the effective user, under this program's names, of a
// process that is gone. A claim on a resume ("run-<id>.resuming") whose process is gone goes
// too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "project_store.h"
#include "run_result.h"

namespace neardup {

// The error recorded for a run whose process ended without finishing it.
inline constexpr const char* kStaleRunError =
    "the process running it ended without finishing (killed?)";

// The row of a run that stopped before it was entered in the project, with its final `status`
// and `message` and the counts reached so far. A run row needs a dataset: without `datasetId`
// it gets an empty one (no files, so never matched for reuse) holding the partial counts.
// Returns the new run's id; throws StoreError.
int64_t recordStoppedRun(ProjectStore& store, RunResult run, std::optional<int64_t> datasetId,
                         const DatasetRecord& partial, std::size_t documents,
                         const std::string& status, const std::string& message);

// See the top of this file. Never throws; a project it cannot write, or whose sidecar is refused,
// is left as it is.
void recoverStaleRuns(ProjectStore& store) noexcept;

}  // namespace neardup
