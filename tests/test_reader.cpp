// The JSON Lines reader: input expansion, chunking, parsing, rejections and range reads.
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

namespace {

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

}  // namespace

class TestReader : public QObject {
    Q_OBJECT

  private:
    QTemporaryDir tmp_;
    std::string path(const char* name) const {
        return tmp_.filePath(QString::fromUtf8(name)).toStdString();
    }
    std::vector<InputFile> one(const char* name, const std::string& content) {
        writeFile(path(name), content);
        return expandInputs({path(name)});
    }

  private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void reasonNames() {
        QCOMPARE(toString(RejectReason::MalformedJson), "malformed_json");
        QCOMPARE(toString(RejectReason::NotAnObject), "not_an_object");
        QCOMPARE(toString(RejectReason::MissingText), "missing_text");
        QCOMPARE(toString(RejectReason::TextNotString), "text_not_string");
        QCOMPARE(toString(RejectReason::InvalidUtf8), "invalid_utf8");
        QCOMPARE(toString(RejectReason::ControlCharacter), "control_character");
        QCOMPARE(toString(RejectReason::InvalidId), "invalid_id");
        QCOMPARE(toString(InputFile::Compression::None), "none");
        QCOMPARE(toString(InputFile::Compression::Gzip), "gzip");
        QCOMPARE(toString(InputFile::Compression::Zstd), "zstd");
    }

    void everyRejectReason() {
        std::string deep =
            "{\"text\":\"deep\",\"x\":" + std::string(5000, '[') + std::string(5000, ']') + "}";
        const std::vector<std::string> lines = {
            "{\"text\":\"ok\",\"id\":\"a\"}",  // 1
            "{\"text\":\"x\"",                 // 2 truncated
            "[1,2]",                           // 3
            "{\"id\":\"b\"}",                  // 4
            "{\"text\":5}",                    // 5
            "{\"text\":\"\xff\"}",             // 6
            "{\"text\":\"a\x01"
            "b\"}",                                   // 7
            "{\"text\":\"t\",\"id\":1.5}",            // 8
            "{\"a\":1} x",                            // 9 trailing content
            "{\"text\":null}",                        // 10
            "{\"text\":\"a\",\"id\":true}",           // 11
            deep,                                     // 12 too deep
            "{\"text\":\"first\",\"text\":\"dup\"}",  // 13 duplicate keys
            "\"just a string\"",                      // 14
            "{\"text\":\"ok2\"}",                     // 15
            "{\"text\":\"a\",\"x\":[1,}",             // 16 invalid inside an ignored field
            "{\"text\":\"a\",\"x\":tru}",             // 17
            "{\"text\":[\"a\"]}",                     // 18
            "{\"text\":\"a\",\"id\":{\"k\":1}}",      // 19
            "{\"text\":\"a\x7f\"}",                   // 20 DEL is fine
            "{\"text\":\"a\",\"id\":[1]}",            // 21
            "{\"text\":\"\\ud800\"}",                 // 22 lone surrogate escape
            "42",                                     // 23
            "{\"text\":\"a\"}\r\r",                   // 24 raw CR inside the line
        };
        std::string content;
        for (const std::string& l : lines)
            content += l + "\n";
        const auto files = one("reasons.jsonl", content);
        ReadResult r;
        readAll(files, ReaderOptions{}, std::size_t{4} << 20, r);
        if (QTest::currentTestFailed()) return;

        using R = RejectReason;
        const std::vector<Rej> expected = {
            {R::MalformedJson, 0, 2},  {R::NotAnObject, 0, 3},       {R::MissingText, 0, 4},
            {R::TextNotString, 0, 5},  {R::InvalidUtf8, 0, 6},       {R::ControlCharacter, 0, 7},
            {R::InvalidId, 0, 8},      {R::MalformedJson, 0, 9},     {R::MissingText, 0, 10},
            {R::InvalidId, 0, 11},     {R::MalformedJson, 0, 12},    {R::NotAnObject, 0, 14},
            {R::MalformedJson, 0, 16}, {R::MalformedJson, 0, 17},    {R::TextNotString, 0, 18},
            {R::InvalidId, 0, 19},     {R::InvalidId, 0, 21},        {R::MalformedJson, 0, 22},
            {R::NotAnObject, 0, 23},   {R::ControlCharacter, 0, 24},
        };
        QCOMPARE(r.rejections.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QVERIFY2(r.rejections[i] == expected[i],
                     qPrintable(QStringLiteral("rejection %1: line %2 reason %3")
                                    .arg(i)
                                    .arg(r.rejections[i].line)
                                    .arg(QString::fromUtf8(toString(r.rejections[i].reason)))));
            QVERIFY(!r.details[i].empty());
        }
        QVERIFY(r.details[0].find("JSON") != std::string::npos ||
                r.details[0].find("json") != std::string::npos);

        QCOMPARE(r.docs.size(), std::size_t{4});
        QCOMPARE(r.docs[0].line, uint64_t{1});
        QCOMPARE(r.docs[0].text, std::string("ok"));
        QCOMPARE(r.docs[0].id, std::string("a"));
        QCOMPARE(r.docs[1].line, uint64_t{13});
        QCOMPARE(r.docs[1].text, std::string("first"));  // first of duplicate keys wins
        QCOMPARE(r.docs[2].line, uint64_t{15});
        QCOMPARE(r.docs[2].id, path("reasons.jsonl") + ":15");
        QCOMPARE(r.docs[3].line, uint64_t{20});
        QCOMPARE(r.docs[3].text, std::string("a\x7f"));
        QCOMPARE(r.lines, uint64_t{lines.size()});
        QCOMPARE(r.blankLines, uint64_t{0});
        QVERIFY(std::isnan(r.docs[0].keep));
    }

