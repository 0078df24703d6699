// AtomicFile (atomic_file.h): the temporary beside the target, its sync and its rename.
#include "atomic_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "no_follow.h"

namespace neardup {

namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
// Written behind in windows of this size; the window kLagWindows back is waited for and
// dropped, so at most that many windows of the file are dirty or in flight at a time.
constexpr uint64_t kWindowBytes = uint64_t{8} << 20;
constexpr uint64_t kLagWindows = 4;
// Names tried before giving up: each after the first carries 32 random bits, so only a
// folder that someone fills as fast as we try could exhaust them.
constexpr int kNameAttempts = 64;
constexpr std::size_t kSuffixDigits = 8;

// The folder of `path` and its name there.
std::pair<std::string, std::string> splitPath(const std::string& path) {
    const std::filesystem::path target(path);
    return {target.has_parent_path() ? target.parent_path().string() : std::string("."),
            target.filename().string()};
}

// The temporary's name for target `name`: hidden, with this process's id, and from the second
// attempt on a random suffix. In the target's folder, so that rename() stays atomic.
std::string temporaryName(const std::string& name, int attempt) {
    std::string temp = "." + name + ".tmp-" + std::to_string(::getpid());
    if (attempt == 0) return temp;
    uint32_t bits = 0;
    if (::getrandom(&bits, sizeof bits, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bits))
        bits = static_cast<uint32_t>(std::random_device{}());
    char digits[kSuffixDigits + 1];
    std::snprintf(digits, sizeof digits, "%08x", bits);
    return temp + "-" + digits;
}

// The permission bits a file created with mode 0666 gets here: what the temporary (0600 while
// written) is given before it takes the target's name. Read from /proc, not with umask(), which
// would change it for a moment under the other threads' feet.
mode_t publishedMode() {
    static const mode_t mode = [] {
        std::ifstream status("/proc/self/status");
        std::string line;
        while (std::getline(status, line)) {
            if (line.rfind("Umask:", 0) == 0)
                return static_cast<mode_t>(0666 & ~std::stoul(line.substr(6), nullptr, 8));
        }
        return static_cast<mode_t>(0644);  // no /proc: the usual umask 022
    }();
    return mode;
}

// `name` as a temporary this process may have made for `target`: exactly "." + target +
// ".tmp-" then the owner's id (and a suffix), else 0.
long temporaryOwnerFor(std::string_view name, std::string_view target) {
    if (name.size() <= target.size() + 6 || name[0] != '.' ||
        name.compare(1, target.size(), target) != 0 ||
        name.compare(1 + target.size(), 5, ".tmp-") != 0)
        return 0;
    return tempFileOwner(name);
}

}  // namespace

void syncDirectoryOf(const std::string& path) {
    const UniqueFd fd = openFolder(splitPath(path).first);
    if (fd.valid()) ::fsync(fd.get());
}

int sweepDeadTemporaries(int dirFd, std::string_view name) {
    int removed = 0;
    const std::string prefix = "." + std::string(name) + ".tmp-";
    for (const std::string& entry : namesIn(dirFd)) {
        if (!entry.starts_with(prefix)) continue;
        const long pid = temporaryOwnerFor(entry, name);
        if (pid == 0 || pid == ::getpid() || !processGone(pid)) continue;
        // A link or another user's file under such a name was not made by this program.
        if (!ownRegularFile(dirFd, entry)) continue;
        if (::unlinkat(dirFd, entry.c_str(), 0) == 0) ++removed;
    }
    return removed;
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
        openInPlace(path_.c_str());
        return;
    }
    auto [dir, name] = splitPath(path_);
    dir_ = openFolder(dir);
    if (!dir_.valid())
        throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
    name_ = std::move(name);
    createTemporary();
}

AtomicFile::AtomicFile(int dirFd, std::string name, std::string shown)
    : path_(std::move(shown)), name_(std::move(name)) {
    dir_.reset(::fcntl(dirFd, F_DUPFD_CLOEXEC, 0));
    if (!dir_.valid())
        throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
    createTemporary();
}

void AtomicFile::openInPlace(const char* path) {
    fd_ = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
    buffer_ = std::make_unique<char[]>(kBufferBytes);
}

