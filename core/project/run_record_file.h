// The files a run keeps in the project's sidecar folder (sidecar.h) so that it can be recovered
// after a kill and run again: their names, their content and the lock that serializes them.
//
// "run-pending-<pid>-<n>.lock" until the run has a row, "run-<id>.lock" after: the lock a run
// holds; "run-<id>.resume": the same content once the run is known not to have finished, what
// --resume runs again; "run-<id>.resuming": the pid of the process resuming it (run_lock.h of
// core/run). Creating a lock, naming it after its run, recovering dead ones (stopped_runs.h) and
// claiming a resume all happen under "sweep.lock".
//
// The content is JSON: the run's inputs as given, its parameters and the execution options the
// runs table does not keep.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "params.h"
#include "unique_fd.h"

namespace neardup {

namespace run_records {

inline constexpr const char* kPendingPrefix = "run-pending-";
inline constexpr const char* kResumingSuffix = ".resuming";

// What a lock file holds; it becomes the resume record.
struct RunRecord {
    int64_t pid = 0;
    int64_t runId = 0;
    std::string startedAt;
    std::vector<std::string> inputs;
    std::vector<std::string> references;
    RunParams params;
};

std::string encode(const RunRecord& record);
// False when `text` is not a record of this format.
bool decode(const std::string& text, RunRecord& out);

// A file of the sidecar, opened relative to its descriptor and never through a link.
UniqueFd openIn(int dirFd, const std::string& name, int flags, mode_t mode = 0);
// The project-wide lock that serializes creating, naming and recovering run locks. Blocking:
// every holder keeps it for one small SQLite write at most. Not open when it cannot be taken.
UniqueFd lockSweep(int dirFd);

// The whole file of `fd` replaced by `text` and synced; false when it could not be.
bool writeWhole(int fd, const std::string& text);
std::string readWhole(int fd);

// "run-<digits><suffix>" -> the number, else 0.
int64_t runIdOf(const std::string& name, const std::string& suffix);
// "run-<id>.resume".
std::string resumeName(int64_t runId);

}  // namespace run_records

// RunParams from toJson(), with the execution options of a lock file; false when `json` is not
// such an object. Exposed for tests (round trip).
bool paramsFromJson(const std::string& json, RunParams& out);

}  // namespace neardup