    void byteOrderMarkAndCrlf() {
        const std::string content =
            "\xEF\xBB\xBF{\"text\":\"bom\"}\r\n{\"text\":\"x\\r\\ny\",\"id\":2}\r\n";
        const auto files = one("bom.jsonl", content);
        ReadResult r;
        readAll(files, ReaderOptions{}, 1 << 20, r);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(r.docs.size(), std::size_t{2});
        QCOMPARE(r.docs[0].offset, uint64_t{3});
        QCOMPARE(r.docs[0].length, uint32_t{15});  // {"text":"bom"} + '\r'
        QCOMPARE(r.docs[0].text, std::string("bom"));
        QCOMPARE(r.docs[1].line, uint64_t{2});
        QCOMPARE(r.docs[1].offset, uint64_t{19});
        QCOMPARE(r.docs[1].length, uint32_t{25});
        QCOMPARE(r.docs[1].text, std::string("x\r\ny"));  // escapes are text, the raw CR is not
        QCOMPARE(r.docs[1].id, std::string("2"));

        RangeReader ranges(files);
        std::string out;
        ranges.read(0, r.docs[0].offset, r.docs[0].length, out);
        QCOMPARE(out, std::string("{\"text\":\"bom\"}\r"));
        out.clear();
        ranges.read(0, r.docs[1].offset, r.docs[1].length, out);
        QCOMPARE(out, std::string("{\"text\":\"x\\r\\ny\",\"id\":2}\r"));

        // A BOM-like sequence later in the file is not skipped.
        const auto files2 = one("bom2.jsonl", "{\"text\":\"a\"}\n\xEF\xBB\xBF{\"text\":\"b\"}\n");
        ReadResult r2;
        readAll(files2, ReaderOptions{}, 1 << 20, r2);
        QCOMPARE(r2.docs.size(), std::size_t{1});
        QCOMPARE(r2.rejections.size(), std::size_t{1});
        QCOMPARE(r2.rejections[0].line, uint64_t{2});
    }

