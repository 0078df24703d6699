#include "byte_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "jsonl_reader.h"

namespace neardup {

namespace {

constexpr std::size_t kInputBufferBytes = std::size_t{1} << 20;

}  // namespace

void throwCannotRead(const std::string& path, int err) {
    throw InputError("cannot read '" + path + "': " + std::strerror(err));
}

struct ByteStream::Impl {
    int fd = -1;
    InputFile::Compression kind = InputFile::Compression::None;
    std::string path;
    uint64_t produced = 0;

    // Compressed input not yet consumed by the decoder.
    std::vector<unsigned char> in;
    std::size_t inPos = 0;
    std::size_t inLen = 0;
    bool inEof = false;

    z_stream zs{};
    bool zInitialized = false;
    // A gzip member ended; more input means another member (concatenated .gz files).
    bool gzMemberEnded = false;

    ZSTD_DCtx* zstd = nullptr;
    // ZSTD_decompressStream's last hint: 0 means we stand on a frame boundary.
    std::size_t zstdHint = 1;

    // Damage met by a read() that had already decoded bytes: those are returned, the error is
    // thrown by the next read().
    std::string deferred;

    ~Impl() {
        closeFile();
        if (zInitialized) inflateEnd(&zs);
        if (zstd != nullptr) ZSTD_freeDCtx(zstd);
    }

    void closeFile() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }

    std::size_t readRaw(void* dst, std::size_t n) {
        for (;;) {
            const ssize_t got = ::read(fd, dst, n);
            if (got >= 0) return static_cast<std::size_t>(got);
            if (errno != EINTR) throwCannotRead(path, errno);
        }
    }

    void refill() {
        if (in.empty()) in.resize(kInputBufferBytes);
        inLen = readRaw(in.data(), in.size());
        inPos = 0;
        if (inLen == 0) inEof = true;
    }

    // Throws at once when this read() decoded nothing yet, else defers the error.
    void corrupt(const char* format, std::size_t decodedNow, const char* why) {
        std::string message = std::string("corrupt or truncated ") + format + " stream in '" +
                              path + "' after " + std::to_string(produced + decodedNow) + " bytes";
        if (why != nullptr && *why != '\0') message += std::string(" (") + why + ")";
        if (decodedNow == 0) throw CorruptStreamError(message);
        deferred = std::move(message);
    }

    std::size_t readGzip(char* dst, std::size_t n) {
        zs.next_out = reinterpret_cast<Bytef*>(dst);
        zs.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
        const uInt wanted = zs.avail_out;
        while (zs.avail_out > 0) {
            if (zs.avail_in == 0 && !inEof) {
                refill();
                zs.next_in = in.data();
                zs.avail_in = static_cast<uInt>(inLen);
            }
            if (zs.avail_in == 0) {
                if (!gzMemberEnded)
                    corrupt("gzip", wanted - zs.avail_out, "unexpected end of file");
                break;
            }
            if (gzMemberEnded) {
                inflateReset(&zs);
                gzMemberEnded = false;
            }
            const int ret = inflate(&zs, Z_NO_FLUSH);
            if (ret == Z_STREAM_END) {
                gzMemberEnded = true;
            } else if (ret != Z_OK && !(ret == Z_BUF_ERROR && zs.avail_in == 0)) {
                corrupt("gzip", wanted - zs.avail_out, zs.msg);
                break;
            }
        }
        return wanted - zs.avail_out;
    }

    std::size_t readZstd(char* dst, std::size_t n) {
        ZSTD_outBuffer out{dst, n, 0};
        while (out.pos < out.size) {
            if (inPos == inLen && !inEof) refill();
            const bool noInput = inPos == inLen;
            if (noInput && zstdHint == 0) break;
            ZSTD_inBuffer inBuf{in.data(), inLen, inPos};
            const std::size_t before = out.pos;
            const std::size_t ret = ZSTD_decompressStream(zstd, &out, &inBuf);
            inPos = inBuf.pos;
            if (ZSTD_isError(ret)) {
                corrupt("zstd", out.pos, ZSTD_getErrorName(ret));
                break;
            }
            zstdHint = ret;
            if (noInput && out.pos == before) {
                corrupt("zstd", out.pos, "unexpected end of file");
                break;
            }
        }
        return out.pos;
    }
};

ByteStream::ByteStream() : impl_(std::make_unique<Impl>()) {}
ByteStream::~ByteStream() = default;

void ByteStream::open(const InputFile& file) {
    Impl& s = *impl_;
    s.closeFile();
    s.path = file.path;
    s.kind = file.compression;
    s.produced = 0;
    s.deferred.clear();
    s.inPos = s.inLen = 0;
    s.inEof = false;
    // O_NONBLOCK: a FIFO must not block the run waiting for a writer; it is refused below.
    s.fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (s.fd < 0) throwCannotRead(file.path, errno);
    struct stat sb {};
    if (::fstat(s.fd, &sb) != 0) {
        const int err = errno;
        s.closeFile();
        throwCannotRead(file.path, err);
    }
    if (!S_ISREG(sb.st_mode)) {
        s.closeFile();
        if (S_ISDIR(sb.st_mode)) throwCannotRead(file.path, EISDIR);
        throw InputError("cannot read '" + file.path + "': not a regular file");
    }
    ::posix_fadvise(s.fd, 0, 0, POSIX_FADV_SEQUENTIAL);

    if (s.kind == InputFile::Compression::Gzip) {
        s.zs.next_in = nullptr;
        s.zs.avail_in = 0;
        // 15 + 32: gzip or zlib header, detected automatically.
        const int ret =
            s.zInitialized ? inflateReset2(&s.zs, 15 + 32) : inflateInit2(&s.zs, 15 + 32);
        if (ret != Z_OK) throw InputError("cannot initialize zlib for '" + file.path + "'");
        s.zInitialized = true;
        s.gzMemberEnded = false;
    } else if (s.kind == InputFile::Compression::Zstd) {
        if (s.zstd == nullptr) s.zstd = ZSTD_createDCtx();
        if (s.zstd == nullptr) throw InputError("cannot initialize zstd for '" + file.path + "'");
        ZSTD_DCtx_reset(s.zstd, ZSTD_reset_session_only);
        s.zstdHint = 1;
    }
}

void ByteStream::close() {
    impl_->closeFile();
}

bool ByteStream::isOpen() const {
    return impl_->fd >= 0;
}

std::size_t ByteStream::read(char* dst, std::size_t n) {
    Impl& s = *impl_;
    if (s.fd < 0 || n == 0) return 0;
    if (!s.deferred.empty()) {
        std::string message = std::move(s.deferred);
        s.deferred.clear();
        throw CorruptStreamError(message);
    }
    std::size_t got = 0;
    switch (s.kind) {
        case InputFile::Compression::None:
            got = s.readRaw(dst, n);
            break;
        case InputFile::Compression::Gzip:
            got = s.readGzip(dst, n);
            break;
        case InputFile::Compression::Zstd:
            got = s.readZstd(dst, n);
            break;
    }
    s.produced += got;
    return got;
}

uint64_t ByteStream::position() const {
    return impl_->produced;
}

}  // namespace neardup
