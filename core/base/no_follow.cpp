// Folder sweeps that never follow a link (no_follow.h).
#include "no_follow.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

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