void AtomicFile::createTemporary() {
    sweepDeadTemporaries(dir_.get(), name_);
    for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
        std::string temp = temporaryName(name_, attempt);
        // O_EXCL: a name that exists, a link included, is never opened (nor followed, nor
        // truncated). 0600 until finish(): nobody else reads a half-written file.
        fd_ = ::openat(dir_.get(), temp.c_str(),
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd_ >= 0) {
            temp_ = std::move(temp);
            break;
        }
        if (errno != EEXIST) break;
    }
    if (fd_ < 0) throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) == 0) {
        tempDev_ = static_cast<uint64_t>(st.st_dev);
        tempIno_ = static_cast<uint64_t>(st.st_ino);
    }
    buffer_ = std::make_unique<char[]>(kBufferBytes);
    writeBehind_ = true;
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !temp_.empty()) ::unlinkat(dir_.get(), temp_.c_str(), 0);
}

void AtomicFile::fail(const char* what) {
    const int err = errno;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!temp_.empty()) ::unlinkat(dir_.get(), temp_.c_str(), 0);
    temp_.clear();
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
    if (!temp_.empty()) {
        if (::fchmod(fd_, publishedMode()) != 0) fail("write");
        if (::fsync(fd_) != 0) fail("sync");
    }
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) fail("close");
    finished_ = true;
}

void AtomicFile::commit() {
    finish();
    if (!temp_.empty()) {
        // In a folder that others may write, the temporary's name can be given to another file
        // while it is written: only the file written here is renamed.
        struct stat st {};
        if (::fstatat(dir_.get(), temp_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            fail("rename into");
        if (static_cast<uint64_t>(st.st_dev) != tempDev_ ||
            static_cast<uint64_t>(st.st_ino) != tempIno_) {
            temp_.clear();  // not ours to remove
            throw std::runtime_error("cannot rename into '" + path_ +
                                     "': its temporary file was replaced by another process");
        }
        if (::renameat(dir_.get(), temp_.c_str(), dir_.get(), name_.c_str()) != 0)
            fail("rename into");
    }
    committed_ = true;
}

void AtomicFile::commitDurably() {
    commit();
    // A failed directory sync is ignored: it loses nothing already visible.
    if (!temp_.empty()) ::fsync(dir_.get());
}

bool linkDurably(int fd, const std::string& path) {
    // An anonymous file is named through its /proc link; linkat() cannot replace a name (nor
    // does it follow one), so it gets a temporary's name first (which the sweep of dead
    // processes' files recognises), is synced once it is known to be linkable, and is then
    // renamed over `path`.
    const auto [dirPath, name] = splitPath(path);
    const UniqueFd dir = openFolder(dirPath);
    if (!dir.valid()) return false;
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    std::string temp;
    for (int attempt = 0; attempt < kNameAttempts && temp.empty(); ++attempt) {
        std::string candidate = temporaryName(name, attempt);
        if (::linkat(AT_FDCWD, self.c_str(), dir.get(), candidate.c_str(), AT_SYMLINK_FOLLOW) == 0)
            temp = std::move(candidate);
        else if (errno != EEXIST)
            return false;
    }
    if (temp.empty()) return false;
    if (::fdatasync(fd) != 0 || ::renameat(dir.get(), temp.c_str(), dir.get(), name.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlinkat(dir.get(), temp.c_str(), 0);
        throw std::runtime_error("cannot write '" + path + "': " + why);
    }
    ::fsync(dir.get());
    return true;
}

long tempFileOwner(std::string_view fileName) {
    static constexpr std::string_view kTemp = ".tmp-";
    if (!fileName.starts_with('.')) return 0;
    const auto at = fileName.rfind(kTemp);
    if (at == std::string_view::npos || at == 0) return 0;
    std::string_view digits = fileName.substr(at + kTemp.size());
    if (const auto dash = digits.find('-'); dash != std::string_view::npos) {
        const std::string_view suffix = digits.substr(dash + 1);
        if (suffix.size() != kSuffixDigits ||
            suffix.find_first_not_of("0123456789abcdef") != std::string_view::npos)
            return 0;
        digits = digits.substr(0, dash);
    }
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
