// The sidecar folder, opened without following a link and checked on its descriptor (sidecar.h).
#include "sidecar.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace neardup {

namespace {

bool inMemory(const std::string& path) {
    return path.empty() || path == ":memory:";
}

std::string refusal(const std::string& path, const std::string& why, const std::string& fix) {
    return "refusing the project's sidecar folder '" + path + "': " + why +
           ", and NearDup writes its caches and run records only into a folder of its own: " + fix;
}

// Why the entry at `path` (not followed) is no sidecar to use, or "".
std::string whatIsWrong(const std::string& path, const struct stat& st) {
    if (S_ISLNK(st.st_mode)) {
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(path, ec);
        return refusal(
            path,
            "it is a symbolic link" + (ec ? std::string() : " (to '" + target.string() + "')"),
            "remove the link, or move the folder it points to in its place");
    }
    if (!S_ISDIR(st.st_mode))
        return refusal(path, "it is not a folder", "move it away (a run creates the folder)");
    if (st.st_uid != ::geteuid())
        return refusal(path, "it belongs to another user (uid " + std::to_string(st.st_uid) + ")",
                       "work on a copy of the project (the workbench's Save As), or as its owner");
    return {};
}

}  // namespace

std::string projectFile(const std::string& given) {
    std::error_code ec;
    if (given.empty() || given == ":memory:" || !std::filesystem::is_symlink(given, ec))
        return given;
    const std::filesystem::path target = std::filesystem::canonical(given, ec);
    return ec ? given : target.string();
}

Sidecar Sidecar::open(const std::string& projectPath, bool create) {
    Sidecar s;
    if (inMemory(projectPath)) return s;
    const std::string path = projectPath + ".d";
    for (int attempt = 0; attempt < 2; ++attempt) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            UniqueFd owned(fd);
            struct stat st {};
            if (::fstat(fd, &st) != 0)
                throw StoreError("cannot open '" + path + "': " + std::strerror(errno));
            if (std::string problem = whatIsWrong(path, st); !problem.empty())
                throw SidecarRefused(problem);
            s.path_ = path;
            s.fd_ = std::move(owned);
            return s;
        }
        const int err = errno;
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0) {
            if (std::string problem = whatIsWrong(path, st); !problem.empty())
                throw SidecarRefused(problem);
            throw StoreError("cannot open '" + path + "': " + std::strerror(err));
        }
        if (errno != ENOENT)
            throw StoreError("cannot open '" + path + "': " + std::strerror(errno));
        if (!create) return s;
        // mkdir() never follows a link at the name: a link planted since is found above on
        // the next attempt.
        if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
            throw StoreError("cannot create '" + path + "': " + std::strerror(errno));
    }
    throw StoreError("cannot open '" + path + "': it keeps changing");
}

std::string sidecarProblem(const std::string& projectPath) {
    if (inMemory(projectPath)) return {};
    const std::string path = projectPath + ".d";
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return {};
    return whatIsWrong(path, st);
}

}  // namespace neardup
