// AtomicFile (atomic_file.h): the temporary beside the target, its sync and its rename.
#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "unique_fd.h"

namespace neardup {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    // A device or pipe (/dev/stdout, /dev/full) is written in place: renaming a file over it
    // would replace the device node. temp_ stays empty in that case.
    if (path_ == "-") {  // standard output, written in place
        const int fd = ::dup(STDOUT_FILENO);
        file_ = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
        if (!file_) {
            if (fd >= 0) ::close(fd);
            throw std::runtime_error("cannot write to standard output: " +
                                     std::string(std::strerror(errno)));
        }
        return;
    }
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        file_ = std::fopen(path_.c_str(), "wb");
        if (!file_)
            throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
        return;
    }
    const std::filesystem::path target(path_);
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
    // Hidden and unique per process, in the target directory so that rename() stays atomic.
    std::string name = ".";
    name += target.filename().string();
    name += ".tmp-";
    name += std::to_string(::getpid());
    temp_ = (dir / name).string();
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
    static constexpr std::size_t kBuffer = std::size_t{1} << 20;
    std::setvbuf(file_, nullptr, _IOFBF, kBuffer);
}

AtomicFile::~AtomicFile() {
    if (file_) std::fclose(file_);
    if (!committed_ && !temp_.empty()) std::remove(temp_.c_str());
}

void AtomicFile::fail(const char* what) {
    const int err = errno;
    if (file_) std::fclose(file_);
    file_ = nullptr;
    if (!temp_.empty()) std::remove(temp_.c_str());
    throw std::runtime_error(std::string("cannot ") + what + " '" + path_ +
                             "': " + std::strerror(err));
}

void AtomicFile::write(std::string_view bytes) {
    if (bytes.empty()) return;
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail("write");
}

void AtomicFile::finish() {
    if (finished_) return;
    if (std::fflush(file_) != 0) fail("write");
    if (!temp_.empty() && ::fsync(::fileno(file_)) != 0) fail("sync");
    const int closed = std::fclose(file_);
    file_ = nullptr;
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
    if (temp_.empty()) return;
    const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    const UniqueFd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.valid()) ::fsync(fd.get());
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
