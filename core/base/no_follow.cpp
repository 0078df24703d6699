// Folder sweeps that never follow a link (no_follow.h).
#include "no_follow.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace neardup {

namespace {

// Deeper trees than this are left as they are (each level holds a descriptor open); spill
// folders are one level deep.
constexpr int kMaxDepth = 32;

bool removeTreeAt(int dirFd, const std::string& name, int depth) {
    if (depth > kMaxDepth) return false;
    UniqueFd fd(::openat(dirFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return false;
    struct stat self {};
    // The folder itself must be the effective user's (checked on what was opened, so that it
    // cannot be swapped for another one after the check).
    if (depth == 0 && (::fstat(fd.get(), &self) != 0 || self.st_uid != ::geteuid())) return false;
    bool ok = true;
    for (const std::string& entry : namesIn(fd.get())) {
        struct stat st {};
        if (::fstatat(fd.get(), entry.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            // Replaced by a link since the fstatat: the O_NOFOLLOW open fails and the link
            // itself is unlinked below.
            if (removeTreeAt(fd.get(), entry, depth + 1)) continue;
            if (::unlinkat(fd.get(), entry.c_str(), 0) != 0) ok = false;
        } else if (::unlinkat(fd.get(), entry.c_str(), 0) != 0 && errno != ENOENT) {
            ok = false;
        }
    }
    return ::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR) == 0 && ok;
}

}  // namespace

std::vector<std::string> namesIn(int dirFd) {
    std::vector<std::string> names;
    const int copy = ::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (copy < 0) return names;
    DIR* d = ::fdopendir(copy);
    if (d == nullptr) {
        ::close(copy);
        return names;
    }
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

UniqueFd openFolder(const std::string& path) {
    return UniqueFd(::open(path.empty() ? "." : path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

std::string linkedSubfolderRefusal(const std::string& shown) {
    return "refusing to write into '" + shown +
           "': it is a symbolic link, and NearDup makes an output folder's subfolders itself, "
           "never through a link";
}

UniqueFd openSubfoldersNoFollow(const std::string& root, const std::string& relative) {
    UniqueFd dir = openFolder(root);
    if (!dir.valid())
        throw std::runtime_error("cannot write into '" + root + "': " + std::strerror(errno));
    std::string shown = root;
    std::size_t at = 0;
    while (at < relative.size()) {
        std::size_t end = relative.find('/', at);
        if (end == std::string::npos) end = relative.size();
        const std::string name = relative.substr(at, end - at);
        at = end + 1;
        if (name.empty() || name == ".") continue;
        shown += (shown.empty() || shown.back() == '/' ? "" : "/") + name;
        if (name == "..")
            throw std::runtime_error("cannot write into '" + shown + "': it leaves its folder");
        if (::mkdirat(dir.get(), name.c_str(), 0777) != 0 && errno != EEXIST)
            throw std::runtime_error("cannot create '" + shown + "': " + std::strerror(errno));
        UniqueFd next(
            ::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next.valid()) {
            const int error = errno;
            struct stat st {};
            if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISLNK(st.st_mode))
                throw std::runtime_error(linkedSubfolderRefusal(shown));
            throw std::runtime_error("cannot write into '" + shown + "': " + std::strerror(error));
        }
        dir = std::move(next);
    }
    return dir;
}

bool processGone(long pid) {
    return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

bool ownRegularFile(int dirFd, const std::string& name) {
    struct stat st {};
    return ::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
           st.st_uid == ::geteuid();
}

bool removeTreeNoFollow(int dirFd, const std::string& name) {
    return removeTreeAt(dirFd, name, 0);
}

}  // namespace neardup
