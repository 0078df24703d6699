// Faults at random points, as a full disk or a crash would strike: kill -9 during a run, or
// every file write failing beyond a random size (EFBIG). Part of "a user's files are sacred".
#include <signal.h>
#include <sys/resource.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <random>
#include <string>

#include "test_support.h"
#include "user_files_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;
using testsupport::sqlRows;
using namespace userfiles;

class TestFaultInjection : public CorpusFixture {
    Q_OBJECT
  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    // Faults at random points, several seeds: kill -9 during a run, or every file write failing
    // beyond a random size (EFBIG, as a full disk fails them). Whatever happens: the project
    // stays intact, no output exists under its final name unless the run succeeded, and
    // --resume writes outputs byte-identical to an undisturbed run.
    void randomFaultsLeaveProjectsIntactAndResumable() {
        fs::create_directories(path("fault"));
        auto outputs = [&](const std::string& tag) {
            return QStringList{
                QStringLiteral("--out-jsonl"),    q(path("fault/" + tag + ".jsonl")),
                QStringLiteral("--out-removed"),  q(path("fault/" + tag + ".removed")),
                QStringLiteral("--out-clusters"), q(path("fault/" + tag + ".clusters"))};
        };
        auto contents = [&](const std::string& tag) {
            return readFile(path("fault/" + tag + ".jsonl")) + "|" +
                   readFile(path("fault/" + tag + ".removed")) + "|" +
                   readFile(path("fault/" + tag + ".clusters"));
        };
        const char* const extensions[] = {".jsonl", ".removed", ".clusters"};
        auto anyOutput = [&](const std::string& tag) {
            for (const char* ext : extensions)
                if (fs::exists(path("fault/" + tag + ext))) return true;
            return false;
        };
        // The outputs a kill left under their final names: each is the finished run's file,
        // whole (a kill between the renames leaves some of them, never a partial one).
        auto leftOutputsAreWhole = [&](const std::string& tag) {
            for (const char* ext : extensions) {
                const std::string left = path("fault/" + tag + ext);
                if (fs::exists(left) &&
                    readFile(left) != readFile(path(std::string("fault/ref") + ext)))
                    return false;
            }
            return true;
        };
        Result r = run(path("fault/ref.ndw"), outputs("ref"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string reference = contents("ref");
        QVERIFY(reference.size() > 1000);
        int killed = 0, filled = 0;  // runs the fault stopped
        for (const unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
            std::mt19937 random(seed);
            for (const bool kill : {true, false}) {
                const std::string tag = (kill ? "kill" : "full") + std::to_string(seed);
                const std::string project = path("fault/" + tag + ".ndw");
                QProcess p;
                p.setWorkingDirectory(q(dir_));
                const auto limit =
                    static_cast<rlim_t>(std::uniform_int_distribution<int>(8, 640)(random) * 1024);
                if (!kill) {
                    p.setChildProcessModifier([limit] {
                        ::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
                        const struct rlimit rl = {limit, limit};
                        ::setrlimit(RLIMIT_FSIZE, &rl);
                    });
                }
                p.start(testsupport::cliPath(),
                        QStringList{QStringLiteral("run"), q(path("corpus.jsonl")),
                                    QStringLiteral("-p"), q(project), QStringLiteral("-q"),
                                    QStringLiteral("-j"), QStringLiteral("2")} +
                            outputs(tag));
                QVERIFY(p.waitForStarted());
                if (kill) {
                    QTest::qWait(std::uniform_int_distribution<int>(5, 250)(random));
                    p.kill();
                }
                // (It may have ended during the wait.)
                QVERIFY(p.state() == QProcess::NotRunning || p.waitForFinished(120000));
                const bool ok = p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
                const QByteArray what =
                    QByteArray::fromStdString(tag) + ": " + p.readAllStandardError();
                qInfo("%s (limit %llu): %s", tag.c_str(), static_cast<unsigned long long>(limit),
                      ok ? "finished" : "stopped");
                if (ok) {
                    QVERIFY2(contents(tag) == reference, what.constData());
                    continue;
                }
                ++(kill ? killed : filled);
                // A failed run writes nothing under a final name. A kill can land after the run
                // renamed some outputs into place and before the process exited.
                if (kill)
                    QVERIFY2(leftOutputsAreWhole(tag), what.constData());
                else
                    QVERIFY2(!anyOutput(tag), what.constData());
                // A run that failed cleans up after itself; one killed during its export may
                // leave its hidden `.<output>.tmp-<pid>` files (docs/reference/guarantees.md),
                // never an output under its final name.
                if (!kill)
                    QCOMPARE(temporaries(path("fault"))
                                 .filter(QStringLiteral(".%1.").arg(q(tag)), Qt::CaseSensitive),
                             QStringList());
                if (fs::exists(project))
                    QCOMPARE(sqlRows(project, "PRAGMA integrity_check"),
                             QStringList{QStringLiteral("ok")});
                r = runCli(QStringList{QStringLiteral("run"), QStringLiteral("-p"), q(project),
                                       QStringLiteral("--resume"), QStringLiteral("-q")} +
                               outputs(tag),
                           dir_);
                if (r.code != 0 && testsupport::noRunRecorded(project)) {
                    // Stopped before the run was recorded at all (no project yet, or killed before
                    // its lock existed): nothing to resume, so run it.
                    qInfo("%s: nothing recorded, run again", tag.c_str());
                    r = run(project, outputs(tag));
                } else if (r.code != 0 && kill &&
                           sqlRows(project, "SELECT status FROM runs ORDER BY id DESC LIMIT 1") ==
                               QStringList{QStringLiteral("ok")}) {
                    // Killed after the run's final commit, before its outputs were renamed into
                    // place: the run is complete in the project, and export writes its outputs.
                    qInfo("%s: finished in the project, export it", tag.c_str());
                    r = runCli(
                        QStringList{QStringLiteral("export"), QStringLiteral("-p"), q(project)} +
                            outputs(tag),
                        dir_);
                }
                QVERIFY2(r.code == 0, qPrintable(QString::fromUtf8(what) + r.err));
                QVERIFY2(contents(tag) == reference, what.constData());
            }
        }
        // The faults did stop runs (not every run finished before them).
        QVERIFY(killed > 0);
        QVERIFY(filled > 0);
    }
};

QTEST_GUILESS_MAIN(TestFaultInjection)
#include "test_fault_injection.moc"
