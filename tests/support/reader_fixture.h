// What the reader tests share (test_reader.cpp, test_reader_files.cpp): writing inputs (plain,
// gzip, zstd) into a private folder and reading them through LineChunkSource + ChunkParser with
// every chunk invariant checked.
#pragma once

#include <simdjson.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>

#include "jsonl_reader.h"
#include "test_support.h"

using namespace neardup;
namespace fs = std::filesystem;
using testsupport::readFile;
using testsupport::writeFile;

namespace readertest {

struct Doc {
    uint32_t file = 0;
    uint64_t line = 0;
    uint64_t offset = 0;
    uint32_t length = 0;
    std::string text;
    std::string id;
    double keep = 0;

    bool operator==(const Doc& o) const {
        return file == o.file && line == o.line && offset == o.offset && length == o.length &&
               text == o.text && id == o.id &&
               (keep == o.keep || (std::isnan(keep) && std::isnan(o.keep)));
    }
};

struct Rej {
    RejectReason reason;
    uint32_t file;
    uint64_t line;
    bool operator==(const Rej& o) const {
        return reason == o.reason && file == o.file && line == o.line;
    }
};

struct ReadResult {
    std::vector<Doc> docs;
    std::vector<Rej> rejections;
    std::vector<std::string> details;
    std::vector<LineChunk> chunks;
    uint64_t lines = 0;
    uint64_t blankLines = 0;
    uint64_t bytes = 0;
    uint64_t bytesRead = 0;
};

void writeGzip(const std::string& path, const std::string& bytes) {
    gzFile gz = gzopen(path.c_str(), "wb");
    QVERIFY(gz != nullptr);
    if (!bytes.empty()) {
        QCOMPARE(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())),
                 static_cast<int>(bytes.size()));
    }
    QCOMPARE(gzclose(gz), Z_OK);
}

void writeZstd(const std::string& path, const std::string& bytes) {
    std::string out(ZSTD_compressBound(bytes.size()), '\0');
    const std::size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 3);
    QVERIFY(!ZSTD_isError(n));
    out.resize(n);
    writeFile(path, out);
}

// Reads every file through LineChunkSource + ChunkParser, checking the chunk invariants.
void readAll(const std::vector<InputFile>& files, const ReaderOptions& options,
             std::size_t chunkBytes, ReadResult& r) {
    LineChunkSource source(files, chunkBytes);
    ChunkParser parser(files, options);
    LineChunk chunk;
    ParsedChunk parsed;
    uint32_t prevFile = UINT32_MAX;
    uint64_t nextOffset = 0, nextLine = 1;
    bool prevEndedWithNewline = true;
    while (source.next(chunk)) {
        QVERIFY(!chunk.data.empty());
        QVERIFY(chunk.data.capacity() >= chunk.data.size() + simdjson::SIMDJSON_PADDING);
        if (chunk.file != prevFile) {
            QVERIFY(prevFile == UINT32_MAX || chunk.file > prevFile);
            nextOffset = 0;
            nextLine = 1;
        } else {
            // Only a file's last chunk may end without '\n'.
            QVERIFY(prevEndedWithNewline);
        }
        QCOMPARE(chunk.baseOffset, nextOffset);
        QCOMPARE(chunk.firstLine, nextLine);
        QCOMPARE(chunk.fileStart, nextOffset == 0);
        const auto newlines =
            static_cast<std::size_t>(std::count(chunk.data.begin(), chunk.data.end(), '\n'));
        // Over-long chunks hold exactly one line.
        if (chunk.data.size() > chunkBytes) {
            QVERIFY(newlines == 1 ? chunk.data.back() == '\n' : newlines == 0);
        }
        prevFile = chunk.file;
        prevEndedWithNewline = chunk.data.back() == '\n';
        nextOffset += chunk.data.size();
        nextLine += newlines;

        parser.parse(chunk, parsed);
        QCOMPARE(parsed.file, chunk.file);
        QCOMPARE(parsed.bytes, static_cast<uint64_t>(chunk.data.size()));
        for (const ParsedDocument& d : parsed.docs) {
            r.docs.push_back(Doc{parsed.file, d.line, d.offset, d.length,
                                 std::string(parsed.text(d)), std::string(parsed.id(d)),
                                 d.keepValue});
        }
        for (const Rejection& j : parsed.rejections) {
            r.rejections.push_back(Rej{j.reason, j.file, j.line});
            r.details.push_back(j.detail);
        }
        r.lines += parsed.lines;
        r.blankLines += parsed.blankLines;
        r.bytes += parsed.bytes;
        r.chunks.push_back(chunk);
    }
    r.bytesRead = source.bytesRead();
}

std::string describe(const std::vector<Doc>& docs) {
    std::string s;
    for (const Doc& d : docs) {
        s += std::to_string(d.file) + ":" + std::to_string(d.line) + "@" +
             std::to_string(d.offset) + "+" + std::to_string(d.length) + " [" + d.id + "] " +
             d.text.substr(0, 40) + "\n";
    }
    return s;
}

// A file exercising most of the line rules at once.
std::string mixedContent() {
    std::string s = "\xEF\xBB\xBF{\"text\":\"first\",\"id\":1}\r\n";   // 1: BOM + CRLF
    s += "\n";                                                         // 2: blank
    s += "   \t \r\n";                                                 // 3: blank
    s += "{\"text\":\"caf\\u00e9 \\\"quoted\\\"\",\"id\":\"s-4\"}\n";  // 4
    s += "{\"text\":5}\n";                                             // 5: text not string
    s += "{\"text\":\"" + std::string(300, 'x') + "\",\"id\":6}\n";    // 6: long line
    s += "{\"text\":\"\",\"id\":7}\n";                                 // 7: empty text
    s += "{\"id\":8}\n";                                               // 8: missing text
    s += "[\"not\",\"object\"]\n";                                     // 9
    s += "{\"text\":\"bad\xC3\"}\n";                                   // 10: invalid UTF-8
    s += "{\"text\":\"tab\there\"}\n";                                 // 11: raw tab in string
    s += "{\"text\":\"last\",\"id\":\"z\"}";                           // 12: no final newline
    return s;
}

}  // namespace readertest

using namespace readertest;

class ReaderFixture : public QObject {
  protected:
    QTemporaryDir tmp_;
    std::string path(const char* name) const {
        return tmp_.filePath(QString::fromUtf8(name)).toStdString();
    }
    std::vector<InputFile> one(const char* name, const std::string& content) {
        writeFile(path(name), content);
        return expandInputs({path(name)});
    }
};
