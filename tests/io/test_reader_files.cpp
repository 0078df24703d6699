// The reader on files as they come: gzip and zstd (whole, concatenated, damaged), folders
// expanded into their files, and re-reading documents by their stored location.
#include <simdjson.h>
#include <unistd.h>

#include <QtTest>
#include <filesystem>
#include <string>
#include <vector>

#include "reader_fixture.h"

class TestReaderFiles : public ReaderFixture {
    Q_OBJECT

  private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

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

    // A SQLite database is not a dataset: a NearDup project (application id "NDWB") or any other
    // given as an input, or found in a folder under an input name, is refused by name, never read
    // as lines of text, whatever --on-error says.
    void sqliteFilesAreNotDatasets() {
        const auto sqliteHeader = [](uint32_t applicationId) {
            std::string header("SQLite format 3\0", 16);
            header.resize(100, '\0');
            for (int i = 0; i < 4; ++i)
                header[static_cast<std::size_t>(68 + i)] =
                    static_cast<char>((applicationId >> (24 - 8 * i)) & 0xFF);
            return header + std::string(3996, '\x01');  // the rest of a first page
        };
        const std::string dir = path("sqlite");
        fs::create_directories(dir + "/folder");
        writeFile(dir + "/p.ndw", sqliteHeader(0x4E445742));
        writeFile(dir + "/other.db", sqliteHeader(0));
        writeFile(dir + "/folder/a.jsonl", "{\"text\":\"t\"}\n");
        writeFile(dir + "/folder/b.jsonl", sqliteHeader(0x4E445742));
        writeFile(dir + "/text.jsonl", "SQLite format 3\n{\"text\":\"t\"}\n");
        const auto refused = [](const std::vector<std::string>& inputs, OnError onError) {
            try {
                expandInputs(inputs, onError);
            } catch (const UnsupportedInputError& e) {
                return std::string(e.what());
            } catch (const std::exception& e) {
                return std::string("another error: ") + e.what();
            }
            return std::string("accepted");
        };
        for (const OnError onError : {OnError::Skip, OnError::Fail}) {
            QCOMPARE(refused({dir + "/p.ndw"}, onError),
                     "'" + dir + "/p.ndw' is a NearDup project, not a dataset");
            QCOMPARE(refused({dir + "/text.jsonl", dir + "/other.db"}, onError),
                     "'" + dir + "/other.db' is a SQLite database, not a dataset");
            QCOMPARE(refused({dir + "/folder"}, onError),
                     "'" + dir + "/folder/b.jsonl' is a NearDup project, not a dataset");
        }
        // Text that merely starts like one is read.
        QCOMPARE(expandInputs({dir + "/text.jsonl"}).size(), std::size_t{1});
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
            // Hints (verification's read-ahead) change no bytes read, whatever they name: the
            // file being read, another, a compressed one, one that does not exist, past the end.
            ranges.willNeed(d.file, d.offset, 1 << 20);
            ranges.willNeed((d.file + 1) % 3, 0, content.size());
            ranges.willNeed(7, 0, 100);
            ranges.willNeed(d.file, content.size() + 100, 100);
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
};

QTEST_GUILESS_MAIN(TestReaderFiles)
#include "test_reader_files.moc"
