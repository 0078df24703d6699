// A user's files are sacred, the inputs' side: a run that reads no documents or too
// many bad lines fails, outputs may go to standard output, odd ids and names stay parseable,
// columnar files are refused by name, the signature cache is optional, huge lines are streamed
// past and moved inputs are found again. Every case runs `neardup` as a process, as a user
// would. (The outputs' and the project's side: test_user_files.cpp.)
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include "document_fetcher.h"
#include "project_store.h"
#include "test_support.h"
#include "user_files_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;
using testsupport::sqlRows;
using namespace userfiles;

class TestUserFilesInputs : public CorpusFixture {
    Q_OBJECT

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    // Item 11: a run that read no documents exited 0.
    void noDocumentsIsAnError() {
        fs::create_directories(path("zero"));
        writeFile(path("zero/bad.jsonl"), "not json\n{\"id\":1}\n\n[1,2]\n");
        Result r =
            runCli({QStringLiteral("run"), q(path("zero/bad.jsonl")), QStringLiteral("-p"),
                    q(path("zero/p.ndw")), QStringLiteral("--out-kept"), q(path("zero/kept.txt"))},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no documents")) &&
                     r.err.contains(QStringLiteral("malformed_json 1")) &&
                     r.err.contains(QStringLiteral("missing_text 1")) &&
                     r.err.contains(QStringLiteral("not_an_object 1")),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(path("zero/kept.txt")));
        QCOMPARE(sqlRows(path("zero/p.ndw"), "SELECT status FROM runs"),
                 QStringList{QStringLiteral("failed")});
        // A wrong --text-field on a good corpus says which field was looked for.
        r = runCli({QStringLiteral("run"), q(path("corpus.jsonl")), QStringLiteral("-p"),
                    q(path("zero/q.ndw")), QStringLiteral("--text-field"), QStringLiteral("body")},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("missing_text 600")) &&
                     r.err.contains(QStringLiteral("--text-field ('body')")),
                 qPrintable(r.err));
        // An empty input.
        writeFile(path("zero/empty.jsonl"), "");
        r = runCli({QStringLiteral("run"), q(path("zero/empty.jsonl")), QStringLiteral("-p"),
                    q(path("zero/e.ndw")), QStringLiteral("-q")},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no documents")), qPrintable(r.err));
    }

