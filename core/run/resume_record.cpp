// Resume records and the claim on a resume (run_lock.h).
#include "run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "no_follow.h"
#include "project_store.h"
#include "run_record_file.h"
#include "sidecar.h"
#include "stopped_runs.h"
#include "unique_fd.h"

namespace neardup {

// The run records' file format and locks (run_record_file.h), which this file is built on.
using namespace run_records;

namespace {

bool inMemory(const std::string& path) {
    return path.empty() || path == ":memory:";
}

}  // namespace

std::optional<ResumeRecord> findResumable(ProjectStore& store) {
    if (inMemory(store.path())) return std::nullopt;
    recoverStaleRuns(store);
    const Sidecar sidecar = Sidecar::open(store.path(), false);  // throws SidecarRefused
    if (!sidecar.valid()) return std::nullopt;
    std::vector<int64_t> ids;
    for (const std::string& name : namesIn(sidecar.fd()))
        if (const int64_t id = runIdOf(name, ".resume")) ids.push_back(id);
    std::sort(ids.rbegin(), ids.rend());
    const auto runs = store.runStates();
    for (const int64_t id : ids) {
        const auto r = std::find_if(runs.begin(), runs.end(),
                                    [id](const ProjectStore::RunState& s) { return s.id == id; });
        if (r == runs.end() || (r->status != "interrupted" && r->status != "failed")) continue;
        const std::string name = resumeName(id);
        UniqueFd fd = openIn(sidecar.fd(), name, O_RDONLY | O_NONBLOCK);
        RunRecord c;
        if (fd.get() < 0 || !decode(readWhole(fd.get()), c))
            throw StoreError("project store: cannot read the resume record " + sidecar.shown(name));
        const RunResult row = store.loadRun(id);
        ResumeRecord rec;
        rec.runId = id;
        rec.status = row.status;
        rec.error = row.error;
        rec.inputs = std::move(c.inputs);
        rec.references = std::move(c.references);
        // The row is authoritative for what determines results; the record adds the execution
        // options the row does not keep.
        rec.params = row.params;
        rec.params.reader.onError = c.params.reader.onError;
        rec.params.memoryBudget = c.params.memoryBudget;
        rec.params.workDir = c.params.workDir;
        return rec;
    }
    return std::nullopt;
}

void forgetResumable(ProjectStore& store, int64_t runId) noexcept {
    try {
        const Sidecar sidecar = Sidecar::open(store.path(), false);
        if (!sidecar.valid()) return;
        const UniqueFd sweep = lockSweep(sidecar.fd());
        ::unlinkat(sidecar.fd(), resumeName(runId).c_str(), 0);
    } catch (...) {
    }
}

ResumeClaim::ResumeClaim(ProjectStore& store, int64_t runId) {
    if (inMemory(store.path()) || runId == 0) return;
    const Sidecar sidecar = Sidecar::open(store.path(), false);  // throws SidecarRefused
    const std::string record = resumeName(runId);
    if (!sidecar.valid())
        throw StoreError("nothing to resume: run " + std::to_string(runId) +
                         " has no resume record in " + store.path() + ".d");
    const UniqueFd sweep = lockSweep(sidecar.fd());
    const std::string name = "run-" + std::to_string(runId) + kResumingSuffix;
    UniqueFd fd = openIn(sidecar.fd(), name, O_RDWR | O_CREAT, 0644);
    if (fd.get() < 0)
        throw StoreError("cannot claim run " + std::to_string(runId) + " for resuming (" +
                         sidecar.shown(name) + "): " + std::strerror(errno));
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
        std::string holder = readWhole(fd.get());
        while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' '))
            holder.pop_back();
        throw StoreError("run " + std::to_string(runId) + " is already being resumed by process " +
                         (holder.empty() ? std::string("(unknown)") : holder) +
                         "; wait for it to end (a run is resumed once)");
    }
    // The record goes when a resume finishes; one that finished since this process looked
    // for it left nothing to resume.
    struct stat st {};
    if (::fstatat(sidecar.fd(), record.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        ::unlinkat(sidecar.fd(), name.c_str(), 0);
        throw StoreError("nothing to resume: run " + std::to_string(runId) +
                         " was resumed by another process meanwhile");
    }
    writeWhole(fd.get(), std::to_string(::getpid()) + "\n");
    dirFd_ = ::fcntl(sidecar.fd(), F_DUPFD_CLOEXEC, 0);
    name_ = name;
    fd_ = fd.release();
}

ResumeClaim::~ResumeClaim() {
    if (fd_ < 0) return;
    {
        // Under the sweep lock, so that a process about to claim the run opens the file (or
        // a new one) only once this one is gone: it then finds the record gone too, or the run
        // unfinished and its record there.
        const UniqueFd sweep = lockSweep(dirFd_);
        ::unlinkat(dirFd_, name_.c_str(), 0);
    }
    ::close(fd_);
    if (dirFd_ >= 0) ::close(dirFd_);
}

}  // namespace neardup