    void blankLinesAndMissingFinalNewline() {
        const auto files =
            one("blank.jsonl", "\n   \n\t\r\n{\"text\":\"a\"}\n\n{\"text\":\"end\"}");
        ReadResult r;
        readAll(files, ReaderOptions{}, 1 << 20, r);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(r.lines, uint64_t{6});
        QCOMPARE(r.blankLines, uint64_t{4});
        QVERIFY(r.rejections.empty());
        QCOMPARE(r.docs.size(), std::size_t{2});
        QCOMPARE(r.docs[0].line, uint64_t{4});
        QCOMPARE(r.docs[0].offset, uint64_t{8});
        QCOMPARE(r.docs[1].line, uint64_t{6});
        QCOMPARE(r.docs[1].offset, uint64_t{22});
        QCOMPARE(r.docs[1].length, uint32_t{14});
        QCOMPARE(r.docs[1].text, std::string("end"));
        QCOMPARE(r.bytesRead, uint64_t{36});
    }

    void nestedFieldsAndIds() {
        const std::string content =
            "{\"meta\":{\"content\":\"nested\",\"id\":42,\"score\":2.5}}\n"   // 1
            "{\"meta\":{\"id\":\"s\"},\"content\":\"top level only\"}\n"      // 2 missing
            "{\"meta\":\"flat\"}\n"                                           // 3 missing
            "{\"meta\":{\"content\":\"big\",\"id\":18446744073709551615}}\n"  // 4 uint64
            "{\"meta\":{\"content\":\"neg\",\"id\":-7,\"score\":3}}\n"        // 5 int64
            "{\"meta\":{\"content\":\"nul\",\"id\":null,\"score\":\"9\"}}\n"  // 6 null id
            "{\"meta\":{\"content\":\"flt\",\"id\":1.0}}\n"                   // 7 float id
            "{\"meta\":{\"content\":{\"a\":1}}}\n";                           // 8 not a string
        const auto files = one("nested.jsonl", content);
        ReaderOptions options;
        options.textField = "meta.content";
        options.idField = "meta.id";
        options.keepField = "meta.score";
        ReadResult r;
        readAll(files, options, 1 << 20, r);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(r.docs.size(), std::size_t{4});
        QCOMPARE(r.docs[0].text, std::string("nested"));
        QCOMPARE(r.docs[0].id, std::string("42"));
        QCOMPARE(r.docs[0].keep, 2.5);
        QCOMPARE(r.docs[1].id, std::string("18446744073709551615"));
        QVERIFY(std::isnan(r.docs[1].keep));
        QCOMPARE(r.docs[2].id, std::string("-7"));
        QCOMPARE(r.docs[2].keep, 3.0);
        QCOMPARE(r.docs[3].id, path("nested.jsonl") + ":6");
        QVERIFY(std::isnan(r.docs[3].keep));  // a string is not numeric
        using R = RejectReason;
        const std::vector<Rej> expected = {{R::MissingText, 0, 2},
                                           {R::MissingText, 0, 3},
                                           {R::InvalidId, 0, 7},
                                           {R::TextNotString, 0, 8}};
        QVERIFY(r.rejections == expected);
        QVERIFY(r.details[0].find("meta.content") != std::string::npos);
    }

