// What the tests of the output formats share (test_output_formats.cpp, test_output_dir.cpp): the
// generated corpus of userfiles::CorpusFixture, gzip and zstd decoding of an output, and the
// pyarrow helpers that write Parquet fixtures (tests/support/write_parquet.py) and read Parquet
// outputs back (tests/support/read_parquet.py), from the environment CMake found Arrow in.
#pragma once

#include <zlib.h>
#include <zstd.h>

#include <QProcess>
#include <QStringList>
#include <string>

#include "user_files_support.h"

namespace outputformats {

using testsupport::q;

// The bytes a gzip stream (one or more members) decompresses to; "" plus `ok` false when it is
// not valid gzip.
inline std::string gunzip(const std::string& in, bool& ok) {
    std::string out;
    z_stream zs{};
    ok = inflateInit2(&zs, 15 + 16) == Z_OK;
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    char buffer[1 << 16];
    while (ok) {
        zs.next_out = reinterpret_cast<Bytef*>(buffer);
        zs.avail_out = sizeof buffer;
        const int ret = inflate(&zs, Z_NO_FLUSH);
        out.append(buffer, sizeof buffer - zs.avail_out);
        if (ret == Z_STREAM_END) {
            if (zs.avail_in == 0) break;
            inflateReset(&zs);
        } else if (ret != Z_OK) {
            ok = false;
        }
    }
    inflateEnd(&zs);
    return ok ? out : std::string();
}

// The bytes a zstd stream decompresses to; `ok` false when it is not valid zstd.
inline std::string unzstd(const std::string& in, bool& ok) {
    std::string out;
    ZSTD_DCtx* ctx = ZSTD_createDCtx();
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    char buffer[1 << 16];
    std::size_t hint = 1;
    ok = true;
    while (input.pos < input.size) {
        ZSTD_outBuffer output{buffer, sizeof buffer, 0};
        hint = ZSTD_decompressStream(ctx, &output, &input);
        if (ZSTD_isError(hint)) {
            ok = false;
            break;
        }
        out.append(buffer, output.pos);
    }
    ZSTD_freeDCtx(ctx);
    ok = ok && hint == 0 && !in.empty();
    return ok ? out : std::string();
}

// `bytes` as one gzip member (no time stamp).
inline std::string gzipped(const std::string& bytes) {
    z_stream zs{};
    deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, static_cast<uLong>(bytes.size())), '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs.avail_in = static_cast<uInt>(bytes.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(out.size() - zs.avail_out);
    deflateEnd(&zs);
    return out;
}

// `bytes` as one zstd frame.
inline std::string zstdCompressed(const std::string& bytes) {
    std::string out(ZSTD_compressBound(bytes.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 3));
    return out;
}

// The result of a pyarrow helper: its exit code, standard output and standard error.
struct Python {
    int code = -1;
    std::string out;
    QString err;
};

// Runs tests/support/SCRIPT with `args` in the Arrow environment's Python.
inline Python python(const char* script, const QStringList& args) {
    QProcess p;
    p.start(
        QStringLiteral(NEARDUP_ARROW_PYTHON),
        QStringList{QStringLiteral(NEARDUP_SOURCE_DIR "/tests/support/") + QLatin1String(script)} +
            args);
    Python r;
    if (!p.waitForFinished(120000)) {
        r.err = QStringLiteral("%1 did not finish").arg(QLatin1String(script));
        return r;
    }
    r.code = p.exitCode();
    r.out = p.readAllStandardOutput().toStdString();
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// write_parquet.py ARGS: "" or its error output.
inline QString writeParquet(const QStringList& args) {
    const Python r = python("write_parquet.py", args);
    return r.code == 0 ? QString() : QStringLiteral("write_parquet.py failed: ") + r.err;
}

}  // namespace outputformats
