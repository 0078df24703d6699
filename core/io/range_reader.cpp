// RangeReader: reading byte ranges of input lines back (exports, exact verification).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "byte_stream.h"
#include "input_pin.h"
#include "jsonl_reader.h"

namespace neardup {

namespace {

constexpr std::size_t kSkipBufferBytes = std::size_t{256} << 10;

[[noreturn]] void throwShort(const InputFile& f, uint64_t offset, uint32_t length) {
    throw InputError("cannot read bytes " + std::to_string(offset) + ".." +
                     std::to_string(offset + length) + " of '" + f.path +
                     "': the file is shorter (changed since it was read?)");
}

}  // namespace

struct RangeReader::Impl {
    std::vector<InputFile> files;
    // Plain files: one descriptor, kept while requests stay in the same file.
    int fd = -1;
    uint32_t fdFile = 0;
    // Compressed files: a forward-only stream.
    ByteStream stream;
    uint32_t streamFile = 0;
    bool streamValid = false;
    std::string skip;
    std::vector<uint8_t> pinChecked;  // per file: its pin was checked (input_pin.h)

    // Before the first bytes of a file are used: is it the file they were read from?
    void checkPin(uint32_t file) {
        if (pinChecked[file]) return;
        if (const std::string problem = pinProblem(files[file]); !problem.empty())
            throw InputError(problem);
        pinChecked[file] = 1;
    }

    ~Impl() {
        if (fd >= 0) ::close(fd);
    }

    void openPlain(uint32_t file) {
        if (fd >= 0 && fdFile == file) return;
        if (fd >= 0) ::close(fd);
        fd = ::open(files[file].path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throwCannotRead(files[file].path, errno);
        fdFile = file;
    }

    void readPlain(uint32_t file, uint64_t offset, uint32_t length, char* dst) {
        openPlain(file);
        std::size_t done = 0;
        while (done < length) {
            const ssize_t got =
                ::pread(fd, dst + done, length - done, static_cast<off_t>(offset + done));
            if (got < 0) {
                if (errno == EINTR) continue;
                throwCannotRead(files[file].path, errno);
            }
            if (got == 0) throwShort(files[file], offset, length);
            done += static_cast<std::size_t>(got);
        }
    }

    void readCompressed(uint32_t file, uint64_t offset, uint32_t length, char* dst) {
        if (!streamValid || streamFile != file || stream.position() > offset) {
            streamValid = false;
            stream.open(files[file]);
            streamFile = file;
            streamValid = true;
        }
        if (skip.empty()) skip.resize(kSkipBufferBytes);
        while (stream.position() < offset) {
            const uint64_t gap = offset - stream.position();
            const std::size_t want =
                gap < skip.size() ? static_cast<std::size_t>(gap) : skip.size();
            if (stream.read(skip.data(), want) == 0) throwShort(files[file], offset, length);
        }
        std::size_t done = 0;
        while (done < length) {
            const std::size_t got = stream.read(dst + done, length - done);
            if (got == 0) throwShort(files[file], offset, length);
            done += got;
        }
    }
};

RangeReader::RangeReader(const std::vector<InputFile>& files) : impl_(std::make_unique<Impl>()) {
    impl_->files = files;
    impl_->pinChecked.assign(files.size(), 0);
}

RangeReader::~RangeReader() = default;

void RangeReader::willNeed(uint32_t file, uint64_t offset, uint64_t length) {
    Impl& s = *impl_;
    if (file >= s.files.size() || s.files[file].compression != InputFile::Compression::None ||
        (s.fd >= 0 && s.fdFile != file))
        return;
    try {
        s.openPlain(file);
    } catch (const std::exception&) {
        return;  // read() says why, if the bytes are ever read
    }
    ::posix_fadvise(s.fd, static_cast<off_t>(offset), static_cast<off_t>(length),
                    POSIX_FADV_WILLNEED);
}

void RangeReader::read(uint32_t file, uint64_t offset, uint32_t length, std::string& out) {
    Impl& s = *impl_;
    if (file >= s.files.size()) {
        throw InputError("no input file #" + std::to_string(file) + " (there are " +
                         std::to_string(s.files.size()) + ")");
    }
    // Offsets come from a project: never trusted beyond the pinned size of the content.
    const InputFile& f = s.files[file];
    const uint64_t limit = f.compression == InputFile::Compression::None ? f.size
                           : f.fingerprinted                             ? f.contentBytes
                                                                         : UINT64_MAX;
    if (offset > limit || length > limit - offset)
        throw InputError("bytes " + std::to_string(offset) + ".." +
                         std::to_string(offset + length) + " of '" + f.path + "' lie beyond its " +
                         std::to_string(limit) + " bytes (the project is damaged)");
    s.checkPin(file);
    const std::size_t old = out.size();
    out.resize(old + length);
    try {
        if (s.files[file].compression == InputFile::Compression::None) {
            s.readPlain(file, offset, length, out.data() + old);
        } else {
            s.readCompressed(file, offset, length, out.data() + old);
        }
    } catch (...) {
        out.resize(old);
        s.streamValid = false;
        throw;
    }
}

}  // namespace neardup
