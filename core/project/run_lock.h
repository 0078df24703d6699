// Runs that a process was running when it died (kill -9, power loss), and what --resume needs.
//
// While Pipeline::run works on a file-backed project, the process holds an exclusive flock on a
// lock file in the project's sidecar directory <project>.d/: "run-pending-<pid>-<n>.lock"
// until the run has a row, "run-<id>.lock" after. The kernel releases a flock when its process
// ends, however it ends, so a lock that can be taken belongs to a dead process. The file holds
// what is needed to run the run again: its inputs as given, its parameters and the execution
// options the runs table does not keep (JSON, see lockContent() in run_lock.cpp).
//
// recoverStaleRuns(), called explicitly by whoever opens a project to write it (a run as it
// starts, resume, export, relocate, the workbench; ProjectStore::recoverStaleRuns()), and by
// findResumable(), takes every such dead lock: a run it names that is still "running" becomes
// "interrupted"; a process killed before its run had a row gets an interrupted row (on an
// empty dataset, as a run interrupted while reading gets). The lock then becomes the run's
// resume record "run-<id>.resume". Temporary files of dead processes (AtomicFile's
// ".<name>.tmp-<pid>", and "*.tmp.<pid>" as older versions named them; spill directories
// "work-<pid>-*") and signature caches no row refers to are removed. Creating a lock, naming it
// after its run and the recovery all happen under a second flock ("sweep.lock"), so a live run is
// never mistaken for a dead one.
//
// The sidecar is reached only through its descriptor (sidecar.h): a sidecar that is a link, not
// a folder or another user's is refused, and the recovery then touches nothing. What it removes
// is only what this program makes: regular files (spill folders: real folders, emptied without
// following a link inside) owned by the effective user, under this program's names, of a
// process that is gone. A resume holds "run-<id>.resuming" (an flock, and its pid as content)
// while it runs, so that a run is resumed by one process at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "params.h"
#include "run_result.h"

namespace neardup {

class ProjectStore;

// The error recorded for a run whose process ended without finishing it.
inline constexpr const char* kStaleRunError =
    "the process running it ended without finishing (killed?)";

class RunLock {
  public:
    // Does nothing for in-memory projects, or when the sidecar directory cannot be written
    // (the run goes on; it is then not recoverable after a kill). Throws SidecarRefused
    // (sidecar.h) when the sidecar is a link, not a folder, or another user's.
    RunLock(ProjectStore& store, const std::vector<std::string>& inputs, const RunParams& params,
            const std::string& startedAt, const std::vector<std::string>& references = {});
    // A finished run's lock is deleted; an unfinished one's (failed, interrupted, or ended by
    // an exception) is kept as its resume record.
    ~RunLock();
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;

    // store.beginRun(run), and the lock named after the new run, under the sweep lock.
    int64_t beginRun(const RunResult& run);
    // The run finished ("ok"): nothing to resume.
    void finished() { ok_ = true; }

    // A row was written for the run of the lock that `store` holds in this process (by
    // recordUnfinishedRun, for a run that stopped before beginRun).
    static void noteRecorded(ProjectStore& store, int64_t runId) noexcept;

  private:
    void nameAfter(int64_t runId);
    ProjectStore& store_;
    int dirFd_ = -1;  // the sidecar folder
    std::string name_;
    int fd_ = -1;
    int64_t runId_ = 0;
    bool ok_ = false;
};

// See the top of this file. Never throws; a project it cannot write, or whose sidecar is refused,
// is left as it is.
void recoverStaleRuns(ProjectStore& store) noexcept;

// What `neardup run --resume` runs again.
struct ResumeRecord {
    int64_t runId = 0;
    std::string status, error;            // of the unfinished run
    std::vector<std::string> inputs;      // as given to the unfinished run
    std::vector<std::string> references;  // its --reference, as given
    RunParams params;                     // its parameters, from the project
};

// The most recent run that did not finish (failed or interrupted, stale ones included) and
// still has its resume record; nothing when there is none. Throws StoreError when the record
// exists but cannot be read, SidecarRefused when the sidecar is refused.
std::optional<ResumeRecord> findResumable(ProjectStore& store);
// Drops the resume record of `runId` (after a run resuming it finished).
void forgetResumable(ProjectStore& store, int64_t runId) noexcept;

// The right to resume run `runId`, held by one process at a time while it runs the run again:
// an flock on "run-<id>.resuming" in the sidecar, which holds the holder's pid. Throws
// StoreError naming that process when another one holds it, and when the run's resume record is
// gone (another process resumed it meanwhile); SidecarRefused for a refused sidecar.
class ResumeClaim {
  public:
    ResumeClaim() = default;  // claims nothing
    ResumeClaim(ProjectStore& store, int64_t runId);
    ~ResumeClaim();
    ResumeClaim(const ResumeClaim&) = delete;
    ResumeClaim& operator=(const ResumeClaim&) = delete;

  private:
    int dirFd_ = -1;
    std::string name_;
    int fd_ = -1;
};

// RunParams from toJson(), with the execution options of a lock file; false when `json` is not
// such an object. Exposed for tests (round trip).
bool paramsFromJson(const std::string& json, RunParams& out);

}  // namespace neardup
