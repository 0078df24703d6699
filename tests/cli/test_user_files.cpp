// A user's files are sacred: outputs never land on an input, the project or its
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
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include "document_fetcher.h"
#include "input_pin.h"
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
        // The final commit of the next run fails (as on a full disk): its run row's last update.
        {
            const testsupport::FailingSql failing("UPDATE runs SET dataset_id");
            r = testsupport::neardup(
                {QStringLiteral("run"), q(path("corpus.jsonl")), QStringLiteral("-p"), q(project),
                 QStringLiteral("-q"), QStringLiteral("-j"), QStringLiteral("2"),
                 QStringLiteral("--out-kept"), q(path("c-kept.txt")), QStringLiteral("--out-jsonl"),
                 q(path("c.jsonl")), QStringLiteral("--summary-json"), q(path("c-summary.json"))},
                CliOptions().inFolder(q(dir_)));
        }
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no space left on device")), qPrintable(r.err));
        QVERIFY(!fs::exists(path("c-kept.txt")));
        QVERIFY(!fs::exists(path("c.jsonl")));
        QVERIFY(!fs::exists(path("c-summary.json")));
        QCOMPARE(temporaries(dir_), QStringList());
        QCOMPARE(sqlRows(project, "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("ok"), QStringLiteral("failed")}));
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

    // A project named through a link is the file the link leads to: one sidecar folder beside
    // it whichever name opened it, so that its caches, lock and resume records are not split.
    void aProjectNamedThroughALinkKeepsOneSidecar() {
        Result r = run(path("linked-real.ndw"), {});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(fs::is_directory(path("linked-real.ndw.d")));
        QCOMPARE(::symlink(path("linked-real.ndw").c_str(), path("linked.ndw").c_str()), 0);
        r = run(path("linked.ndw"), {QStringLiteral("--threshold"), QStringLiteral("0.7")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(!fs::exists(path("linked.ndw.d")));
        QCOMPARE(sqlRows(path("linked-real.ndw"), "SELECT count(*) FROM runs"),
                 QStringList{QStringLiteral("2")});
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
        // A deliberate edit of the same size: two 8-byte words of a text changed so that a
        // position-weighted sum of the content stays the same (the pin of schema versions 3 to
        // 5, which anyone could match). The keyed pin is not matched.
        std::string forged = original;
        const std::size_t w = (forged.find("\"text\"", forged.size() / 3) + 16) / 8;
        const std::size_t u = (forged.find("\"text\"", 2 * forged.size() / 3) + 16) / 8;
        auto weight = [](std::size_t word) {
            const char one[8] = {1, 0, 0, 0, 0, 0, 0, 0};
            return neardup::fingerprintPart(one, 8, 8 * word);
        };
        auto inverse = [](uint64_t odd) {  // Newton's iteration modulo 2^64
            uint64_t x = odd;
            for (int i = 0; i < 6; ++i)
                x *= 2 - odd * x;
            return x;
        };
        uint64_t wordW = 0, wordU = 0;
        std::memcpy(&wordW, forged.data() + 8 * w, 8);
        std::memcpy(&wordU, forged.data() + 8 * u, 8);
        const uint64_t delta = uint64_t{1} << 8;  // the word's second byte + 1
        wordW += delta;
        wordU -= delta * weight(w) * inverse(weight(u));
        std::memcpy(forged.data() + 8 * w, &wordW, 8);
        std::memcpy(forged.data() + 8 * u, &wordU, 8);
        QVERIFY(forged != original && forged.size() == original.size());
        QCOMPARE(neardup::fingerprintPart(forged.data(), forged.size(), 0),
                 neardup::fingerprintPart(original.data(), original.size(), 0));
        writeFile(input, forged);
        restoreMtime();
        r = exportJsonl("f.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("content differs")), qPrintable(r.err));
        QVERIFY(!fs::exists(path("pin/f.jsonl")));
        writeFile(input, original);
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

    // Rows moved within the file's range were exported: a line cut mid-record, or another
    // document under the row's id. The line at a row's offset must be its document's.
    void exportRefusesRowsThatNameAnotherLine() {
        const std::string project = path("pin/p.ndw");
        const std::string copy = path("pin/moved.ndw");
        struct Case {
            const char* edit;
            const char* says;
        };
        const Case cases[] = {
            // Seven bytes into its own line: not the start of a line.
            {"UPDATE documents SET offset = offset + 7 WHERE doc_index = 4",
             "not the start of a line"},
            // Another document's line, whole: its id is not the row's.
            {"UPDATE documents SET (offset, length) = (SELECT offset, length FROM documents "
             "WHERE doc_index = 9) WHERE doc_index = 4",
             "the row's id"},
            // Its own start, a shorter length: the line goes on.
            {"UPDATE documents SET length = length - 5 WHERE doc_index = 4",
             "ends inside its line"},
        };
        for (const Case& c : cases) {
            fs::copy_file(project, copy, fs::copy_options::overwrite_existing);
            QVERIFY2(sqlExec(copy, c.edit), c.edit);
            const Result r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(copy),
                                     QStringLiteral("--out-jsonl"), q(path("pin/moved.jsonl"))},
                                    dir_);
            const QByteArray what = QByteArray(c.edit) + ": " + r.err.toUtf8();
            QVERIFY2(r.code == 1, what.constData());
            QVERIFY2(r.err.contains(QLatin1String(c.says)), what.constData());
            QVERIFY2(r.err.contains(QStringLiteral("moved.ndw' is damaged")) &&
                         r.err.contains(QStringLiteral("document #4 of dataset 1")),
                     what.constData());
            QVERIFY(!fs::exists(path("pin/moved.jsonl")));
        }
        // An id with a line break (which the reader never stores) would split into several
        // lines of an id list: refused when the rows are loaded.
        for (const char* breakChar : {"char(10)", "char(8232)"}) {
            fs::copy_file(project, copy, fs::copy_options::overwrite_existing);
            const std::string edit = std::string("UPDATE documents SET doc_id = 'a' || ") +
                                     breakChar + " || 'b' WHERE doc_index = 4";
            QVERIFY(sqlExec(copy, edit.c_str()));
            const Result r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(copy),
                                     QStringLiteral("--out-removed"), q(path("pin/ids.txt"))},
                                    dir_);
            QVERIFY2(r.code == 1 && r.err.contains(QStringLiteral("damaged")) &&
                         r.err.contains(QStringLiteral("has an id holding")),
                     qPrintable(r.err));
            QVERIFY(!fs::exists(path("pin/ids.txt")));
        }
        // The workbench shows a document through the fetcher: another document's line under
        // this one's name is refused there too, and says why.
        fs::copy_file(project, copy, fs::copy_options::overwrite_existing);
        QVERIFY(sqlExec(copy, cases[1].edit));
        neardup::ProjectStore store(copy);
        neardup::DocumentTable docs;
        const neardup::DatasetRecord dataset = store.loadDataset(1, &docs);
        neardup::DocumentFetcher fetcher(dataset.files, dataset.reader);
        QVERIFY(fetcher.fetch(docs, 3).ok);
        const neardup::FetchedDocument moved = fetcher.fetch(docs, 4);
        QVERIFY(!moved.ok);
        QVERIFY2(moved.error.find("row of this document is damaged") != std::string::npos,
                 moved.error.c_str());
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
        // Run 2 fails at its final commit (as on a full disk).
        {
            const testsupport::FailingSql failing("UPDATE runs SET dataset_id");
            r = testsupport::neardup(
                {QStringLiteral("run"), q(input), QStringLiteral("-p"), q(project),
                 QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("0.7")},
                CliOptions().inFolder(q(dir_)));
        }
        QCOMPARE(r.code, 1);
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
};

QTEST_GUILESS_MAIN(TestUserFiles)
#include "test_user_files.moc"
