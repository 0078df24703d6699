// The JSON Lines reader: input expansion, chunking, parsing, rejections and range reads.
// (Compressed and damaged files, folders, re-reading by location: test_reader_files.cpp.)
#include <simdjson.h>
#include <unistd.h>

#include <QtTest>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "field_text.h"
#include "parquet_rows.h"
#include "reader_fixture.h"

class TestReader : public ReaderFixture {
    Q_OBJECT

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
        QCOMPARE(toString(RejectReason::DuplicateKey), "duplicate_key");
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
            {R::MalformedJson, 0, 2},  {R::NotAnObject, 0, 3},    {R::MissingText, 0, 4},
            {R::TextNotString, 0, 5},  {R::InvalidUtf8, 0, 6},    {R::ControlCharacter, 0, 7},
            {R::InvalidId, 0, 8},      {R::MalformedJson, 0, 9},  {R::MissingText, 0, 10},
            {R::InvalidId, 0, 11},     {R::MalformedJson, 0, 12}, {R::DuplicateKey, 0, 13},
            {R::NotAnObject, 0, 14},   {R::MalformedJson, 0, 16}, {R::MalformedJson, 0, 17},
            {R::TextNotString, 0, 18}, {R::InvalidId, 0, 19},     {R::InvalidId, 0, 21},
            {R::MalformedJson, 0, 22}, {R::NotAnObject, 0, 23},   {R::ControlCharacter, 0, 24},
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

        QCOMPARE(r.docs.size(), std::size_t{3});
        QCOMPARE(r.docs[0].line, uint64_t{1});
        QCOMPARE(r.docs[0].text, std::string("ok"));
        QCOMPARE(r.docs[0].id, std::string("a"));
        QCOMPARE(r.docs[1].line, uint64_t{15});
        QCOMPARE(r.docs[1].id, path("reasons.jsonl") + ":15");
        QCOMPARE(r.docs[2].line, uint64_t{20});
        QCOMPARE(r.docs[2].text, std::string("a\x7f"));
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

    // An object holding a key twice is read differently by different readers (simdjson and
    // JavaScript's lookups take the first value, Python's json the last): such a line is
    // rejected as duplicate_key, whatever the key, its escaping or the object's size.
    void duplicateKeys() {
        std::string many = "{\"text\":\"many keys\"";
        for (int k = 0; k < 40; ++k)
            many += ",\"k" + std::to_string(k) + "\":" + std::to_string(k);
        const std::string manyDistinct = many + "}";
        const std::string manyRepeated = many + ",\"k31\":0}";
        const std::vector<std::string> lines = {
            R"({"id":"B","text":"T2","text":"T1"})",          // 1 the issue's line
            R"({"text":"a","te\u0078t":"b"})",                // 2 the same key, escaped
            R"({"a":1,"text":"x","a":2})",                    // 3 a key no field names
            R"({"id":"x","text":"y","Text":"z"})",            // 4 keys differ in case: fine
            manyRepeated,                                     // 5 beyond the pairwise compare
            manyDistinct,                                     // 6 many keys, none twice
            R"({"\n":1,"text":"x","\n":2})",                  // 7 an unprintable key
            R"({"id":"i","id":"j","text":"two ids"})",        // 8
            R"({"text":"x","meta":{"k":1},"meta":{"k":2}})",  // 9 an object key twice
        };
        std::string content;
        for (const std::string& l : lines)
            content += l + "\n";
        const auto files = one("dupkeys.jsonl", content);
        ReadResult r;
        readAll(files, ReaderOptions{}, 1 << 20, r);
        if (QTest::currentTestFailed()) return;
        using R = RejectReason;
        const std::vector<Rej> expected = {{R::DuplicateKey, 0, 1}, {R::DuplicateKey, 0, 2},
                                           {R::DuplicateKey, 0, 3}, {R::DuplicateKey, 0, 5},
                                           {R::DuplicateKey, 0, 7}, {R::DuplicateKey, 0, 8},
                                           {R::DuplicateKey, 0, 9}};
        QVERIFY(r.rejections == expected);
        QVERIFY2(r.details[0].find("'text' appears twice") != std::string::npos,
                 r.details[0].c_str());
        QVERIFY2(r.details[3].find("'k31'") != std::string::npos, r.details[3].c_str());
        QVERIFY2(r.details[4].find("'?'") != std::string::npos, r.details[4].c_str());
        QCOMPARE(r.docs.size(), std::size_t{2});
        QCOMPARE(r.docs[0].line, uint64_t{4});
        QCOMPARE(r.docs[0].text, std::string("y"));
        QCOMPARE(r.docs[1].line, uint64_t{6});

        // With nested fields, the objects the paths pass through are checked too.
        const std::string nested = R"({"meta":{"content":"a","content":"b"}})"
                                   "\n"  // 1
                                   R"({"meta":{"content":"a","id":1,"id":2}})"
                                   "\n"  // 2: the id's object
                                   R"({"meta":{"content":"ok","id":3},"other":{"x":1}})"
                                   "\n";  // 3
        ReaderOptions options;
        options.textField = "meta.content";
        options.idField = "meta.id";
        ReadResult n;
        readAll(one("dupnested.jsonl", nested), options, 1 << 20, n);
        if (QTest::currentTestFailed()) return;
        const std::vector<Rej> nestedExpected = {{R::DuplicateKey, 0, 1}, {R::DuplicateKey, 0, 2}};
        QVERIFY(n.rejections == nestedExpected);
        QVERIFY2(n.details[0].find("'content' appears twice in 'meta'") != std::string::npos,
                 n.details[0].c_str());
        QCOMPARE(n.docs.size(), std::size_t{1});
        QCOMPARE(n.docs[0].id, std::string("3"));
    }

