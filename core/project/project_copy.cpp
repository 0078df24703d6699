#include "project_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "no_follow.h"
#include "output_check.h"
#include "project_protected_files.h"
#include "project_store.h"
#include "sidecar.h"
#include "sqlite_handle.h"
#include "unique_fd.h"

namespace neardup {

namespace fs = std::filesystem;

namespace {

std::string errnoText(const std::string& what, const std::string& path) {
    return what + " '" + path + "': " + std::strerror(errno);
}

// A connection to `path` that waits for another connection's lock (five seconds).
std::unique_ptr<sql::Database> connect(const std::string& path, sql::OpenMode mode) {
    std::unique_ptr<sql::Database> db;
    try {
        db = std::make_unique<sql::Database>(path, mode);
    } catch (const StoreError& e) {
        throw StoreError("cannot open '" + path + "': " + e.what());
    }
    db->setBusyTimeout(5000);
    return db;
}

// Rows of a one-column text query.
std::vector<std::string> textColumn(const sql::Database& db, const char* sql,
                                    const std::string& path) {
    std::vector<std::string> out;
    std::optional<sql::Statement> st;
    try {
        st.emplace(db.prepare(sql));
    } catch (const StoreError&) {
        throw StoreError(path + " is not a NearDup project: " + db.errorMessage());
    }
    try {
        while (st->step())
            out.emplace_back(st->text(0));
    } catch (const StoreError&) {
        throw StoreError("cannot read '" + path + "': " + db.errorMessage());
    }
    return out;
}

void syncFile(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0 || ::fsync(fd.get()) != 0) throw StoreError(errnoText("cannot sync", path));
}

void syncDirectory(const fs::path& dir) {
    UniqueFd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() >= 0) ::fsync(fd.get());  // failure loses nothing already visible
}

// Copies a file in 1 MiB blocks (reporting progress), then syncs it. Holes stay holes: a
// signature cache that leaves its base's rows to the base's cache is mostly one, and written
// out as zeros it would take the disk the sharing saved.
void copyFile(const std::string& from, const std::string& to, uint64_t& done, uint64_t total,
              const std::function<void(uint64_t, uint64_t)>& progress) {
    UniqueFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0) throw StoreError(errnoText("cannot read", from));
    struct stat st {};
    if (::fstat(in.get(), &st) != 0) throw StoreError(errnoText("cannot read", from));
    UniqueFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (out.get() < 0) throw StoreError(errnoText("cannot create", to));
    const off_t size = st.st_size;
    std::vector<char> buffer(std::size_t{1} << 20);
    for (off_t at = 0; at < size;) {
        // The next extent of data and where it ends; where the file system cannot say, all of it.
        off_t data = ::lseek(in.get(), at, SEEK_DATA);
        if (data < 0 && errno == ENXIO) data = size;  // only a hole is left
        if (data < 0) data = at;
        off_t hole = data < size ? ::lseek(in.get(), data, SEEK_HOLE) : size;
        if (hole < 0 || hole > size) hole = size;
        for (off_t pos = data; pos < hole;) {
            const auto want =
                static_cast<std::size_t>(std::min<off_t>(hole - pos, off_t(buffer.size())));
            const ssize_t got = ::pread(in.get(), buffer.data(), want, pos);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) throw StoreError(errnoText("cannot read", from));
            for (ssize_t put = 0; put < got;) {
                const ssize_t n = ::pwrite(out.get(), buffer.data() + put,
                                           static_cast<std::size_t>(got - put), pos + put);
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) throw StoreError(errnoText("cannot write", to));
                put += n;
            }
            pos += got;
            done += static_cast<uint64_t>(got);
            if (progress) progress(std::min(done, total), total);
        }
        done += static_cast<uint64_t>(data - at);  // the hole before it, skipped
        at = hole;
    }
    if (::ftruncate(out.get(), size) != 0) throw StoreError(errnoText("cannot write", to));
    if (::fsync(out.get()) != 0) throw StoreError(errnoText("cannot sync", to));
    if (::close(out.release()) != 0) throw StoreError(errnoText("cannot close", to));
}

