// What the tests of the output formats and of columnar inputs share (test_output_formats.cpp,
// test_output_dir.cpp, test_parquet_input.cpp, test_arrow_input.cpp): the generated corpus of
// userfiles::CorpusFixture, gzip and zstd decoding of an output, and the pyarrow helpers that
// write Parquet and Arrow fixtures (tests/support/write_parquet.py, write_arrow.py) and read
// outputs back (tests/support/read_parquet.py, read_arrow.py), from the environment CMake found
// Arrow in.
#pragma once

#include <zlib.h>
#include <zstd.h>

#include <QProcess>
#include <QStringList>
#include <string>
#include <vector>

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

// The lines of `bytes`, without empty ones (a helper's output, a list output).
inline std::vector<std::string> linesOf(const std::string& bytes) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < bytes.size()) {
        std::size_t end = bytes.find('\n', at);
        if (end == std::string::npos) end = bytes.size();
        if (end > at) lines.push_back(bytes.substr(at, end - at));
        at = end + 1;
    }
    return lines;
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

// SCRIPT ARGS, a pyarrow writer of fixtures: "" or its error output.
inline QString writeWith(const char* script, const QStringList& args) {
    const Python r = python(script, args);
    return r.code == 0 ? QString() : QLatin1String(script) + QStringLiteral(" failed: ") + r.err;
}

inline QString writeParquet(const QStringList& args) {
    return writeWith("write_parquet.py", args);
}

inline QString writeArrow(const QStringList& args) {
    return writeWith("write_arrow.py", args);
}

// What the columnar input tests share (test_parquet_input.cpp, test_arrow_input.cpp): the
// corpus, and runs with every list output, so that a columnar input's outputs can be compared
// with those of the same documents as JSON Lines.
class ColumnarInputFixture : public userfiles::CorpusFixture {
  protected:
    // `neardup run INPUTS -p PROJECT -q -j THREADS` with its outputs in PREFIX.*, plus `extra`.
    userfiles::Result runOn(const QStringList& inputs, const std::string& prefix, int threads,
                            const QStringList& extra = {}) {
        QStringList args{QStringLiteral("run")};
        args << inputs;
        args << QStringLiteral("-p") << q(path(prefix + ".ndw")) << QStringLiteral("-q")
             << QStringLiteral("-j") << QString::number(threads) << QStringLiteral("--out-removed")
             << q(path(prefix + ".removed")) << QStringLiteral("--out-clusters")
             << q(path(prefix + ".clusters")) << QStringLiteral("--out-jsonl")
             << q(path(prefix + ".dedup.jsonl")) << QStringLiteral("--out-kept")
             << q(path(prefix + ".kept"));
        args << extra;
        return userfiles::runCli(args, dir_);
    }

    // The corpus's first `lines` lines as the JSON Lines file `name`: the JSON Lines half of a
    // folder that mixes formats.
    void writeCorpusHead(const std::string& name, int lines) {
        const std::string all = testsupport::readFile(path("corpus.jsonl"));
        std::size_t cut = 0;
        for (int i = 0; i < lines; ++i)
            cut = all.find('\n', cut) + 1;
        testsupport::writeFile(path(name), all.substr(0, cut));
    }
};

}  // namespace outputformats