    void compressedFiles() {
        const std::string content = mixedContent();
        writeFile(path("mixed.jsonl"), content);
        writeGzip(path("mixed.jsonl.gz"), content);
        writeZstd(path("mixed.jsonl.zst"), content);
        // Concatenated gzip members read as one stream, like gzip -d does.
        writeGzip(path("part1.gz"), content.substr(0, 100));
        writeGzip(path("part2.gz"), content.substr(100));
        writeFile(path("multi.jsonl.gz"), readFile(path("part1.gz")) + readFile(path("part2.gz")));
        // zstd: two frames back to back as well.
        writeZstd(path("part1.zst"), content.substr(0, 77));
        writeZstd(path("part2.zst"), content.substr(77));
        writeFile(path("multi.jsonl.zst"),
                  readFile(path("part1.zst")) + readFile(path("part2.zst")));

        const auto plain = expandInputs({path("mixed.jsonl")});
        QCOMPARE(plain[0].compression, InputFile::Compression::None);
        ReadResult reference;
        readAll(plain, ReaderOptions{}, 1 << 20, reference);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(reference.docs.size(), std::size_t{5});
        QCOMPARE(reference.rejections.size(), std::size_t{5});
        using R = RejectReason;
        const std::vector<Rej> expected = {{R::TextNotString, 0, 5},
                                           {R::MissingText, 0, 8},
                                           {R::NotAnObject, 0, 9},
                                           {R::InvalidUtf8, 0, 10},
                                           {R::MalformedJson, 0, 11}};
        QVERIFY(reference.rejections == expected);
        QCOMPARE(reference.docs[0].offset, uint64_t{3});
        QCOMPARE(reference.docs[3].text, std::string());
        QCOMPARE(reference.docs[3].id, std::string("7"));
        QCOMPARE(reference.docs[4].line, uint64_t{12});
        QCOMPARE(reference.docs[4].text, std::string("last"));
        QCOMPARE(reference.lines, uint64_t{12});
        QCOMPARE(reference.blankLines, uint64_t{2});

        const std::pair<const char*, InputFile::Compression> variants[] = {
            {"mixed.jsonl.gz", InputFile::Compression::Gzip},
            {"mixed.jsonl.zst", InputFile::Compression::Zstd},
            {"multi.jsonl.gz", InputFile::Compression::Gzip},
            {"multi.jsonl.zst", InputFile::Compression::Zstd},
        };
        for (const auto& [name, kind] : variants) {
            const auto files = expandInputs({path(name)});
            QCOMPARE(files[0].compression, kind);
            QCOMPARE(files[0].size, static_cast<uint64_t>(fs::file_size(path(name))));
            for (const std::size_t chunkBytes : {std::size_t{1} << 20, std::size_t{37}}) {
                ReadResult r;
                readAll(files, ReaderOptions{}, chunkBytes, r);
                if (QTest::currentTestFailed()) return;
                // Default ids name the file, so compare everything else.
                QCOMPARE(r.docs.size(), reference.docs.size());
                for (std::size_t i = 0; i < r.docs.size(); ++i) {
                    Doc d = r.docs[i];
                    if (d.id == std::string(path(name)) + ":" + std::to_string(d.line)) {
                        d.id = path("mixed.jsonl") + ":" + std::to_string(d.line);
                    }
                    QVERIFY2(d == reference.docs[i], name);
                }
                QVERIFY(r.rejections == reference.rejections);
                QCOMPARE(r.bytesRead, static_cast<uint64_t>(content.size()));
            }
        }
    }

    void corruptCompressedFiles() {
        std::string content;
        for (int i = 0; i < 2000; ++i) {
            content += "{\"text\":\"document number " + std::to_string(i * 7919) + "\"}\n";
        }
        writeGzip(path("full.jsonl.gz"), content);
        writeZstd(path("full.jsonl.zst"), content);
        const std::string gz = readFile(path("full.jsonl.gz"));
        const std::string zst = readFile(path("full.jsonl.zst"));
        writeFile(path("cut.jsonl.gz"), gz.substr(0, gz.size() / 2));
        writeFile(path("cut.jsonl.zst"), zst.substr(0, zst.size() / 2));
        std::string garbled = gz;
        for (std::size_t i = 20; i < 60; ++i)
            garbled[i] = static_cast<char>(garbled[i] ^ 0x5a);
        writeFile(path("garbled.jsonl.gz"), garbled);
        writeFile(path("tail.jsonl.gz"), gz.substr(0, gz.size() - 4));  // trailer cut short

        for (const char* name :
             {"cut.jsonl.gz", "cut.jsonl.zst", "garbled.jsonl.gz", "tail.jsonl.gz"}) {
            const auto files = expandInputs({path(name)});
            QVERIFY(files[0].compression != InputFile::Compression::None);
            bool thrown = false;
            try {
                ReadResult r;
                readAll(files, ReaderOptions{}, 4096, r);
            } catch (const InputError& e) {
                thrown = true;
                const std::string message = e.what();
                QVERIFY2(message.find(std::string("'") + path(name) + "'") != std::string::npos,
                         e.what());
                QVERIFY2(message.find("corrupt or truncated") != std::string::npos, e.what());
            }
            QVERIFY2(thrown, name);
        }
        // The intact ones read completely.
        ReadResult ok;
        readAll(expandInputs({path("full.jsonl.gz"), path("full.jsonl.zst")}), ReaderOptions{},
                4096, ok);
        QCOMPARE(ok.docs.size(), std::size_t{4000});
    }