// The pid of a work folder ".<name>.tmp-<pid>-XXXXXX" that copyProject makes beside the target
// `name`, else 0.
long workFolderOwner(const std::string& entry, const std::string& name) {
    const std::string prefix = "." + name + ".tmp-";
    if (!entry.starts_with(prefix)) return 0;
    const std::string rest = entry.substr(prefix.size());
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || dash > 9 || rest.size() != dash + 7) return 0;
    long pid = 0;
    for (std::size_t i = 0; i < dash; ++i) {
        if (rest[i] < '0' || rest[i] > '9') return 0;
        pid = pid * 10 + (rest[i] - '0');
    }
    return pid;
}

// A file name recorded in signature_caches that stays inside the sidecar directory.
bool plainName(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

}  // namespace

ProjectCopyResult copyProject(const std::string& given, const std::string& target,
                              const std::function<void(uint64_t, uint64_t)>& progress) {
    const std::string source = projectFile(given);  // its sidecar is beside the file itself
    if (source.empty() || source == ":memory:")
        throw StoreError("an in-memory project has no file");
    if (target.empty() || target == ":memory:")
        throw StoreError("cannot copy a project to '" + target + "'");
    std::error_code ec;
    if (!fs::is_regular_file(source, ec)) throw StoreError("no project file '" + source + "'");
    if (fs::weakly_canonical(source, ec) == fs::weakly_canonical(target, ec) ||
        (fs::exists(target, ec) && fs::equivalent(source, target, ec)))
        throw StoreError("'" + target + "' is the project itself");
    if (fs::is_directory(target, ec)) throw StoreError("'" + target + "' is a directory");

    // The copy replaces `target`: never an input of one of the project's datasets, nor anything
    // in a dataset folder they read or in the project's sidecar (output_check.h).
    {
        const ProjectStore store(source, ProjectStore::Mode::ReadOnly);
        if (const std::string problem =
                outputProblem({{"the copy", target}}, {}, protectedFiles(store));
            !problem.empty())
            throw StoreError(problem);
    }
    const std::unique_ptr<sql::Database> src = connect(source, sql::OpenMode::ReadOnly);
    {
        const auto format = textColumn(*src, "SELECT value FROM meta WHERE key = 'format'", source);
        if (format.size() != 1 || format[0] != "neardup-project")
            throw StoreError(source + " is not a NearDup project");
    }
    std::vector<std::string> cached = textColumn(
        *src, "SELECT path FROM signature_caches WHERE path IS NOT NULL ORDER BY path", source);
    // Resume records of interrupted runs (run_record_file.h), so `neardup run --resume` works on
    // the copy too; locks and spill directories belong to live processes of the source.
    for (fs::directory_iterator it(source + ".d", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("run-", 0) == 0 && name.size() > 7 &&
            name.compare(name.size() - 7, 7, ".resume") == 0 && it->is_regular_file(ec))
            cached.push_back(name);
    }
    ec.clear();

    // Everything is made in a work folder of this process beside the target (mkdtemp: a new
    // name, mode 0700), so that no name another user may have planted in the target's folder
    // is ever opened or followed; its contents are renamed into place, and it is removed
    // without following links. Work folders that dead processes left for this target go first.
    const fs::path targetPath(target);
    const fs::path dir = targetPath.has_parent_path() ? targetPath.parent_path() : fs::path(".");
    const std::string targetName = targetPath.filename().string();
    const UniqueFd dirFd = openFolder(dir.string());
    if (!dirFd.valid()) throw StoreError(errnoText("cannot open the folder of", target));
    for (const std::string& entry : namesIn(dirFd.get())) {
        const long pid = workFolderOwner(entry, targetName);
        if (pid != 0 && pid != ::getpid() && processGone(pid))
            removeTreeNoFollow(dirFd.get(), entry);
    }
    std::string work =
        (dir / ("." + targetName + ".tmp-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (::mkdtemp(work.data()) == nullptr)
        throw StoreError(errnoText("cannot create a work folder beside", target));
    const std::string workName = fs::path(work).filename().string();
    const std::string tempDb = work + "/project.ndw";
    const std::string sidecar = target + ".d";
    const std::string tempSidecar = work + "/sidecar";
    const std::string sourceSidecar = source + ".d";

    // Sizes first, for the progress total.
    std::vector<std::pair<std::string, uint64_t>> files;
    ProjectCopyResult result;
    for (const std::string& name : cached) {
        if (!plainName(name)) continue;
        const fs::path p = fs::path(sourceSidecar) / name;
        const auto size = fs::file_size(p, ec);
        if (ec) continue;  // a missing cache file is only a missing cache
        files.emplace_back(name, size);
        result.sidecarBytes += size;
    }
    const auto dbSize = fs::file_size(source, ec);
    const uint64_t total = (ec ? 0 : dbSize) + result.sidecarBytes;
    uint64_t done = 0;

    auto cleanUp = [&] { removeTreeNoFollow(dirFd.get(), workName); };
    try {
        {
            const std::unique_ptr<sql::Database> dst = connect(tempDb, sql::OpenMode::Create);
            dst->exec("PRAGMA synchronous = FULL");
            int pages = 0;
            std::string failure;
            {
                sql::Backup backup(*dst, *src);
                sql::Backup::Step step;
                int busy = 0;
                // 1024 pages (4 MiB at the default page size) per step; a write by another
                // connection between steps restarts the copy, so the result is one snapshot.
                while ((step = backup.step(1024)) == sql::Backup::Step::More ||
                       step == sql::Backup::Step::Busy) {
                    if (step == sql::Backup::Step::Busy) {
                        if (++busy > 500) break;  // ten seconds locked by another connection
                        std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    } else {
                        busy = 0;
                    }
                    if (progress) {
                        const int all = backup.pageCount();
                        const int left = backup.remaining();
                        if (all > 0)
                            progress(uint64_t(double(dbSize) * double(all - left) / double(all)),
                                     total);
                    }
                }
                pages = backup.pageCount();
                if (step != sql::Backup::Step::Done) failure = backup.error();
            }
            if (!failure.empty())
                throw StoreError("cannot copy '" + source + "' to '" + tempDb + "': " + failure);
            const int64_t pageSize = dst->queryInt("PRAGMA page_size");
            result.databaseBytes = uint64_t(pages) * uint64_t(pageSize);
        }
        syncFile(tempDb);
        done = dbSize;
        if (progress) progress(done, total);

        if (!files.empty()) {
            if (::mkdir(tempSidecar.c_str(), 0755) != 0)
                throw StoreError(errnoText("cannot create", tempSidecar));
            for (const auto& [name, size] : files) {
                copyFile((fs::path(sourceSidecar) / name).string(),
                         (fs::path(tempSidecar) / name).string(), done, total, progress);
                ++result.sidecarFiles;
            }
            syncDirectory(tempSidecar);
        }

        // Into place: the database, then the cache. An old sidecar of the target belongs to the
        // database being replaced; it goes first so no stale file can pass for the new cache.
        if (::rename(tempDb.c_str(), target.c_str()) != 0)
            throw StoreError(errnoText("cannot rename to", target));
        // The old sidecar (or whatever has its name, a link included) is moved into the work
        // folder, which is then removed without following anything in it.
        struct stat old {};
        if (::lstat(sidecar.c_str(), &old) == 0 &&
            ::rename(sidecar.c_str(), (work + "/old-sidecar").c_str()) != 0)
            throw StoreError(errnoText("cannot replace", sidecar));
        if (!files.empty() && ::rename(tempSidecar.c_str(), sidecar.c_str()) != 0)
            throw StoreError(errnoText("cannot rename to", sidecar));
        syncDirectory(dir);
    } catch (...) {
        cleanUp();
        throw;
    }
    cleanUp();
    return result;
}

}  // namespace neardup
