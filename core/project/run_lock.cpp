#include "run_lock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "atomic_file.h"
#include "json_text.h"
#include "no_follow.h"
#include "project_store.h"
#include "run_failures.h"
#include "sidecar.h"
#include "unique_fd.h"

namespace neardup {

namespace {

constexpr const char* kSweepLock = "sweep.lock";
constexpr const char* kPendingPrefix = "run-pending-";
constexpr const char* kResumingSuffix = ".resuming";

bool inMemory(const std::string& path) {
    return path.empty() || path == ":memory:";
}

// Every file of the sidecar is opened relative to its descriptor and never through a link.
UniqueFd openIn(int dirFd, const std::string& name, int flags, mode_t mode = 0) {
    return UniqueFd(::openat(dirFd, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode));
}

// The project-wide lock that serializes creating, naming and recovering run locks. Blocking:
// every holder keeps it for one small SQLite write at most.
UniqueFd lockSweep(int dirFd) {
    UniqueFd fd = openIn(dirFd, kSweepLock, O_RDWR | O_CREAT, 0644);
    if (fd.get() < 0) return fd;
    while (::flock(fd.get(), LOCK_EX) != 0) {
        if (errno != EINTR) return UniqueFd();
    }
    return fd;
}

bool writeWhole(int fd, const std::string& text) {
    if (::ftruncate(fd, 0) != 0) return false;
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n =
            ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return ::fsync(fd) == 0;
}

std::string readWhole(int fd) {
    std::string text;
    char buf[4096];
    off_t at = 0;
    for (;;) {
        const ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        at += n;
    }
    return text;
}

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

// The lock file's content; it becomes the resume record.
struct LockContent {
    int64_t pid = 0;
    int64_t runId = 0;
    std::string startedAt;
    std::vector<std::string> inputs;
    std::vector<std::string> references;
    RunParams params;
};

std::string encode(const LockContent& c) {
    std::string s = "{\"format\":1,\"pid\":" + std::to_string(c.pid) +
                    ",\"run\":" + std::to_string(c.runId) +
                    ",\"started_at\":" + json::quote(c.startedAt) + ",\"inputs\":[";
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
        if (i) s += ',';
        json::appendString(s, c.inputs[i]);
    }
    s += ']';
    // Written only for a run against a reference, so that other records stay as they were.
    if (!c.references.empty()) {
        s += ",\"references\":[";
        for (std::size_t i = 0; i < c.references.size(); ++i) {
            if (i) s += ',';
            json::appendString(s, c.references[i]);
        }
        s += ']';
    }
    const RunParams& p = c.params;
    s += ",\"on_error\":";
    s += p.reader.onError == OnError::Fail ? "\"fail\"" : "\"skip\"";
    s += ",\"chunk_bytes\":" + std::to_string(p.reader.chunkBytes);
    s += ",\"memory_budget\":" + std::to_string(p.memoryBudget);
    s += ",\"work_dir\":" + json::quote(p.workDir);
    s += ",\"params\":" + toJson(p) + "}\n";
    return s;
}

template <typename T>
bool get(simdjson::dom::object o, const char* key, T& out) {
    return o[key].get(out) == simdjson::SUCCESS;
}

bool decodeParams(simdjson::dom::object o, RunParams& p) {
    std::string_view text;
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    bool b = false;
    if (!get(o, "text_field", text)) return false;
    p.reader.textField = std::string(text);
    if (!get(o, "id_field", text)) return false;
    p.reader.idField = std::string(text);
    simdjson::dom::object n;
    if (!get(o, "normalize", n)) return false;
    if (get(n, "nfc", b)) p.signature.normalize.nfc = b;
    if (get(n, "lowercase", b)) p.signature.normalize.lowercase = b;
    if (get(n, "collapse_whitespace", b)) p.signature.normalize.collapseWhitespace = b;
    if (get(n, "trim", b)) p.signature.normalize.trim = b;
    if (!get(o, "shingle", text)) return false;
    const auto shingle = parseShingleKind(std::string(text));
    if (!shingle) return false;
    p.signature.shingle = *shingle;
    if (get(o, "ngram", i)) p.signature.ngram = static_cast<int>(i);
    if (get(o, "hashes", i)) p.signature.hashes = static_cast<int>(i);
    if (get(o, "hash", text)) {
        const auto family = parseHashFamily(std::string(text));
        if (!family) return false;
        p.signature.family = *family;
    }
    // A lock written before the one-permutation sketch existed names none: those runs were
    // classic, whatever today's default is.
    p.signature.sketch = SketchKind::Classic;
    if (get(o, "sketch", text)) {
        const auto sketch = parseSketchKind(std::string(text));
        if (!sketch) return false;
        p.signature.sketch = *sketch;
    }
    if (get(o, "seed", u)) p.signature.seed = u;
    if (get(o, "bands", i)) p.lsh.bands = static_cast<int>(i);
    if (get(o, "rows", i)) p.lsh.rows = static_cast<int>(i);
    if (get(o, "bucket_key", text)) {
        const auto scheme = parseBandKeyScheme(std::string(text));
        if (!scheme) return false;
        p.lsh.scheme = *scheme;
    }
    if (get(o, "buckets", text) &&
        !parseBuckets(std::string(text), p.lsh.bucketMode, p.lsh.buckets))
        return false;
    if (get(o, "threshold", d)) p.compare.threshold = d;
    if (get(o, "store_floor", d)) p.compare.storeFloor = d;
    if (get(o, "verify", text)) {
        const auto verify = parseVerifyMode(std::string(text));
        if (!verify) return false;
        p.compare.verify = *verify;
    }
    if (get(o, "keep", text) && !parseKeepPolicy(std::string(text), p.keep, p.reader.keepField))
        return false;
    if (get(o, "threads", i)) p.threads = static_cast<int>(i);
    if (get(o, "backend", text)) p.backend = std::string(text);
    return true;
}

bool decode(const std::string& text, LockContent& c) {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (parser.parse(text).get(o) != simdjson::SUCCESS) return false;
    int64_t format = 0;
    if (!get(o, "format", format) || format != 1) return false;
    get(o, "pid", c.pid);
    get(o, "run", c.runId);
    std::string_view sv;
    if (get(o, "started_at", sv)) c.startedAt = std::string(sv);
    simdjson::dom::array inputs;
    if (!get(o, "inputs", inputs)) return false;
    for (simdjson::dom::element e : inputs) {
        if (e.get(sv) != simdjson::SUCCESS) return false;
        c.inputs.emplace_back(sv);
    }
    simdjson::dom::array references;
    if (get(o, "references", references))
        for (simdjson::dom::element e : references) {
            if (e.get(sv) != simdjson::SUCCESS) return false;
            c.references.emplace_back(sv);
        }
    simdjson::dom::object params;
    if (!get(o, "params", params) || !decodeParams(params, c.params)) return false;
    if (get(o, "on_error", sv))
        c.params.reader.onError = sv == "fail" ? OnError::Fail : OnError::Skip;
    uint64_t u = 0;
    if (get(o, "chunk_bytes", u) && u > 0) c.params.reader.chunkBytes = static_cast<std::size_t>(u);
    if (get(o, "memory_budget", u)) c.params.memoryBudget = u;
    if (get(o, "work_dir", sv)) c.params.workDir = std::string(sv);
    return true;
}

// "run-<digits><suffix>" -> the number, else 0.
int64_t runIdOf(const std::string& name, const std::string& suffix) {
    if (name.rfind("run-", 0) != 0 || name.size() <= 4 + suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return 0;
    const std::string digits = name.substr(4, name.size() - 4 - suffix.size());
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        return 0;
    return std::stoll(digits);
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

std::string resumeName(int64_t runId) {
    return "run-" + std::to_string(runId) + ".resume";
}

// Locks held by RunLocks of this process, by store, for noteRecorded().
std::mutex gRegistryMutex;
std::vector<std::pair<const ProjectStore*, RunLock*>> gRegistry;

std::atomic<uint64_t> gSequence{0};

}  // namespace

bool paramsFromJson(const std::string& json, RunParams& out) {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (parser.parse(json).get(o) != simdjson::SUCCESS) return false;
    RunParams p;
    if (!decodeParams(o, p)) return false;
    out = std::move(p);
    return true;
}

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
    LockContent c;
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

namespace {

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
            LockContent c;
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
        LockContent c;
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
        LockContent c;
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
