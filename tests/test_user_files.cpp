// A user's files are sacred (issue 12): outputs never land on an input, the project or its
// companions; two outputs never share a file; outputs appear only once the run is committed;
// projects work from any directory; inputs are pinned and checked before stored offsets are
// used; exit codes tell the truth. Every case runs `neardup` as a process, as a user would.
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

class TestUserFiles : public CorpusFixture {
    Q_OBJECT
    QString runCount(const std::string& project) const {
        return sqlRows(project, "SELECT count(*) FROM runs").join(QLatin1Char(','));
    }

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    // Item 1: an output onto the project, its journal or its sidecar folder destroyed it.
    void outputOntoTheProjectIsRefused() {
        const std::string project = path("p.ndw");
        Result r = run(project, {});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string before = readFile(project);
        struct Case {
            const char* command;
            const char* option;
            std::string target;
            const char* says;
        };
        ::symlink(project.c_str(), path("link-to-project").c_str());
        const Case cases[] = {
            {"run", "--out-kept", project, "refusing to overwrite the project"},
            {"run", "--out-removed", "./p.ndw", "refusing to overwrite the project"},
            {"run", "--out-jsonl", path("p.ndw-journal"), "journal file"},
            {"run", "--summary-json", path("p.ndw-wal"), "wal file"},
            {"run", "--out-clusters", path("p.ndw.d/clusters.jsonl"), "sidecar folder"},
            {"run", "--out-kept", path("link-to-project"), "refusing to overwrite the project"},
            {"export", "--out-kept", project, "refusing to overwrite the project"},
            {"export", "--out-removed", "p.ndw", "refusing to overwrite the project"},
            {"export", "--out-jsonl", path("p.ndw-journal"), "journal file"},
            {"export", "--out-clusters", path("p.ndw.d/c.jsonl"), "sidecar folder"},
            {"export", "--rejected", path("link-to-project"), "refusing to overwrite the project"},
        };
        for (const Case& c : cases) {
            if (std::string(c.command) == "run") {
                r = run(project, {QLatin1String(c.option), q(c.target)});
            } else {
                r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                            QLatin1String(c.option), q(c.target)},
                           dir_);
            }
            const QByteArray what = QByteArray(c.command) + " " + c.option + " " +
                                    QByteArray::fromStdString(c.target) + ": " + r.err.toUtf8();
            QVERIFY2(r.code == 1, what.constData());
            QVERIFY2(r.err.contains(QLatin1String(c.says)), what.constData());
            QVERIFY2(readFile(project) == before, what.constData());
            QCOMPARE(runCount(project), QStringLiteral("1"));
        }
        QVERIFY(!fs::exists(path("p.ndw-journal")));
        QVERIFY(!fs::exists(path("p.ndw.d/clusters.jsonl")));
        QVERIFY(!fs::exists(path("p.ndw.d/c.jsonl")));
        QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
    }

    // Item 4: two outputs on one file were found only at the end, the file left holding both.
    void twoOutputsOnOneFileAreRefusedBeforeAnyWork() {
        const std::string project = path("two.ndw");
        Result r = run(project, {QStringLiteral("--out-kept"), QStringLiteral("k.txt"),
                                 QStringLiteral("--out-removed"), QStringLiteral("./k.txt")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("name the same file")), qPrintable(r.err));
        QVERIFY(!fs::exists(path("k.txt")));
        QVERIFY(testsupport::noRunRecorded(project));
        // A hard link and a symlink are the same file too.
        writeFile(path("h1.txt"), "old\n");
        QVERIFY(::link(path("h1.txt").c_str(), path("h2.txt").c_str()) == 0);
        QVERIFY(::symlink(path("h1.txt").c_str(), path("h3.txt").c_str()) == 0);
        for (const char* other : {"h2.txt", "h3.txt", "sub/../h1.txt"}) {
            fs::create_directories(path("sub"));
            r = run(project, {QStringLiteral("--out-kept"), q(path("h1.txt")),
                              QStringLiteral("--out-clusters"), q(path(other))});
            QVERIFY2(r.code == 1, other);
            QVERIFY2(r.err.contains(QStringLiteral("name the same file")), qPrintable(r.err));
            QCOMPARE(readFile(path("h1.txt")), std::string("old\n"));
            QVERIFY(testsupport::noRunRecorded(project));
        }
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("p.ndw")),
                    QStringLiteral("--out-kept"), q(path("h2.txt")), QStringLiteral("--rejected"),
                    q(path("h1.txt"))},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("name the same file")), qPrintable(r.err));
        QCOMPARE(readFile(path("h1.txt")), std::string("old\n"));
    }

    // Outputs were renamed into place before the run's final commit: a failing commit left
    // outputs of a run the project calls failed.
    void outputsAppearOnlyAfterTheFinalCommit() {
        const std::string project = path("commit.ndw");
        Result r = run(project, {});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // The final commit of the next run fails (as on a full disk).
        QVERIFY(sqlExec(project,
                        "CREATE TRIGGER fail_commit BEFORE UPDATE OF status ON runs "
                        "WHEN NEW.status = 'ok' BEGIN SELECT RAISE(ABORT, 'planted failure'); "
                        "END"));
        r = run(project,
                {QStringLiteral("--out-kept"), q(path("c-kept.txt")), QStringLiteral("--out-jsonl"),
                 q(path("c.jsonl")), QStringLiteral("--summary-json"), q(path("c-summary.json"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("planted failure")), qPrintable(r.err));
        QVERIFY(!fs::exists(path("c-kept.txt")));
        QVERIFY(!fs::exists(path("c.jsonl")));
        QVERIFY(!fs::exists(path("c-summary.json")));
        QCOMPARE(temporaries(dir_), QStringList());
        QCOMPARE(sqlRows(project, "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("ok"), QStringLiteral("failed")}));
        QVERIFY(sqlExec(project, "DROP TRIGGER fail_commit"));
        r = run(project,
                {QStringLiteral("--out-kept"), q(path("c-kept.txt")), QStringLiteral("--out-jsonl"),
                 q(path("c.jsonl")), QStringLiteral("--summary-json"), q(path("c-summary.json"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(fs::file_size(path("c-kept.txt")) > 0);
        QVERIFY(fs::file_size(path("c.jsonl")) > 0);
        QVERIFY(readFile(path("c-summary.json")).find("\"status\": \"ok\"") != std::string::npos);
    }

    // Item 2: paths stored as given were resolved against the current directory: an export from
    // elsewhere overwrote the corpus, and documents could not be shown.
    void projectsWorkFromAnyDirectory() {
        fs::create_directories(path("data"));
        fs::copy_file(path("corpus.jsonl"), path("data/corpus.jsonl"),
                      fs::copy_options::overwrite_existing);
        const std::string corpus = readFile(path("data/corpus.jsonl"));
        Result r =
            runCli({QStringLiteral("run"), QStringLiteral("corpus.jsonl"), QStringLiteral("-p"),
                    QStringLiteral("../proj.ndw"), QStringLiteral("-q"),
                    QStringLiteral("--out-jsonl"), QStringLiteral("../run-dedup.jsonl")},
                   path("data"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(sqlRows(path("proj.ndw"), "SELECT path FROM dataset_files"),
                 QStringList{q(path("data/corpus.jsonl"))});
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), QStringLiteral("proj.ndw"),
                    QStringLiteral("--out-removed"), QStringLiteral("data/corpus.jsonl")},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("refusing to overwrite input file")),
                 qPrintable(r.err));
        QVERIFY(readFile(path("data/corpus.jsonl")) == corpus);
        // From another directory altogether, the kept lines come out as the run wrote them.
        fs::create_directories(path("elsewhere"));
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("proj.ndw")),
                    QStringLiteral("--out-jsonl"), QStringLiteral("dedup.jsonl")},
                   path("elsewhere"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(readFile(path("elsewhere/dedup.jsonl")) == readFile(path("run-dedup.jsonl")));
        QVERIFY(!readFile(path("run-dedup.jsonl")).empty());
        // "Not found" says not found (not "shorter than when it was read").
        fs::rename(path("data/corpus.jsonl"), path("data/moved.jsonl"));
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("proj.ndw")),
                    QStringLiteral("--out-jsonl"), QStringLiteral("gone.jsonl")},
                   path("elsewhere"));
        fs::rename(path("data/moved.jsonl"), path("data/corpus.jsonl"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("not found")), qPrintable(r.err));
        QVERIFY2(r.err.contains(q(path("data/corpus.jsonl"))), qPrintable(r.err));
        QVERIFY(!fs::exists(path("elsewhere/gone.jsonl")));
    }

    // Item 3: export used stored offsets on whatever file was at the path.
    void exportRefusesChangedInputs() {
        fs::create_directories(path("pin"));
        const std::string input = path("pin/in.jsonl");
        const std::string project = path("pin/p.ndw");
        fs::copy_file(path("corpus.jsonl"), input, fs::copy_options::overwrite_existing);
        const std::string original = readFile(input);
        Result r = runCli(
            {QStringLiteral("run"), q(input), QStringLiteral("-p"), q(project),
             QStringLiteral("-q"), QStringLiteral("--out-jsonl"), q(path("pin/first.jsonl"))},
            dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string first = readFile(path("pin/first.jsonl"));
        auto exportJsonl = [&](const char* name) {
            return runCli({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                           QStringLiteral("--out-jsonl"), q(path(std::string("pin/") + name))},
                          dir_);
        };
        struct stat before {};
        QVERIFY(::stat(input.c_str(), &before) == 0);
        auto restoreMtime = [&] {
            const struct timespec times[2] = {before.st_atim, before.st_mtim};
            QVERIFY(::utimensat(AT_FDCWD, input.c_str(), times, 0) == 0);
        };
        // A line prepended.
        writeFile(input, "{\"id\":\"new\",\"text\":\"prepended\"}\n" + original);
        r = exportJsonl("a.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("changed since it was read")) &&
                     r.err.contains(QStringLiteral("bytes")) && r.err.contains(q(input)),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(path("pin/a.jsonl")));
        // The same size, one byte of a text changed, the modification time put back.
        std::string edited = original;
        const std::size_t at = edited.find("\"text\"", edited.size() / 2) + 10;
        edited[at] = edited[at] == 'x' ? 'y' : 'x';
        writeFile(input, edited);
        restoreMtime();
        r = exportJsonl("b.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("content differs")), qPrintable(r.err));
        QVERIFY(!fs::exists(path("pin/b.jsonl")));
        {
            // The workbench reads documents back the same way: it shows why it cannot.
            neardup::ProjectStore store(project);
            neardup::DocumentTable docs;
            const neardup::DatasetRecord dataset = store.loadDataset(1, &docs);
            neardup::DocumentFetcher fetcher(dataset.files, dataset.reader);
            const neardup::FetchedDocument doc = fetcher.fetch(docs, 0);
            QVERIFY(!doc.ok);
            QVERIFY2(doc.error.find("content differs") != std::string::npos, doc.error.c_str());
        }
        // The same content again, but another file (new inode, new times): accepted, by its
        // fingerprint.
        writeFile(input + ".new", original);
        fs::rename(input + ".new", input);
        r = exportJsonl("c.jsonl");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(readFile(path("pin/c.jsonl")) == first);
        // Another file of the same size at the path.
        writeFile(input + ".new", edited);
        fs::rename(input + ".new", input);
        r = exportJsonl("d.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("content differs")), qPrintable(r.err));
        writeFile(input, original);
        r = exportJsonl("e.jsonl");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(readFile(path("pin/e.jsonl")) == first);
    }

    // Item 3: rows edited in the project were trusted (a path to another file, a length of -1).
    void exportRefusesDamagedRows() {
        const std::string project = path("pin/p.ndw");
        fs::copy_file(project, path("pin/q.ndw"), fs::copy_options::overwrite_existing);
        const std::string copy = path("pin/q.ndw");
        auto exportJsonl = [&](const char* name) {
            return runCli({QStringLiteral("export"), QStringLiteral("-p"), q(copy),
                           QStringLiteral("--out-jsonl"), q(path(std::string("pin/") + name))},
                          dir_);
        };
        QVERIFY(sqlExec(copy, "UPDATE documents SET length = -1 WHERE doc_index = 3"));
        Result r = exportJsonl("f.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("damaged")), qPrintable(r.err));
        QVERIFY(sqlExec(copy,
                        "UPDATE documents SET length = 10, offset = 1000000000 "
                        "WHERE doc_index = 3"));
        r = exportJsonl("g.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("beyond")), qPrintable(r.err));
        fs::copy_file(project, copy, fs::copy_options::overwrite_existing);
        QVERIFY(sqlExec(copy, "UPDATE dataset_files SET path = '/etc/passwd'"));
        r = exportJsonl("h.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("/etc/passwd")) &&
                     r.err.contains(QStringLiteral("changed since it was read")),
                 qPrintable(r.err));
        for (const char* name : {"f.jsonl", "g.jsonl", "h.jsonl"})
            QVERIFY(!fs::exists(path(std::string("pin/") + name)));
    }

    // Item 3: --resume checks the inputs of the run it resumes.
    void resumeRefusesChangedInputs() {
        fs::create_directories(path("res"));
        const std::string input = path("res/in.jsonl");
        const std::string project = path("res/p.ndw");
        fs::copy_file(path("corpus.jsonl"), input, fs::copy_options::overwrite_existing);
        Result r = runCli({QStringLiteral("run"), q(input), QStringLiteral("-p"), q(project),
                           QStringLiteral("-q")},
                          dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(sqlExec(project,
                        "CREATE TRIGGER fail_commit BEFORE UPDATE OF status ON runs "
                        "WHEN NEW.status = 'ok' BEGIN SELECT RAISE(ABORT, 'planted failure'); "
                        "END"));
        r = runCli({QStringLiteral("run"), q(input), QStringLiteral("-p"), q(project),
                    QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("0.7")},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY(sqlExec(project, "DROP TRIGGER fail_commit"));
        std::string text = readFile(input);
        text[text.size() / 2] = text[text.size() / 2] == 'a' ? 'b' : 'a';
        writeFile(input, text);
        r = runCli({QStringLiteral("run"), QStringLiteral("-p"), q(project),
                    QStringLiteral("--resume"), QStringLiteral("-q")},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("cannot resume run 2")) && r.err.contains(q(input)),
                 qPrintable(r.err));
    }

    // Item 5: a second process opening the project while another wrote it was told "not a
    // NearDup project (database is locked)". Concurrent runs now wait their turn.
    void concurrentRunsWaitTheirTurn() {
        const std::string project = path("busy.ndw");
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int i = 0; i < 4; ++i) {
            auto p = std::make_unique<QProcess>();
            p->setWorkingDirectory(q(dir_));
            p->start(testsupport::cliPath(),
                     {QStringLiteral("run"), q(path("corpus.jsonl")), QStringLiteral("-p"),
                      q(project), QStringLiteral("-q"), QStringLiteral("-j"), QStringLiteral("1"),
                      QStringLiteral("-t"), QString::number(0.6 + 0.1 * i)});
            procs.push_back(std::move(p));
        }
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(300000));
            QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
        }
        QCOMPARE(sqlRows(project, "SELECT count(*) FROM runs WHERE status = 'ok'"),
                 QStringList{QStringLiteral("4")});
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

    // A Parquet or Arrow file is never read as text.
    void columnarFilesAreRefusedByName() {
        fs::create_directories(path("col"));
        writeFile(path("col/data.parquet"), std::string("PAR1\x15\x04\x15\x80\n", 9) + "PAR1");
        writeFile(path("col/data.arrow"), std::string("ARROW1\0\0\xff\xff\xff\xff", 12));
        for (const char* file : {"col/data.parquet", "col/data.arrow"}) {
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
        const Result r = runCli({QStringLiteral("run"), q(path("col/data.parquet")),
                                 QStringLiteral("-p"), q(path("col/p.ndw")), QStringLiteral("-q")},
                                dir_);
        QVERIFY2(r.err.contains(QStringLiteral("Parquet")), qPrintable(r.err));
    }

    // Item 9: failing to write the (optional) signature cache, as on a full disk, failed the
    // whole run.
    void theSignatureCacheIsOptional() {
        const std::string project = path("cache.ndw");
        Result r = run(project, {});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(sqlExec(project,
                        "CREATE TRIGGER no_cache BEFORE INSERT ON signature_caches "
                        "BEGIN SELECT RAISE(ABORT, 'database or disk is full (planted)'); END"));
        fs::copy_file(path("corpus.jsonl"), path("cache-input.jsonl"),
                      fs::copy_options::overwrite_existing);
        r = runCli({QStringLiteral("run"), q(path("cache-input.jsonl")), QStringLiteral("-p"),
                    q(project), QStringLiteral("--out-kept"), q(path("cache-kept.txt"))},
                   dir_);
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
};

QTEST_GUILESS_MAIN(TestUserFiles)
#include "test_user_files.moc"
