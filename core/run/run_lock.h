// The lock a run holds on its project while it works, so that the run can be recovered and run
// again after its process dies (kill -9, power loss), and the resume record it leaves.
//
// While Pipeline::run works on a file-backed project, the process holds an exclusive flock on a
// lock file in the project's sidecar directory <project>.d/: "run-pending-<pid>-<n>.lock"
// until the run has a row, "run-<id>.lock" after. The kernel releases a flock when its process
// ends, however it ends, so a lock that can be taken belongs to a dead process: the project's
// recovery (stopped_runs.h of core/project) turns it into the run's resume record (below). The
// file holds what is needed to run the run again: its inputs as given, its parameters and the
// execution options the runs table does not keep (run_record_file.h of core/project).
// Creating a lock and naming it after its run happen under the sweep lock, as the recovery
// does, so a live run is never mistaken for a dead one.
//
// The resume record is what `neardup run --resume` (and the workbench's resume bar) runs again:
// the lock of a run that did not finish, kept as "run-<id>.resume" (resume_record.cpp). A resume
// holds "run-<id>.resuming" (an flock, and its pid as content) while it runs, so that a run is
// resumed by one process at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "params.h"
#include "run_result.h"

namespace neardup {

class ProjectStore;

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

// What `neardup run --resume` runs again.
struct ResumeRecord {
    int64_t runId = 0;
    std::string status, error;            // of the unfinished run
    std::vector<std::string> inputs;      // as given to the unfinished run
    std::vector<std::string> references;  // its --reference, as given
    RunParams params;                     // its parameters, from the project
};

// The most recent run that did not finish (failed or interrupted, stale ones included: it
// recovers them first, stopped_runs.h) and still has its resume record; nothing when there is
// none. Throws StoreError when the record exists but cannot be read, SidecarRefused when the
// sidecar is refused.
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

}  // namespace neardup
