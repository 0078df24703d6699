// Runs that stopped without finishing (stopped_runs.h): their rows, and the recovery of those
// whose process died.
#include "stopped_runs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "no_follow.h"
#include "run_record_file.h"
#include "run_time.h"
#include "sidecar.h"

namespace neardup {

// The run records' file format and locks (run_record_file.h), which this file is built on.
using namespace run_records;

int64_t recordStoppedRun(ProjectStore& store, RunResult run, std::optional<int64_t> datasetId,
                         const DatasetRecord& partial, std::size_t documents,
                         const std::string& status, const std::string& message) {
    if (!datasetId) {
        DatasetRecord stub;
        stub.reader = partial.reader;
        stub.linesRead = partial.linesRead;
        stub.blankLines = partial.blankLines;
        stub.inputBytes = partial.inputBytes;
        datasetId = store.saveDataset(stub, DocumentTable{});
    }
    run.datasetId = *datasetId;
    run.counts.linesRead = partial.linesRead;
    run.counts.blankLines = partial.blankLines;
    run.counts.inputBytes = partial.inputBytes;
    run.counts.documents = documents;
    if (run.finishedAt.empty()) run.finishedAt = utcNow();
    const int64_t id = store.beginRun(run);
    store.markRun(id, status, message);
    return id;
}

namespace {

bool writeFileAtomically(const Sidecar& dir, const std::string& name, const std::string& text) {
    try {
        AtomicFile file(dir.fd(), name, dir.shown(name));
        file.write(text);
        file.commit();
        return true;
    } catch (const std::exception&) {
        return false;  // the temporary is gone with `file`
    }
}

// The pid in the name of a temporary ("<anything>.tmp.<pid>" as older versions named them,
// AtomicFile's ".<name>.tmp-<pid>[-<suffix>]") or of a spill directory
// ("work-<pid>-<anything>"), else 0.
int64_t tempOwner(const std::string& name) {
    if (const long pid = tempFileOwner(name)) return pid;
    std::string digits;
    if (const auto at = name.rfind(".tmp."); at != std::string::npos) {
        digits = name.substr(at + 5);
    } else if (name.rfind("work-", 0) == 0) {
        digits = name.substr(5, name.find('-', 5) - 5);
    } else {
        return 0;
    }
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        return 0;
    return std::stoll(digits);
}

// "run-<id>.resuming" -> the id, else 0.
int64_t resumingRunOf(const std::string& name) {
    return runIdOf(name, kResumingSuffix);
}

// A leftover of a dead process in the sidecar (see tempOwner), removed only when it is what this
// program makes under that name: a regular file, or for a spill folder a real folder, owned by
// the effective user. A link or another user's entry under such a name is left alone.
void removeLeftover(int dirFd, const std::string& name) {
    if (ownRegularFile(dirFd, name)) {
        ::unlinkat(dirFd, name.c_str(), 0);
    } else if (name.rfind("work-", 0) == 0) {
        removeTreeNoFollow(dirFd, name);
    }
}

void recoverIn(ProjectStore& store, const Sidecar& sidecar) {
    const int dir = sidecar.fd();
    const std::vector<std::string> names = namesIn(dir);
    // Cheap exit: nothing that could be stale.
    const bool anything = std::any_of(names.begin(), names.end(), [](const std::string& n) {
        return (n.rfind("run-", 0) == 0 && n.size() > 5 &&
                (n.ends_with(".lock") || n.ends_with(".resume") || n.ends_with(kResumingSuffix))) ||
               tempOwner(n) != 0 || n.rfind("signatures-", 0) == 0 ||
               n.rfind("checkpoint-", 0) == 0;
    });
    if (!anything) return;
    UniqueFd sweep = lockSweep(dir);
    if (sweep.get() < 0) return;

    std::set<int64_t> livePids;
    std::set<int64_t> liveRuns;
    std::vector<std::pair<std::string, UniqueFd>> dead;  // lock files whose owner is gone
    for (const std::string& name : namesIn(dir)) {
        if (name.rfind("run-", 0) != 0) continue;
        if (resumingRunOf(name) != 0) {
            // A claim on a resume whose process is gone (claimResume).
            UniqueFd fd = openIn(dir, name, O_RDWR);
            if (fd.get() >= 0 && ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 &&
                ownRegularFile(dir, name))
                ::unlinkat(dir, name.c_str(), 0);
            continue;
        }
        if (!name.ends_with(".lock")) continue;
        UniqueFd fd = openIn(dir, name, O_RDWR);
        if (fd.get() < 0) continue;
        if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
            RunRecord c;
            if (decode(readWhole(fd.get()), c)) livePids.insert(c.pid);
            if (const int64_t id = runIdOf(name, ".lock")) liveRuns.insert(id);
            continue;
        }
        dead.emplace_back(name, std::move(fd));
    }

