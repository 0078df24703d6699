// OutputFile: an AtomicFile behind an optional gzip (zlib) or zstd (libzstd) compressor.
#include "output_file.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <vector>

#include "atomic_file.h"

namespace neardup {

namespace {

bool endsWithNoCase(std::string_view s, std::string_view suffix) {
    if (s.size() < suffix.size()) return false;
    const std::string_view tail = s.substr(s.size() - suffix.size());
    return std::equal(tail.begin(), tail.end(), suffix.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
    });
}

constexpr std::size_t kCompressedBufferBytes = std::size_t{1} << 18;

}  // namespace

OutputCompression compressionForName(std::string_view path) {
    if (endsWithNoCase(path, ".gz")) return OutputCompression::Gzip;
    if (endsWithNoCase(path, ".zst")) return OutputCompression::Zstd;
    return OutputCompression::None;
}

// One of the two streams; `kind` None never builds one.
struct OutputFile::Compressor {
    OutputCompression kind = OutputCompression::None;
    z_stream zs{};
    ZSTD_CCtx* zstd = nullptr;
    std::vector<unsigned char> buffer = std::vector<unsigned char>(kCompressedBufferBytes);

    ~Compressor() {
        if (kind == OutputCompression::Gzip) deflateEnd(&zs);
        if (zstd != nullptr) ZSTD_freeCCtx(zstd);
    }
};

OutputFile::OutputFile(const std::string& path, OutputCompression compression)
    : path_(path), file_(std::make_unique<AtomicFile>(path)) {
    startCompression(compression);
}

OutputFile::OutputFile(int dirFd, const std::string& name, const std::string& shown,
                       OutputCompression compression)
    : path_(shown), file_(std::make_unique<AtomicFile>(dirFd, name, shown)) {
    startCompression(compression);
}

void OutputFile::startCompression(OutputCompression compression) {
    const std::string& path = path_;
    if (compression == OutputCompression::None || path == "-") return;
    compressor_ = std::make_unique<Compressor>();
    if (compression == OutputCompression::Gzip) {
        // windowBits 15 + 16: a gzip wrapper, whose header zlib writes without a time stamp.
        if (deflateInit2(&compressor_->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK)
            throw std::runtime_error("cannot write '" + path + "': cannot start gzip compression");
        compressor_->kind = OutputCompression::Gzip;
    } else {
        compressor_->zstd = ZSTD_createCCtx();
        if (compressor_->zstd == nullptr ||
            ZSTD_isError(ZSTD_CCtx_setParameter(compressor_->zstd, ZSTD_c_compressionLevel, 3)))
            throw std::runtime_error("cannot write '" + path + "': cannot start zstd compression");
        compressor_->kind = OutputCompression::Zstd;
    }
}

OutputFile::OutputFile(const std::string& path) : OutputFile(path, compressionForName(path)) {}

OutputFile::~OutputFile() = default;

void OutputFile::write(std::string_view bytes) {
    if (bytes.empty()) return;
    if (!compressor_) {
        file_->write(bytes);
        return;
    }
    pump(bytes, false);
}

// Feeds `bytes` to the compressor and writes what comes out; `end` closes the stream.
void OutputFile::pump(std::string_view bytes, bool end) {
    Compressor& c = *compressor_;
    if (c.kind == OutputCompression::Gzip) {
        z_stream& zs = c.zs;
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
        zs.avail_in = static_cast<uInt>(bytes.size());
        for (;;) {
            zs.next_out = c.buffer.data();
            zs.avail_out = static_cast<uInt>(c.buffer.size());
            const int ret = deflate(&zs, end ? Z_FINISH : Z_NO_FLUSH);
            if (ret == Z_STREAM_ERROR)
                throw std::runtime_error("cannot write '" + path_ + "': gzip compression failed");
            file_->write(c.buffer.data(), c.buffer.size() - zs.avail_out);
            if (end ? ret == Z_STREAM_END : (zs.avail_in == 0 && zs.avail_out != 0)) break;
        }
        return;
    }
    ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
    for (;;) {
        ZSTD_outBuffer out{c.buffer.data(), c.buffer.size(), 0};
        const std::size_t left =
            ZSTD_compressStream2(c.zstd, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left))
            throw std::runtime_error("cannot write '" + path_ +
                                     "': zstd compression failed: " + ZSTD_getErrorName(left));
        file_->write(c.buffer.data(), out.pos);
        if (end ? left == 0 : in.pos == in.size) break;
    }
}

void OutputFile::finish() {
    if (finished_) return;
    if (compressor_) pump({}, true);
    file_->finish();
    finished_ = true;
}

void OutputFile::commit() {
    finish();
    file_->commit();
}

std::unique_ptr<AtomicFile> OutputFile::release() {
    finish();
    return std::move(file_);
}

}  // namespace neardup