    // --max-rejected FRACTION fails a run whose rejected share is higher.
    void maxRejectedFailsARunWithTooManyBadLines() {
        std::string text;
        for (int i = 0; i < 8; ++i)
            text += "{\"id\":" + std::to_string(i) + ",\"text\":\"document number " +
                    std::to_string(i) + " of a small file\"}\n";
        text += "oops\n{\"text\":7}\n";
        writeFile(path("zero/some-bad.jsonl"), text);
        auto runWith = [&](const char* fraction, const char* name) {
            return runCli(
                {QStringLiteral("run"), q(path("zero/some-bad.jsonl")), QStringLiteral("-p"),
                 q(path("zero/m.ndw")), QStringLiteral("-q"), QStringLiteral("--max-rejected"),
                 QLatin1String(fraction), QStringLiteral("--out-kept"), q(path(name))},
                dir_);
        };
        Result r = runWith("0.1", "zero/m1.txt");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("too many rejected lines")) &&
                     r.err.contains(QStringLiteral("text_not_string 1")),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(path("zero/m1.txt")));
        r = runWith("0.2", "zero/m2.txt");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("zero/m2.txt")), std::string("0\n1\n2\n3\n4\n5\n6\n7\n"));
        r = runWith("1.5", "zero/m3.txt");
        QCOMPARE(r.code, 2);
    }

    // Item 12: the summary went to stdout (appended to --out-jsonl /dev/stdout, even with -q);
    // "-" created a file named "-".
    void outputsToStandardOutput() {
        Result r = run(path("pipe.ndw"), {QStringLiteral("--out-jsonl"), q(path("pipe.jsonl"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string expected = readFile(path("pipe.jsonl"));
        QVERIFY(!expected.empty());
        for (const bool quiet : {true, false}) {
            QStringList args{QStringLiteral("run"),         q(path("corpus.jsonl")),
                             QStringLiteral("-p"),          q(path("pipe.ndw")),
                             QStringLiteral("--out-jsonl"), QStringLiteral("-")};
            if (quiet) args << QStringLiteral("-q");
            r = runCli(args, dir_);
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY(r.out.toStdString() == expected);
            QCOMPARE(r.err.contains(QStringLiteral("accounting:")), !quiet);
        }
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("pipe.ndw")),
                    QStringLiteral("--out-jsonl"), QStringLiteral("-")},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.toStdString() == expected);
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("pipe.ndw")),
                    QStringLiteral("--out-kept"), QStringLiteral("-"),
                    QStringLiteral("--out-removed"), QStringLiteral("-")},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("name the same file")), qPrintable(r.err));
        QVERIFY(!fs::exists(path("-")));
    }

    // Items 7 and 8: valid JSON with out-of-range numbers was malformed_json; ids with control
    // characters broke id lists; file names in another encoding broke JSON outputs.
    void numbersIdsAndNamesStayParseable() {
        // In a folder of its own, given as the input: a QString argument cannot carry the
        // byte 0xFF of the file's name.
        fs::create_directories(path("odd/in"));
        const std::string name = path("odd/in/latin1-\xff.jsonl");
        const std::string big =
            "{\"id\":\"big\",\"text\":\"the first text\",\"n\":"
            "123456789012345678901234567890}";
        const std::string huge =
            "{\"id\":\"huge\",\"text\":\"the second text\",\"meta\":{\"f\":1e400,\"g\":[-1e999,"
            "\"1e400\"]}}";
        const std::string noId = "{\"text\":\"a text repeated in two documents without ids\"}";
        writeFile(name, big + "\n" + huge + "\n" +
                            "{\"id\":123456789012345678901234567890,\"text\":\"x\"}\n" +
                            "{\"id\":\"c\",\"text\":1e400}\n" +
                            "{\"id\":\"two\\nlines\",\"text\":\"y\"}\n" +
                            "{\"id\":\"tab\\there\",\"text\":\"z\"}\n" + noId + "\n" + noId + "\n");
        const std::string project = path("odd/p.ndw");
        Result r =
            runCli({QStringLiteral("run"), q(path("odd/in")), QStringLiteral("-p"), q(project),
                    QStringLiteral("-q"), QStringLiteral("--out-jsonl"), q(path("odd/out.jsonl")),
                    QStringLiteral("--out-kept"), q(path("odd/kept.txt")),
                    QStringLiteral("--out-removed"), q(path("odd/removed.txt")),
                    QStringLiteral("--out-clusters"), q(path("odd/clusters.jsonl")),
                    QStringLiteral("--summary-json"), q(path("odd/summary.json"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(
            sqlRows(project, "SELECT reason, count FROM dataset_rejections ORDER BY reason"),
            (QStringList{QStringLiteral("invalid_id|3"), QStringLiteral("text_not_string|1")}));
        QCOMPARE(sqlRows(project, "SELECT doc_id FROM documents ORDER BY doc_index").mid(0, 2),
                 (QStringList{QStringLiteral("big"), QStringLiteral("huge")}));
        const std::string out = readFile(path("odd/out.jsonl"));
        QVERIFY(out.rfind(big + "\n" + huge + "\n" + noId + "\n", 0) == 0);
        // One line per document in the id lists.
        const std::string ids = readFile(path("odd/kept.txt")) + readFile(path("odd/removed.txt"));
        QCOMPARE(std::count(ids.begin(), ids.end(), '\n'), std::ptrdiff_t{4});
        // JSON outputs are valid UTF-8 although the default ids hold the byte 0xFF.
        for (const char* json : {"odd/clusters.jsonl", "odd/summary.json"}) {
            const QByteArray bytes = QByteArray::fromStdString(readFile(path(json)));
            QVERIFY2(!bytes.isEmpty(), json);
            QVERIFY2(QString::fromUtf8(bytes).toUtf8() == bytes, json);
        }
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                    QStringLiteral("--rejected"), q(path("odd/rejected.jsonl"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QByteArray rejected = QByteArray::fromStdString(readFile(path("odd/rejected.jsonl")));
        QCOMPARE(rejected.count('\n'), 4);
        QVERIFY(QString::fromUtf8(rejected).toUtf8() == rejected);
    }

    // A Parquet or Arrow file is never read as text: one not named *.parquet or *.arrow is
    // refused by name; a damaged *.parquet or *.arrow is a rejection (or the error with
    // --on-error fail) naming it, or refused by name where Arrow is not compiled in.
    void columnarFilesAreRefusedByName() {
        fs::create_directories(path("col"));
        const std::string damagedParquet = std::string("PAR1\x15\x04\x15\x80\n", 9) + "PAR1";
        writeFile(path("col/data.parquet"), damagedParquet);
        writeFile(path("col/data.bin"), damagedParquet);
        const std::string damagedArrow("ARROW1\0\0\xff\xff\xff\xff", 12);
        writeFile(path("col/data.arrow"), damagedArrow);
        writeFile(path("col/data.ipc"), damagedArrow);
        for (const char* file : {"col/data.bin", "col/data.ipc"}) {
            for (const char* onError : {"skip", "fail"}) {
                const Result r =
                    runCli({QStringLiteral("run"), q(path(file)), q(path("corpus.jsonl")),
                            QStringLiteral("-p"), q(path("col/p.ndw")), QStringLiteral("-q"),
                            QStringLiteral("--on-error"), QLatin1String(onError)},
                           dir_);
                QVERIFY2(r.code == 1, file);
                QVERIFY2(r.err.contains(QStringLiteral("not JSON Lines")) &&
                             r.err.contains(q(path(file))),
                         qPrintable(r.err));
            }
        }
        // Named as what they are, they are read as Parquet and Arrow (or refused by name in a
        // build without Arrow): damaged, an error naming them.
        for (const auto& [file, format] :
             {std::pair{"col/data.parquet", "Parquet"}, std::pair{"col/data.arrow", "Arrow"}}) {
            const Result r = runCli(
                {QStringLiteral("run"), q(path(file)), QStringLiteral("-p"), q(path("col/p.ndw")),
                 QStringLiteral("-q"), QStringLiteral("--on-error"), QStringLiteral("fail")},
                dir_);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(QLatin1String(format)) && r.err.contains(q(path(file))),
                     qPrintable(r.err));
        }
    }

    // Item 9: failing to write the (optional) signature cache, as on a full disk, failed the
    // whole run.
    void theSignatureCacheIsOptional() {
        const std::string project = path("cache.ndw");
        Result r = run(project, {});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        fs::copy_file(path("corpus.jsonl"), path("cache-input.jsonl"),
                      fs::copy_options::overwrite_existing);
        // Recording the cache fails as on a full disk.
        {
            const testsupport::FailingSql failing("INSERT INTO signature_caches");
            r = testsupport::neardup(
                {QStringLiteral("run"), q(path("cache-input.jsonl")), QStringLiteral("-p"),
                 q(project), QStringLiteral("--out-kept"), q(path("cache-kept.txt"))},
                CliOptions().inFolder(q(dir_)));
        }
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("signatures not cached")), qPrintable(r.err));
        QVERIFY(fs::file_size(path("cache-kept.txt")) > 0);
        QCOMPARE(sqlRows(project, "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("ok"), QStringLiteral("ok")}));
        QCOMPARE(sqlRows(project, "SELECT count(*) FROM signature_caches"),
                 QStringList{QStringLiteral("1")});
    }

    // Item 6: one huge line was held in memory whole (4.4 GB for a 400 MB line under a 64 MB
    // budget; std::bad_alloc for a 10 GB one). It is now line_too_long, streamed past.
    void hugeLinesAreStreamedPast() {
        fs::create_directories(path("long"));
        const std::string corpus = readFile(path("corpus.jsonl"));
        const std::size_t half = corpus.find('\n', corpus.size() / 2) + 1;
        // A 3 MB line in the middle of a plain file.
        const std::string plain = path("long/plain.jsonl");
        writeFile(plain, corpus.substr(0, half) + "{\"id\":\"long\",\"text\":\"" +
                             std::string(3 << 20, 'a') + "\"}\n" + corpus.substr(half));
        Result r =
            runCli({QStringLiteral("run"), q(plain), QStringLiteral("-p"), q(path("long/p.ndw")),
                    QStringLiteral("-q"), QStringLiteral("--max-line-bytes"), QStringLiteral("1M"),
                    QStringLiteral("--out-jsonl"), q(path("long/out.jsonl"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(sqlRows(path("long/p.ndw"), "SELECT reason, count FROM dataset_rejections"),
                 QStringList{QStringLiteral("line_too_long|1")});
        QCOMPARE(sqlRows(path("long/p.ndw"), "SELECT documents FROM runs"),
                 QStringList{QStringLiteral("600")});
        QVERIFY(readFile(path("long/out.jsonl")) == readFile(path("pipe.jsonl")));
        // The skipped bytes are part of the file's fingerprint: a touched file is accepted.
        writeFile(plain + ".copy", readFile(plain));
        fs::rename(plain + ".copy", plain);
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("long/p.ndw")),
                    QStringLiteral("--out-jsonl"), q(path("long/again.jsonl"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(readFile(path("long/again.jsonl")) == readFile(path("long/out.jsonl")));
        // A 512 MB line (gzip) under a 64 MB budget: the default limit (budget / 16) applies and
        // memory stays near the budget.
        const std::string gz = path("long/zeros.jsonl.gz");
        gzFile out = gzopen(gz.c_str(), "wb1");
        QVERIFY(out != nullptr);
        const std::string zeros(1 << 20, '0');
        gzwrite(out, "{\"text\":\"", 9);
        for (int i = 0; i < 512; ++i)
            gzwrite(out, zeros.data(), static_cast<unsigned>(zeros.size()));
        gzwrite(out, "\"}\n{\"id\":\"after\",\"text\":\"the line after\"}\n", 42);
        gzclose(out);
        r = runCli(
            {QStringLiteral("run"), q(gz), q(path("corpus.jsonl")), QStringLiteral("-p"),
             q(path("long/z.ndw")), QStringLiteral("-q"), QStringLiteral("--memory-budget"),
             QStringLiteral("64M"), QStringLiteral("--summary-json"), q(path("long/z.json"))},
            dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(sqlRows(path("long/z.ndw"), "SELECT reason, count FROM dataset_rejections"),
                 QStringList{QStringLiteral("line_too_long|1")});
        QCOMPARE(sqlRows(path("long/z.ndw"), "SELECT documents FROM runs"),
                 QStringList{QStringLiteral("601")});
        const std::string summary = readFile(path("long/z.json"));
        const std::size_t at = summary.find("\"peak_rss_bytes\": ");
        QVERIFY(at != std::string::npos);
        const uint64_t peak = std::stoull(summary.substr(at + 18));
        QVERIFY2(peak < (uint64_t{200} << 20), std::to_string(peak).c_str());
    }

    // Inputs that moved: `neardup relocate` re-points the project after checking each file.
    void relocateRepointsMovedInputs() {
        fs::create_directories(path("mv/old/sub"));
        fs::copy_file(path("corpus.jsonl"), path("mv/old/sub/a.jsonl"));
        writeFile(path("mv/old/b.jsonl"), "{\"id\":\"b\",\"text\":\"a second file\"}\n");
        const std::string project = path("mv/p.ndw");
        Result r =
            runCli({QStringLiteral("run"), q(path("mv/old")), QStringLiteral("-p"), q(project),
                    QStringLiteral("-q"), QStringLiteral("--out-jsonl"), q(path("mv/first.jsonl"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // Copied (new inodes and times), then the old folder removed.
        fs::copy(path("mv/old"), path("mv/new"), fs::copy_options::recursive);
        fs::remove_all(path("mv/old"));
        auto exportJsonl = [&](const char* name) {
            return runCli({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                           QStringLiteral("--out-jsonl"), q(path(std::string("mv/") + name))},
                          dir_);
        };
        r = exportJsonl("x.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("not found")) &&
                     r.err.contains(QStringLiteral("relocate")),
                 qPrintable(r.err));
        // A changed file at the new place: refused, nothing changed.
        const std::string b = readFile(path("mv/new/b.jsonl"));
        std::string changed = b;
        changed[10] = 'c';
        writeFile(path("mv/new/b.jsonl"), changed);
        const QStringList before = sqlRows(project, "SELECT path FROM dataset_files");
        r = runCli(
            {QStringLiteral("relocate"), QStringLiteral("-p"), q(project), QStringLiteral("--from"),
             q(path("mv/old")), QStringLiteral("--to"), q(path("mv/new"))},
            dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("content differs")) &&
                     r.err.contains(q(path("mv/new/b.jsonl"))),
                 qPrintable(r.err));
        QCOMPARE(sqlRows(project, "SELECT path FROM dataset_files"), before);
        writeFile(path("mv/new/b.jsonl"), b);
        r = runCli(
            {QStringLiteral("relocate"), QStringLiteral("-p"), q(project), QStringLiteral("--from"),
             q(path("mv/old")), QStringLiteral("--to"), q(path("mv/new"))},
            dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("relocated 2 input file(s)")), qPrintable(r.err));
        QCOMPARE(sqlRows(project, "SELECT path FROM dataset_files ORDER BY file_index"),
                 (QStringList{q(path("mv/new/b.jsonl")), q(path("mv/new/sub/a.jsonl"))}));
        r = exportJsonl("y.jsonl");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(readFile(path("mv/y.jsonl")) == readFile(path("mv/first.jsonl")));
        // A run on the new folder reuses the relocated dataset.
        r = runCli({QStringLiteral("run"), q(path("mv/new")), QStringLiteral("-p"), q(project),
                    QStringLiteral("--summary-json"), q(path("mv/s.json"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(readFile(path("mv/s.json")).find("\"signatures_reused\": true") !=
                std::string::npos);
    }

    // Two datasets of one path, the file edited between their runs: relocate refused the whole
    // move without saying which dataset did not match, and could not move the one that does.
    void relocateNamesTheDatasetAndMovesOneAlone() {
        fs::create_directories(path("two/old"));
        const std::string first = "{\"id\":\"a\",\"text\":\"the first version of it\"}\n";
        std::string second = first;
        second[30] = 'X';
        writeFile(path("two/old/f.jsonl"), first);
        const std::string project = path("two/p.ndw");
        auto runOn = [&] {
            return runCli({QStringLiteral("run"), q(path("two/old")), QStringLiteral("-p"),
                           q(project), QStringLiteral("-q")},
                          dir_);
        };
        Result r = runOn();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        writeFile(path("two/old/f.jsonl"), second);
        r = runOn();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(sqlRows(project, "SELECT count(*) FROM datasets"),
                 QStringList{QStringLiteral("2")});
        fs::rename(path("two/old"), path("two/new"));
        const QStringList relocate{
            QStringLiteral("relocate"), QStringLiteral("-p"), q(project),
            QStringLiteral("--from"),   q(path("two/old")),   QStringLiteral("--to"),
            q(path("two/new"))};
        r = runCli(relocate, dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("dataset 1 (run 1)")) &&
                     r.err.contains(QStringLiteral("content differs")) &&
                     !r.err.contains(QStringLiteral("dataset 2")),
                 qPrintable(r.err));
        r = runCli(relocate + QStringList{QStringLiteral("--dataset"), QStringLiteral("2")}, dir_);
        QVERIFY2(r.code == 0 && r.err.contains(QStringLiteral("relocated 1 input file(s)")),
                 qPrintable(r.err));
        QCOMPARE(sqlRows(project, "SELECT path FROM dataset_files ORDER BY dataset_id"),
                 (QStringList{q(path("two/old/f.jsonl")), q(path("two/new/f.jsonl"))}));
        r = runCli(relocate + QStringList{QStringLiteral("--dataset"), QStringLiteral("7")}, dir_);
        QVERIFY2(r.code == 1 && r.err.contains(QStringLiteral("no dataset 7")), qPrintable(r.err));
        r = runCli(
            {QStringLiteral("export"), QStringLiteral("-p"), q(project), QStringLiteral("--run"),
             QStringLiteral("2"), QStringLiteral("--out-jsonl"), q(path("two/out.jsonl"))},
            dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("two/out.jsonl")), second);
    }
};

QTEST_GUILESS_MAIN(TestUserFilesInputs)
#include "test_user_files_inputs.moc"