    std::vector<ProjectStore::RunState> runs = store.runStates();
    auto findRun = [&runs](int64_t id) -> ProjectStore::RunState* {
        for (auto& r : runs)
            if (r.id == id) return &r;
        return nullptr;
    };
    for (auto& [name, fd] : dead) {
        RunRecord c;
        const bool readable = decode(readWhole(fd.get()), c);
        int64_t id = runIdOf(name, ".lock");
        if (id == 0 && readable) {
            // Killed before the run was named after its row: the row may exist all the
            // same (killed right after writing it, as running, or as interrupted or failed
            // when the process recorded its own end and was killed before renaming the
            // lock), else it is written now.
            for (auto& r : runs)
                if (r.startedAt == c.startedAt && !liveRuns.contains(r.id)) id = r.id;
            if (id == 0) {
                RunResult run;
                run.params = c.params;
                run.startedAt = c.startedAt;
                run.backend = "unknown";
                run.threads = c.params.threads;
                DatasetRecord partial;
                partial.reader = c.params.reader;
                id = recordStoppedRun(store, run, std::nullopt, partial, 0, "interrupted",
                                      kStaleRunError);
                runs.push_back({id, "interrupted", c.startedAt});
            }
        }
        if (ProjectStore::RunState* r = id != 0 ? findRun(id) : nullptr) {
            if (r->status == "running") {
                store.markRun(id, "interrupted", kStaleRunError);
                r->status = "interrupted";
            }
            if (readable) {
                c.runId = id;
                writeFileAtomically(sidecar, resumeName(id), encode(c));
            }
        }
        ::unlinkat(dir, name.c_str(), 0);
    }

    // Leftovers: resume records of finished or deleted runs; temporaries of dead
    // processes; signature caches no row refers to (only while no run is live, as a live
    // one may be between writing its cache and recording it).
    const std::vector<std::string> caches = store.signatureCacheFiles();
    const std::set<std::string> cached(caches.begin(), caches.end());
    // Read checkpoints (checkpoint.h) serve runs that may be resumed: kept while one is
    // live or has a resume record.
    bool resumable = false;
    const std::vector<std::string> left = namesIn(dir);
    for (const std::string& name : left) {
        if (const int64_t id = runIdOf(name, ".resume")) {
            const ProjectStore::RunState* r = findRun(id);
            resumable = resumable || (r != nullptr && r->status != "ok");
        }
    }
    for (const std::string& name : left) {
        if (const int64_t id = runIdOf(name, ".resume")) {
            const ProjectStore::RunState* r = findRun(id);
            if ((r == nullptr || r->status == "ok") && ownRegularFile(dir, name))
                ::unlinkat(dir, name.c_str(), 0);
        } else if (const int64_t pid = tempOwner(name)) {
            if (pid != ::getpid() && !livePids.contains(pid) && processGone(pid))
                removeLeftover(dir, name);
        } else if (name.rfind("signatures-", 0) == 0 && name.ends_with(".bin") &&
                   livePids.empty() && !cached.contains(name) && ownRegularFile(dir, name)) {
            ::unlinkat(dir, name.c_str(), 0);
        } else if (name.rfind("checkpoint-", 0) == 0 && livePids.empty() && !resumable &&
                   ownRegularFile(dir, name)) {
            ::unlinkat(dir, name.c_str(), 0);
        }
    }
}

}  // namespace

void recoverStaleRuns(ProjectStore& store) noexcept {
    try {
        // A refused sidecar (a link, another user's) is left exactly as it is.
        const Sidecar sidecar = Sidecar::open(store.path(), false);
        if (sidecar.valid()) recoverIn(store, sidecar);
    } catch (...) {
        // A project that cannot be written (read-only, busy, damaged) is left as it is.
    }
}

}  // namespace neardup
