// AtomicFile (atomic_file.h): the temporary beside the target, its sync and its rename.
#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "unique_fd.h"

namespace neardup {

namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
// Written behind in windows of this size; the window kLagWindows back is waited for and
// dropped, so at most that many windows of the file are dirty or in flight at a time.
constexpr uint64_t kWindowBytes = uint64_t{8} << 20;
constexpr uint64_t kLagWindows = 4;

// Hidden and unique per process, in the target directory so that rename() stays atomic.
std::string temporaryNameFor(const std::string& path) {
    const std::filesystem::path target(path);
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
    std::string name = ".";
    name += target.filename().string();
    name += ".tmp-";
    name += std::to_string(::getpid());
    return (dir / name).string();
}

}  // namespace

void syncDirectoryOf(const std::string& path) {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    const UniqueFd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.valid()) ::fsync(fd.get());
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    // A device or pipe (/dev/stdout, /dev/full) is written in place: renaming a file over it
    // would replace the device node. temp_ stays empty in that case.
    if (path_ == "-") {  // standard output, written in place
        fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
        if (fd_ < 0)
            throw std::runtime_error("cannot write to standard output: " +
                                     std::string(std::strerror(errno)));
        buffer_ = std::make_unique<char[]>(kBufferBytes);
        return;
    }
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        open(path_.c_str(), false);
        return;
    }
    temp_ = temporaryNameFor(path_);
    open(temp_.c_str(), true);
}

void AtomicFile::open(const char* path, bool writeBehind) {
    fd_ = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
    buffer_ = std::make_unique<char[]>(kBufferBytes);
    writeBehind_ = writeBehind;
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !temp_.empty()) std::remove(temp_.c_str());
}

void AtomicFile::fail(const char* what) {
    const int err = errno;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!temp_.empty()) std::remove(temp_.c_str());
    throw std::runtime_error(std::string("cannot ") + what + " '" + path_ +
                             "': " + std::strerror(err));
}

void AtomicFile::writeAll(const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd_, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write");
        }
        data += n;
        size -= static_cast<std::size_t>(n);
        handed_ += static_cast<uint64_t>(n);
    }
}

void AtomicFile::write(std::string_view bytes) {
    if (fd_ < 0) {
        errno = EBADF;
        fail("write");
    }
    if (bytes.empty()) return;  // its data() may be null, which memcpy must never be given
    if (used_ + bytes.size() <= kBufferBytes) {
        std::memcpy(buffer_.get() + used_, bytes.data(), bytes.size());
        used_ += bytes.size();
        return;
    }
    flush();
    if (bytes.size() >= kBufferBytes) {  // large pieces skip the copy
        writeAll(bytes.data(), bytes.size());
        writeBehind();
        return;
    }
    std::memcpy(buffer_.get(), bytes.data(), bytes.size());
    used_ = bytes.size();
}

void AtomicFile::flush() {
    writeAll(buffer_.get(), used_);
    used_ = 0;
    writeBehind();
}

void AtomicFile::writeBehind() {
#ifdef __linux__
    while (writeBehind_ && handed_ - started_ >= kWindowBytes) {
        if (::sync_file_range(fd_, static_cast<off_t>(started_), kWindowBytes,
                              SYNC_FILE_RANGE_WRITE) != 0) {
            // A file system or kernel without it: written as any file is.
            if (errno == EINVAL || errno == ENOSYS || errno == ESPIPE || errno == EOPNOTSUPP) {
                writeBehind_ = false;
                return;
            }
            fail("write");
        }
        started_ += kWindowBytes;
        if (started_ < kLagWindows * kWindowBytes) continue;
        const auto old = static_cast<off_t>(started_ - kLagWindows * kWindowBytes);
        // Waiting reports the window's write errors here, and takes them from the later
        // fsync(): they must fail the write now.
        if (::sync_file_range(fd_, old, kWindowBytes,
                              SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                  SYNC_FILE_RANGE_WAIT_AFTER) != 0)
            fail("write");
        ::posix_fadvise(fd_, old, static_cast<off_t>(kWindowBytes), POSIX_FADV_DONTNEED);
    }
#endif
}

void AtomicFile::finish() {
    if (finished_) return;
    flush();
    if (!temp_.empty() && ::fsync(fd_) != 0) fail("sync");
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) fail("close");
    finished_ = true;
}

void AtomicFile::commit() {
    finish();
    if (!temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) fail("rename into");
    committed_ = true;
}

void AtomicFile::commitDurably() {
    commit();
    if (!temp_.empty()) syncDirectoryOf(path_);
}

bool linkDurably(int fd, const std::string& path) {
    // An anonymous file is named through its /proc link; linkat() cannot replace a name, so it
    // gets the temporary's first (which the sweep of dead processes' files recognises), is
    // synced once it is known to be linkable, and is then renamed over `path`.
    const std::string temp = temporaryNameFor(path);
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    ::unlink(temp.c_str());  // left by an earlier attempt of this process
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) != 0)
        return false;
    if (::fdatasync(fd) != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(temp.c_str());
        throw std::runtime_error("cannot write '" + path + "': " + why);
    }
    syncDirectoryOf(path);
    return true;
}

long tempFileOwner(std::string_view fileName) {
    static constexpr std::string_view kTemp = ".tmp-";
    if (!fileName.starts_with('.')) return 0;
    const auto at = fileName.rfind(kTemp);
    if (at == std::string_view::npos || at == 0) return 0;
    const std::string_view digits = fileName.substr(at + kTemp.size());
    if (digits.empty() || digits.size() > 9) return 0;
    long pid = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9') return 0;
        pid = pid * 10 + (c - '0');
    }
    return pid;
}

AtomicFileStream::AtomicFileStream(std::string path)
    : std::ostream(nullptr), file_(std::move(path)), buffer_(file_) {
    rdbuf(&buffer_);
    exceptions(std::ios::badbit);  // rethrows the AtomicFile's error, message and all
}

void AtomicFileStream::commit() {
    flush();
    file_.commit();
}

AtomicFileStream::Buffer::int_type AtomicFileStream::Buffer::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    file_.write(std::string_view(&ch, 1));
    return c;
}

std::streamsize AtomicFileStream::Buffer::xsputn(const char* s, std::streamsize n) {
    file_.write(std::string_view(s, static_cast<std::size_t>(n)));
    return n;
}

}  // namespace neardup