    // An id is one line of an id list, for every reader of one: a character any of them splits
    // lines at (C0 controls, NEL, LINE and PARAGRAPH SEPARATOR) makes it invalid_id, escaped or
    // raw; neighbouring characters do not.
    void idsWithLineBreaks() {
        const std::vector<std::pair<std::string, const char*>> bad = {
            {R"(\u2028)", "U+2028"},
            {"a\xE2\x80\xA8"
             "b",
             "U+2028"},
            {R"(\u2029)", "U+2029"},
            {R"(x\u0085)", "U+0085"},
            {"\xC2\x85", "U+0085"},
            {R"(\u000b)", "0x0b"},
            {R"(\f)", "0x0c"},
            {R"(a\r)", "0x0d"},
            {R"(\n)", "0x0a"},
            {R"(0123456789abcdef\u2029)", "U+2029"},  // past the first eight-byte words
            {R"(01234567\u0085xyz)", "U+0085"},
            {"0123456789\x7f", "0x7f"},
        };
        const std::vector<std::string> good = {R"(\u2027)",
                                               R"(\u202a)",
                                               R"(\u00a0)",
                                               R"(\u0084)",
                                               "\xE2\x82\xAC",
                                               "\xC2\xA9",
                                               "0123456789abcdefghij~ !"};
        std::string content;
        for (const auto& [id, what] : bad)
            content += "{\"id\":\"" + id + "\",\"text\":\"t\"}\n";
        for (const std::string& id : good)
            content += "{\"id\":\"" + id + "\",\"text\":\"t\"}\n";
        ReadResult r;
        readAll(one("breaks.jsonl", content), ReaderOptions{}, 1 << 20, r);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(r.rejections.size(), bad.size());
        for (std::size_t i = 0; i < bad.size(); ++i) {
            QVERIFY(r.rejections[i].reason == RejectReason::InvalidId);
            QCOMPARE(r.rejections[i].line, uint64_t{i + 1});
            QVERIFY2(r.details[i].find(bad[i].second) != std::string::npos, r.details[i].c_str());
        }
        QCOMPARE(r.docs.size(), good.size());
        QCOMPARE(r.docs[4].id, std::string("\xE2\x82\xAC"));

        // A default id "<file>:<line>" made of a file name holding such characters has '?' for
        // each.
        ReadResult named;
        readAll(one("a\xE2\x80\xA8"
                    "b\xC2\x85"
                    "c\x01.jsonl",
                    "{\"text\":\"t\"}\n"),
                ReaderOptions{}, 1 << 20, named);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(named.docs.size(), std::size_t{1});
        QCOMPARE(named.docs[0].id, path("a?b?c?.jsonl") + ":1");
        QCOMPARE(firstIdBreak(named.docs[0].id), -1);

        // Parquet and Arrow ids: the same rule, applied to the id column's strings.
        const std::vector<std::string> ids = {"ok", "a\xE2\x80\xA9", "\xC2\x85", "b\nc",
                                              "\xE2\x80\xA7"};
        columnar::RowGroupColumns columns;
        columns.rows = ids.size();
        columns.text.kind = columns.id.kind = columnar::ColumnValues::Kind::Strings;
        for (const std::string& id : ids) {
            columns.text.valid.push_back(1);
            columns.text.text.push_back("some text");
            columns.id.valid.push_back(1);
            columns.id.text.push_back(id);
        }
        ParsedChunk parsed;
        appendParquetRows(columns, 0, columns.rows, 0, 1, ReaderOptions{}, "f.parquet", parsed);
        QCOMPARE(parsed.docs.size(), std::size_t{2});
        QVERIFY(parsed.id(parsed.docs[0]) == "ok");
        QVERIFY(parsed.id(parsed.docs[1]) == "\xE2\x80\xA7");
        QCOMPARE(parsed.rejections.size(), std::size_t{3});
        const char* const parquetWhat[] = {"U+2029", "U+0085", "0x0a"};
        for (std::size_t i = 0; i < 3; ++i) {
            QVERIFY(parsed.rejections[i].reason == RejectReason::InvalidId);
            QCOMPARE(parsed.rejections[i].line, uint64_t{i + 2});
            QVERIFY2(parsed.rejections[i].detail.find(parquetWhat[i]) != std::string::npos,
                     parsed.rejections[i].detail.c_str());
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

    // A log past its sample limit, kept as a dataset keeps it (every line, the samples), is
    // made again by replaying it: the same counts, list and samples, details included.
    void rejectionsReplayIntoTheSameLog() {
        RejectionLog log;
        for (uint64_t i = 1; i <= 1300; ++i) {
            Rejection r;
            r.reason = i % 3 == 0 ? RejectReason::MalformedJson : RejectReason::MissingText;
            if (i == 1100 || i == 1250) r.reason = RejectReason::InvalidId;
            r.file = static_cast<uint32_t>(i / 500);
            r.line = i;
            r.detail = "detail " + std::to_string(i);
            log.add(r);
        }
        RejectionLog replayed;
        for (const Rejection& r : replayedRejections(log.all, log.samples))
            replayed.add(r);
        QCOMPARE(replayed.total(), log.total());
        for (int k = 0; k < kRejectReasonCount; ++k)
            QCOMPARE(replayed.counts[k], log.counts[k]);
        QCOMPARE(replayed.all.size(), log.all.size());
        QVERIFY(std::memcmp(replayed.all.data(), log.all.data(),
                            log.all.size() * sizeof(RejectedLine)) == 0);
        QCOMPARE(replayed.samples.size(), log.samples.size());
        for (std::size_t i = 0; i < log.samples.size(); ++i) {
            QCOMPARE(replayed.samples[i].line, log.samples[i].line);
            QCOMPARE(replayed.samples[i].reason, log.samples[i].reason);
            QCOMPARE(replayed.samples[i].detail, log.samples[i].detail);
        }
        QCOMPARE(replayed.first(RejectReason::InvalidId)->detail, std::string("detail 1100"));
    }
};

QTEST_GUILESS_MAIN(TestReader)
#include "test_reader.moc"
