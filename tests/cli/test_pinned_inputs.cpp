// A project's inputs are pinned by identity and content (core/io/input_pin.h), and every command
// that uses a stored run on them takes the same decision: `recluster` accepts a touched input or
// an identical copy as `export` does, refuses a changed one naming it, and `relocate` compares
// and stores paths as written lexically (no "//", no trailing slash), saying so when a relocation
// changes nothing. Every case runs `neardup` as a process, as a user would.
#include <fcntl.h>
#include <sys/stat.h>

#include <QTest>
#include <filesystem>
#include <string>

#include "test_support.h"
#include "user_files_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;
using testsupport::sqlRows;
using namespace userfiles;

class TestPinnedInputs : public CorpusFixture {
    Q_OBJECT

    // `neardup recluster -p project --run 1 -t 0.9 -q extra...`.
    Result recluster(const std::string& project, QStringList extra = {}) {
        QStringList args{QStringLiteral("recluster"), QStringLiteral("-p"), q(project),
                         QStringLiteral("--run"),     QStringLiteral("1"),  QStringLiteral("-t"),
                         QStringLiteral("0.9"),       QStringLiteral("-q")};
        args << extra;
        return runCli(args, dir_);
    }

    Result relocate(const std::string& project, const std::string& from, const std::string& to) {
        return runCli({QStringLiteral("relocate"), QStringLiteral("-p"), q(project),
                       QStringLiteral("--from"), q(from), QStringLiteral("--to"), q(to)},
                      dir_);
    }

    // A folder holding a copy of the corpus, and run 1 of `project` on it.
    void runOnACopy(const std::string& folder, const std::string& project) {
        fs::create_directories(path(folder));
        fs::copy_file(path("corpus.jsonl"), path(folder + "/in.jsonl"),
                      fs::copy_options::overwrite_existing);
        const Result r =
            runCli({QStringLiteral("run"), q(path(folder + "/in.jsonl")), QStringLiteral("-p"),
                    q(project), QStringLiteral("-q"), QStringLiteral("-j"), QStringLiteral("2")},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    QString lastRunReusedPairs(const std::string& project) {
        return sqlRows(project, "SELECT pairs_reused FROM runs ORDER BY id DESC LIMIT 1")
            .join(QLatin1Char(','));
    }

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    // The content pin decides, as for export: a touch or an identical copy is the file that
    // was read, so the run's stored pairs still apply; an edit of the same size is refused by
    // name.
    void reclusterAcceptsATouchedOrCopiedInput() {
        const std::string project = path("touch/p.ndw");
        runOnACopy("touch", project);
        const std::string input = path("touch/in.jsonl");
        const std::string original = readFile(input);
        // A touch: other times, same content.
        struct stat st {};
        QVERIFY(::stat(input.c_str(), &st) == 0);
        struct timespec times[2] = {st.st_atim, st.st_mtim};
        times[1].tv_sec += 10;
        QVERIFY(::utimensat(AT_FDCWD, input.c_str(), times, 0) == 0);
        Result r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                           QStringLiteral("--out-kept"), q(path("touch/kept.txt"))},
                          dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = recluster(project, {QStringLiteral("--out-kept"), q(path("touch/kept-2.txt"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(lastRunReusedPairs(project), QStringLiteral("1"));
        QVERIFY(fs::exists(path("touch/kept-2.txt")));
        // An identical copy: another inode, other times.
        writeFile(input + ".new", original);
        fs::rename(input + ".new", input);
        r = recluster(project);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(lastRunReusedPairs(project), QStringLiteral("1"));
        // One byte of a text changed, the size kept: refused, the file named, no run added.
        std::string edited = original;
        const std::size_t at = edited.find("\"text\"", edited.size() / 2) + 10;
        edited[at] = edited[at] == 'x' ? 'y' : 'x';
        writeFile(input, edited);
        const QStringList runsBefore = sqlRows(project, "SELECT count(*) FROM runs");
        r = recluster(project);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(q(input)) && r.err.contains(QStringLiteral("content differs")),
                 qPrintable(r.err));
        QCOMPARE(sqlRows(project, "SELECT count(*) FROM runs"), runsBefore);
        // Put back, it is accepted again.
        writeFile(input, original);
        r = recluster(project);
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    // "/" and trailing slashes name the same folders as without them: stored paths never get
    // "//", and a relocation onto the place the inputs already are changes nothing and says so.
    void relocateNormalizesPathsLexically() {
        const std::string project = path("reloc/p.ndw");
        runOnACopy("reloc/data", project);
        const QStringList stored = sqlRows(project, "SELECT path FROM dataset_files");
        QCOMPARE(stored, QStringList{q(path("reloc/data/in.jsonl"))});
        const std::pair<std::string, std::string> sameFolder[] = {
            {"/", "/"},
            {path("reloc/data/"), path("reloc/data")},
            {path("reloc/data"), path("reloc/data//")},
            {path("reloc//data/"), path("reloc/./data/")},
        };
        for (const auto& [from, to] : sameFolder) {
            const Result r = relocate(project, from, to);
            const QString what = q(from + " -> " + to + ": ") + r.err;
            QVERIFY2(r.code == 0, qPrintable(what));
            QVERIFY2(r.err.contains(QStringLiteral("nothing changed")), qPrintable(what));
            QCOMPARE(sqlRows(project, "SELECT path FROM dataset_files"), stored);
        }
        // A real move, the folders written with trailing slashes: the path as if without.
        fs::rename(path("reloc/data"), path("reloc/moved"));
        Result r = relocate(project, path("reloc/data/"), path("reloc/moved/"));
        QVERIFY2(r.code == 0 && r.err.contains(QStringLiteral("relocated 1 input file(s)")),
                 qPrintable(r.err));
        QCOMPARE(sqlRows(project, "SELECT path FROM dataset_files"),
                 QStringList{q(path("reloc/moved/in.jsonl"))});
        r = recluster(project);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(lastRunReusedPairs(project), QStringLiteral("1"));
        // From "/" to "/" after the move: still nothing changed, and the stored path intact.
        r = relocate(project, "/", "/");
        QVERIFY2(r.code == 0 && r.err.contains(QStringLiteral("nothing changed")),
                 qPrintable(r.err));
        QCOMPARE(sqlRows(project, "SELECT path FROM dataset_files"),
                 QStringList{q(path("reloc/moved/in.jsonl"))});
        // The folder named by a longer path that lies above it also matches.
        r = relocate(project, path("reloc/moved/../moved"), path("reloc/moved"));
        QVERIFY2(r.code == 0 && r.err.contains(QStringLiteral("nothing changed")),
                 qPrintable(r.err));
        // A path stored with "//" (as relocating from "/" once wrote it) is the same place: a
        // relocation onto its folder writes it back in its normal form.
        const std::string doubled =
            "UPDATE dataset_files SET path = '/" + path("reloc/moved/in.jsonl") + "'";
        QVERIFY(testsupport::sqlExec(project, doubled.c_str()));
        r = relocate(project, path("reloc/moved"), path("reloc/moved"));
        QVERIFY2(r.code == 0 && r.err.contains(QStringLiteral("relocated 1 input file(s)")),
                 qPrintable(r.err));
        QCOMPARE(sqlRows(project, "SELECT path FROM dataset_files"),
                 QStringList{q(path("reloc/moved/in.jsonl"))});
    }
};

QTEST_GUILESS_MAIN(TestPinnedInputs)
#include "test_pinned_inputs.moc"
