// The lock a run holds on its project (run_lock.h).
#include "run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <utility>

#include "project_store.h"
#include "run_record_file.h"
#include "sidecar.h"
#include "unique_fd.h"

namespace neardup {

using run_records::encode;
using run_records::kPendingPrefix;
using run_records::lockSweep;
using run_records::openIn;
using run_records::resumeName;
using run_records::RunRecord;
using run_records::writeWhole;

namespace {

bool inMemory(const std::string& path) {
    return path.empty() || path == ":memory:";
}

// Locks held by RunLocks of this process, by store, for noteRecorded().
std::mutex gRegistryMutex;
std::vector<std::pair<const ProjectStore*, RunLock*>> gRegistry;

std::atomic<uint64_t> gSequence{0};

}  // namespace

RunLock::RunLock(ProjectStore& store, const std::vector<std::string>& inputs,
                 const RunParams& params, const std::string& startedAt,
                 const std::vector<std::string>& references)
    : store_(store) {
    if (inMemory(store.path())) return;
    Sidecar sidecar;
    try {
        sidecar = Sidecar::open(store.path(), true);
    } catch (const SidecarRefused&) {
        throw;  // the run stops before it writes anything there
    } catch (const StoreError&) {
        return;  // cannot be written: the run goes on, not recoverable after a kill
    }
    UniqueFd sweep = lockSweep(sidecar.fd());
    if (sweep.get() < 0) return;
    RunRecord c;
    c.pid = ::getpid();
    c.startedAt = startedAt;
    // Absolute, so that --resume works from any directory.
    for (const std::string& in : inputs) {
        std::error_code bad;
        const auto abs = std::filesystem::absolute(in, bad);
        c.inputs.push_back(bad ? in : abs.lexically_normal().string());
    }
    c.references = references;  // absolute already (Pipeline::run)
    c.params = params;
    const std::string name = kPendingPrefix + std::to_string(::getpid()) + "-" +
                             std::to_string(gSequence.fetch_add(1)) + ".lock";
    UniqueFd fd = openIn(sidecar.fd(), name, O_RDWR | O_CREAT | O_EXCL, 0644);
    if (fd.get() < 0) return;
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 || !writeWhole(fd.get(), encode(c))) {
        ::unlinkat(sidecar.fd(), name.c_str(), 0);
        return;
    }
    dirFd_ = ::fcntl(sidecar.fd(), F_DUPFD_CLOEXEC, 0);
    if (dirFd_ < 0) {
        ::unlinkat(sidecar.fd(), name.c_str(), 0);
        return;
    }
    name_ = name;
    fd_ = fd.release();
    sweep.reset();  // never held while waiting for the registry (noteRecorded: the other order)
    std::lock_guard<std::mutex> guard(gRegistryMutex);
    gRegistry.emplace_back(&store_, this);
}

RunLock::~RunLock() {
    {
        std::lock_guard<std::mutex> guard(gRegistryMutex);
        std::erase_if(gRegistry, [this](const auto& e) { return e.second == this; });
    }
    if (fd_ < 0) return;
    if (ok_ || runId_ == 0) {
        // Finished, or stopped without a row to resume (the project could not be written).
        ::unlinkat(dirFd_, name_.c_str(), 0);
    } else {
        // The lock's content is the resume record; the rename keeps it whole.
        ::renameat(dirFd_, name_.c_str(), dirFd_, resumeName(runId_).c_str());
    }
    ::close(fd_);
    ::close(dirFd_);
}

void RunLock::nameAfter(int64_t runId) {
    runId_ = runId;
    if (fd_ < 0) return;
    // One rename: a kill at any moment leaves the lock under one name or the other, whole.
    const std::string name = "run-" + std::to_string(runId) + ".lock";
    if (::renameat(dirFd_, name_.c_str(), dirFd_, name.c_str()) == 0) name_ = name;
}

int64_t RunLock::beginRun(const RunResult& run) {
    if (fd_ < 0) return store_.beginRun(run);
    UniqueFd sweep = lockSweep(dirFd_);
    const int64_t id = store_.beginRun(run);
    nameAfter(id);
    return id;
}

void RunLock::noteRecorded(ProjectStore& store, int64_t runId) noexcept {
    std::lock_guard<std::mutex> guard(gRegistryMutex);
    for (auto& [owner, lock] : gRegistry) {
        if (owner != &store || lock->runId_ != 0) continue;
        try {
            UniqueFd sweep = lockSweep(lock->dirFd_);
            lock->nameAfter(runId);
        } catch (...) {
        }
    }
}

}  // namespace neardup