    void directoryExpansion() {
        const std::string root = path("tree");
        fs::create_directories(root + "/sub/deeper");
        fs::create_directories(root + "/empty");
        const std::string doc = "{\"text\":\"t\"}\n";
        writeFile(root + "/b.jsonl", doc);
        writeFile(root + "/a.ndjson", doc);
        writeFile(root + "/notes.txt", doc);
        writeFile(root + "/e.jsonl.bz2", doc);
        writeFile(root + "/jsonl", doc);
        writeGzip(root + "/sub/c.json.gz", doc);
        writeZstd(root + "/sub/d.jsonl.zst", doc);
        writeFile(root + "/sub/deeper/f.JSONL", doc);
        fs::create_directory_symlink("..", root + "/sub/loop");
        fs::create_symlink("b.jsonl", root + "/link.jsonl");
        fs::create_symlink("missing.jsonl", root + "/broken.jsonl");

        const auto files = expandInputs({root});
        std::vector<std::string> names;
        for (const InputFile& f : files)
            names.push_back(f.path);
        const std::vector<std::string> expected = {
            root + "/a.ndjson", root + "/b.jsonl", root + "/sub/c.json.gz",
            root + "/sub/d.jsonl.zst", root + "/sub/deeper/f.JSONL"};
        std::string listed;
        for (const std::string& n : names)
            listed += n + "\n";
        QVERIFY2(names == expected, listed.c_str());
        QCOMPARE(files[0].compression, InputFile::Compression::None);
        QCOMPARE(files[2].compression, InputFile::Compression::Gzip);
        QCOMPARE(files[3].compression, InputFile::Compression::Zstd);
        QCOMPARE(files[1].size, uint64_t{doc.size()});
        QVERIFY(files[1].mtimeNs > 0);

        // Order of the arguments is kept; a file seen twice is taken once.
        const auto again = expandInputs({root + "/b.jsonl", root, root + "/link.jsonl"});
        QCOMPARE(again.size(), std::size_t{5});
        QCOMPARE(again[0].path, root + "/b.jsonl");
        QCOMPARE(again[1].path, root + "/a.ndjson");
        QCOMPARE(again[2].path, root + "/sub/c.json.gz");

        // A directory reached through a symlink and directly is read once, under its canonical
        // path (symlinks resolved), whatever the order readdir returns.
        const std::string root2 = path("tree2");
        fs::create_directories(root2 + "/z_real");
        writeFile(root2 + "/z_real/f.jsonl", doc);
        fs::create_directory_symlink("z_real", root2 + "/a_link");
        const auto linked = expandInputs({root2});
        QCOMPARE(linked.size(), std::size_t{1});
        QCOMPARE(linked[0].path, root2 + "/z_real/f.jsonl");

        // Files given directly are taken whatever their name; magic bytes decide compression.
        writeFile(root + "/fake.jsonl.gz", doc);
        const auto direct = expandInputs({root + "/notes.txt", root + "/fake.jsonl.gz"});
        QCOMPARE(direct.size(), std::size_t{2});
        QCOMPARE(direct[1].compression, InputFile::Compression::None);

        try {
            expandInputs({root + "/nope.jsonl"});
            QFAIL("no error for a missing path");
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()),
                     "cannot read '" + root + "/nope.jsonl': No such file or directory");
        }
        try {
            expandInputs({root + "/empty"});
            QFAIL("no error for an empty directory");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("'" + root + "/empty'") != std::string::npos,
                     e.what());
        }
    }

    void longLines() {
        const std::string longText(10000, 'L');
        const std::string longLine = "{\"text\":\"" + longText + "\",\"id\":\"long\"}";
        const auto files =
            one("long.jsonl", "{\"text\":\"a\"}\n" + longLine + "\n{\"text\":\"b\"}\n" + longLine);
        ReadResult r;
        readAll(files, ReaderOptions{}, 64, r);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(r.docs.size(), std::size_t{4});
        QCOMPARE(r.docs[1].text, longText);
        QCOMPARE(r.docs[1].length, static_cast<uint32_t>(longLine.size()));
        QCOMPARE(r.docs[3].text, longText);
        int whole = 0;
        for (const LineChunk& c : r.chunks) {
            if (c.data == longLine + "\n" || c.data == longLine) ++whole;
        }
        QCOMPARE(whole, 2);
    }

    void hugeLine() {
        // 64 MB line with the default chunk size: one chunk holds exactly that line.
        const std::string text(std::size_t{64} << 20, 'h');
        const std::string line = "{\"text\":\"" + text + "\"}";
        const auto files = one("huge.jsonl", line + "\n{\"text\":\"after\"}\n");
        LineChunkSource source(files, ReaderOptions{}.chunkBytes);
        ChunkParser parser(files, ReaderOptions{});
        LineChunk chunk;
        ParsedChunk parsed;
        QVERIFY(source.next(chunk));
        QCOMPARE(chunk.data.size(), line.size() + 1);
        QVERIFY(chunk.data.compare(0, line.size(), line) == 0);
        parser.parse(chunk, parsed);
        QCOMPARE(parsed.docs.size(), std::size_t{1});
        QCOMPARE(parsed.docs[0].textLength, static_cast<uint32_t>(text.size()));
        QVERIFY(parsed.text(parsed.docs[0]) == text);
        QVERIFY(source.next(chunk));
        QCOMPARE(chunk.firstLine, uint64_t{2});
        parser.parse(chunk, parsed);
        QCOMPARE(parsed.docs.size(), std::size_t{1});
        QVERIFY(parsed.text(parsed.docs[0]) == "after");
        QVERIFY(!source.next(chunk));
    }

    void chunkBoundariesDoNotMatter() {
        const std::string content = mixedContent();
        writeFile(path("mixed-a.jsonl"), content);
        writeFile(path("mixed-b.jsonl"), content + "\n");
        writeGzip(path("mixed-c.jsonl.gz"), content);
        writeZstd(path("mixed-d.jsonl.zst"), content);
        const auto files = expandInputs({path("mixed-a.jsonl"), path("mixed-b.jsonl"),
                                         path("mixed-c.jsonl.gz"), path("mixed-d.jsonl.zst")});
        ReadResult reference;
        readAll(files, ReaderOptions{}, 1 << 20, reference);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(reference.docs.size(), std::size_t{20});
        QCOMPARE(reference.chunks.size(), std::size_t{4});
        for (std::size_t chunkBytes = 1; chunkBytes <= 200; ++chunkBytes) {
            ReadResult r;
            readAll(files, ReaderOptions{}, chunkBytes, r);
            if (QTest::currentTestFailed()) return;
            QVERIFY2(r.docs == reference.docs,
                     qPrintable(QStringLiteral("chunkBytes %1:\n%2")
                                    .arg(chunkBytes)
                                    .arg(QString::fromStdString(describe(r.docs)))));
            QVERIFY(r.rejections == reference.rejections);
            QCOMPARE(r.lines, reference.lines);
            QCOMPARE(r.blankLines, reference.blankLines);
            QCOMPARE(r.bytes, reference.bytes);
            QVERIFY(r.chunks.size() > reference.chunks.size());
        }
    }

    void rangeReaderReturnsOriginalLines() {
        std::string content = mixedContent() + "\n";
        for (int i = 0; i < 3000; ++i) {
            content += "{\"text\":\"filler " + std::to_string(i) + "\"}\n";
        }
        writeFile(path("range.jsonl"), content);
        writeGzip(path("range.jsonl.gz"), content);
        writeZstd(path("range.jsonl.zst"), content);
        const auto files =
            expandInputs({path("range.jsonl"), path("range.jsonl.gz"), path("range.jsonl.zst")});
        ReadResult r;
        readAll(files, ReaderOptions{}, 4096, r);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(r.docs.size(), std::size_t{3 * 3005});

        RangeReader ranges(files);
        std::string out;
        for (const Doc& d : r.docs) {
            out.clear();
            ranges.read(d.file, d.offset, d.length, out);
            QCOMPARE(out, content.substr(d.offset, d.length));
            QVERIFY(out.find('\n') == std::string::npos);
        }
        QCOMPARE(r.docs[1].offset, uint64_t{content.find("{\"text\":\"caf")});

        // Appends; and a backwards request on a compressed file restarts the stream.
        out = "x";
        ranges.read(2, r.docs[0].offset, r.docs[0].length, out);
        QCOMPARE(out, "x" + content.substr(3, r.docs[0].length));
        ranges.read(1, 3, 4, out);
        QCOMPARE(out.substr(out.size() - 4), std::string("{\"te"));

        for (uint32_t f = 0; f < 3; ++f) {
            const std::string before = out;
            try {
                ranges.read(f, content.size() - 2, 10, out);
                QFAIL("no error for a range past the end");
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find(files[f].path) != std::string::npos, e.what());
            }
            QCOMPARE(out, before);
        }
    }

    void emptyFiles() {
        writeFile(path("empty.jsonl"), "");
        writeGzip(path("empty.jsonl.gz"), "");
        writeFile(path("blank-only.jsonl"), "\n\n");
        const auto files =
            expandInputs({path("empty.jsonl"), path("empty.jsonl.gz"), path("blank-only.jsonl")});
        QCOMPARE(files[0].size, uint64_t{0});
        QCOMPARE(files[1].compression, InputFile::Compression::Gzip);
        ReadResult r;
        readAll(files, ReaderOptions{}, 1 << 20, r);
        if (QTest::currentTestFailed()) return;
        QVERIFY(r.docs.empty());
        QVERIFY(r.rejections.empty());
        QCOMPARE(r.chunks.size(), std::size_t{1});
        QCOMPARE(r.chunks[0].file, uint32_t{2});
        QCOMPARE(r.lines, uint64_t{2});
        QCOMPARE(r.blankLines, uint64_t{2});

        LineChunkSource none({}, 1024);
        LineChunk chunk;
        QVERIFY(!none.next(chunk));
        QCOMPARE(none.bytesRead(), uint64_t{0});
    }

    void rejectionLogKeepsFirsts() {
        RejectionLog log;
        QCOMPARE(log.total(), uint64_t{0});
        QVERIFY(log.first(RejectReason::MalformedJson) == nullptr);
        for (uint64_t i = 1; i <= 1500; ++i) {
            Rejection r;
            r.reason = i % 2 == 0 ? RejectReason::MalformedJson : RejectReason::MissingText;
            r.line = i;
            log.add(r);
        }
        for (uint64_t i = 1501; i <= 1503; ++i) {
            Rejection r;
            r.reason = RejectReason::InvalidId;
            r.file = 3;
            r.line = i;
            log.add(r);
        }
        QCOMPARE(log.samples.size(), RejectionLog::kSampleLimit);
        QCOMPARE(log.total(), uint64_t{1503});
        QCOMPARE(log.counts[static_cast<int>(RejectReason::MalformedJson)], uint64_t{750});
        QCOMPARE(log.counts[static_cast<int>(RejectReason::MissingText)], uint64_t{750});
        QCOMPARE(log.counts[static_cast<int>(RejectReason::InvalidId)], uint64_t{3});
        QVERIFY(log.first(RejectReason::MissingText) != nullptr);
        QCOMPARE(log.first(RejectReason::MissingText)->line, uint64_t{1});
        QCOMPARE(log.first(RejectReason::MalformedJson)->line, uint64_t{2});
        const Rejection* firstId = log.first(RejectReason::InvalidId);
        QVERIFY(firstId != nullptr);
        QCOMPARE(firstId->line, uint64_t{1501});
        QCOMPARE(firstId->file, uint32_t{3});
        QVERIFY(log.first(RejectReason::NotAnObject) == nullptr);
        for (std::size_t i = 1; i < log.samples.size(); ++i) {
            QVERIFY(log.samples[i - 1].line < log.samples[i].line);
        }
    }
};

QTEST_GUILESS_MAIN(TestReader)
#include "test_reader.moc"
