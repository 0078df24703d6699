#include "spill_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "atomic_file.h"
#include "no_follow.h"

namespace neardup {

namespace {

std::string errnoText(const std::string& what, const std::string& path) {
    return what + " " + path + ": " + std::strerror(errno);
}

}  // namespace

WorkDir::WorkDir(std::string parent) : parent_(std::move(parent)) {}

WorkDir::~WorkDir() {
    remove();
}

const std::string& WorkDir::path() {
    if (!path_.empty()) return path_;
    std::error_code ec;
    std::filesystem::create_directories(parent_, ec);
    if (ec)
        throw std::runtime_error("cannot create the work directory " + parent_ + ": " +
                                 ec.message());
    std::string templ = parent_ + "/work-" + std::to_string(::getpid()) + "-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr)
        throw std::runtime_error(errnoText("cannot create a work directory in", parent_));
    path_.assign(buf.data());
    return path_;
}

void WorkDir::remove() noexcept {
    if (path_.empty()) return;
    // Through the parent's descriptor and without following a link: the name may have been
    // replaced since mkdtemp() made it.
    const UniqueFd parent = openFolder(parent_);
    if (parent.valid())
        removeTreeNoFollow(parent.get(), std::filesystem::path(path_).filename().string());
    path_.clear();
}

SpillFile::SpillFile(WorkDir& dir, const std::string& name, Kind kind) : dir_(dir) {
    name_ = dir.path() + "/" + name;
    if (kind == Kind::Keepable) {
        // Readable by whoever can read the project once it becomes the project's file.
        fd_ = ::open(dir.path().c_str(), O_RDWR | O_TMPFILE | O_CLOEXEC, 0644);
        anonymous_ = fd_ >= 0;
        if (anonymous_) return;
    }
    fd_ = ::open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd_ < 0) throw std::runtime_error(errnoText("cannot create the spill file", name_));
    // From here on the file exists only through fd_: it disappears when closed, whatever
    // happens to the process.
    ::unlink(name_.c_str());
}

SpillFile::~SpillFile() {
    if (fd_ >= 0) ::close(fd_);
}

void SpillFile::append(const void* data, std::size_t bytes) {
    writeAt(size_, data, bytes);
    size_ += bytes;
    dir_.addWritten(bytes);
}

void readExactlyAt(int fd, uint64_t offset, void* out, std::size_t bytes, const std::string& what) {
    auto* p = static_cast<char*>(out);
    while (bytes > 0) {
        const std::size_t chunk = std::min<std::size_t>(bytes, std::size_t{1} << 30);
        const ssize_t n = ::pread(fd, p, chunk, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(errnoText("cannot read", what));
        if (n == 0) throw std::runtime_error(what + " is shorter than expected");
        p += n;
        offset += static_cast<uint64_t>(n);
        bytes -= static_cast<std::size_t>(n);
    }
}

void SpillFile::readAt(uint64_t offset, void* out, std::size_t bytes) const {
    readExactlyAt(fd_, offset, out, bytes, "the spill file " + name_);
}

void SpillFile::writeAt(uint64_t offset, const void* data, std::size_t bytes) {
    const auto* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::pwrite(fd_, p, std::min<std::size_t>(bytes, std::size_t{1} << 30),
                                   static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(errnoText("cannot write the spill file", name_));
        }
        p += n;
        offset += static_cast<uint64_t>(n);
        bytes -= static_cast<std::size_t>(n);
    }
}

bool SpillFile::linkAs(const std::string& path) {
    return anonymous_ && linkDurably(fd_, path);
}

void SpillFile::truncate() {
    if (::ftruncate(fd_, 0) != 0)
        throw std::runtime_error(errnoText("cannot truncate the spill file", name_));
    size_ = 0;
}

}  // namespace neardup
