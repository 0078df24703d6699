// kill -9 in the middle of a run, then --resume: the project stays intact, earlier runs are
// untouched, no output under its final name, the killed run is reported interrupted once the
// project is opened again, and both `--resume` and a plain new run write outputs
// byte-identical to an uninterrupted run. Also: two processes on one project, Ctrl-C then
// --resume. (Recovery of dead runs' leftovers and the run lock's record:
// test_kill_resume_recovery.cpp; interrupted saves and torn checkpoints:
// test_kill_resume_checkpoint.cpp.)
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/types.h>
#include <unistd.h>

#include <QTest>

#include "kill_resume_fixture.h"

class TestKillResume : public KillResumeFixture {
    Q_OBJECT

  private slots:
    void initTestCase() { makeCorporaAndReference(); }

    void killDuringReadThenResume() {
        // Somewhere in the first 60% of reading and signing; at once if a run is faster than
        // the reference was and ends before the kill.
        std::string project;
        QStringList earlier;
        unsigned long delayMs = 0;
        for (int attempt = 0;; ++attempt) {
            QVERIFY2(attempt < 3, "every run ended before its kill");
            project = path("kread" + std::to_string(attempt) + ".ndw");
            earlier = seed(project);
            QCOMPARE(earlier.size(), 1);
            QProcess p;
            start(p, bigRun(project, "kread"));
            QVERIFY(waitFor(project + ".d", R"(run-pending-.*\.lock)", p));
            delayMs = attempt > 0
                          ? 0
                          : static_cast<unsigned long>(readSeconds_ * 1000 *
                                                       (0.1 + 0.5 * random_.generateDouble()));
            QThread::msleep(delayMs);
            ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
            QVERIFY(p.waitForFinished(60000));
            if (p.exitStatus() == QProcess::CrashExit) break;
            fs::remove(path("kread.jsonl"));
            fs::remove(path("kread.clusters"));
        }
        // Killed before its row existed (unless this run was much faster than the
        // reference): there is none until the project is opened again.
        if (sqlRows(project, "SELECT count(*) FROM runs") != QStringList{QStringLiteral("1")})
            qWarning("the kill came after the run was recorded");
        qInfo("SIGKILL %lu ms into reading", delayMs);
        checkAfterKill(project, "kread", earlier);
    }

    void killDuringCompareOrExportThenResume() {
        std::string project;
        QStringList earlier;
        unsigned long delayMs = 0;
        for (int attempt = 0;; ++attempt) {
            QVERIFY2(attempt < 3, "every run ended before its kill");
            project = path("klate" + std::to_string(attempt) + ".ndw");
            earlier = seed(project);
            QProcess p;
            start(p, bigRun(project, "klate"));
            // The lock is named after the run once its row exists: the dataset and signatures
            // are saved, the comparison starts.
            QVERIFY(waitFor(project + ".d", R"(run-[0-9]+\.lock)", p));
            delayMs = attempt > 0 ? 0
                                  : static_cast<unsigned long>(laterSeconds_ * 1000 * 0.8 *
                                                               random_.generateDouble());
            QThread::msleep(delayMs);
            ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
            QVERIFY(p.waitForFinished(60000));
            if (p.exitStatus() == QProcess::CrashExit) break;
            fs::remove(path("klate.jsonl"));
            fs::remove(path("klate.clusters"));
        }
        qInfo("SIGKILL %lu ms after the comparison started", delayMs);
        QCOMPARE(sqlRows(project, "SELECT count(*) FROM signature_caches"),
                 QStringList{QStringLiteral("2")});
        QCOMPARE(sqlRows(project, "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("ok"), QStringLiteral("running")}));
        checkAfterKill(project, "klate", earlier);
    }

    void killedReadResumesFromItsCheckpoint() {
        // Checkpoints every 2 MB of input: the kill comes after a few, --resume reads on from
        // the last one, and the dataset (documents, rejections, counts, signatures) and
        // outputs are identical to an uninterrupted run's. The checkpoint's values (in a file
        // of their own, laid out as the signature cache) become the cache: the same bytes as
        // the uninterrupted run, which wrote its cache whole.
        qputenv("NEARDUP_CHECKPOINT_BYTES", "2000000");
        const std::string project = path("ckpt.ndw");
        const QStringList earlier = seed(project);
        QProcess p;
        start(p, bigRun(project, "ckpt"));
        QVERIFY(waitFor(project + ".d", R"(run-pending-.*\.lock)", p));
        // A record holds about 60 bytes of columns for each of the ~750 documents in 2 MB.
        const auto checkpointed = [&] {
            for (const QString& name : matching(project + ".d", R"(checkpoint-.*\.bin)"))
                if (fs::file_size(project + ".d/" + name.toStdString()) > 100000) return true;
            return false;
        };
        while (!checkpointed() && p.state() == QProcess::Running)
            QThread::msleep(2);
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
        QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
        QCOMPARE(sqlRows(project, kEarlierSql), earlier);
        QString err;
        QCOMPARE(runToEnd(QStringList{QStringLiteral("run"), QStringLiteral("-p"), q(project),
                                      QStringLiteral("--resume"), QStringLiteral("-j"),
                                      QStringLiteral("2")} +
                              outputs("ckpt"),
                          &err),
                 0);
        qputenv("NEARDUP_CHECKPOINT_BYTES", "");
        QVERIFY2(err.contains(QStringLiteral("resuming the read from a checkpoint")),
                 qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("the read checkpoint's values became the cache")),
                 qPrintable(err));
        qInfo("%s", qPrintable(err.section(QStringLiteral("resuming the read"), 1, 1)
                                   .section(QLatin1Char('\n'), 0, 0)));
        QVERIFY(readFile(path("ckpt.jsonl")) == refJsonl_);
        QVERIFY(readFile(path("ckpt.clusters")) == refClusters_);
        QCOMPARE(datasetDump(project), refDataset_);
        // Used up: the checkpoint is gone once the dataset is saved.
        QCOMPARE(matching(project + ".d", R"(checkpoint-.*|run-.*)"), QStringList{});
        QCOMPARE(sqlRows(project, kEarlierSql), earlier);
    }

    void twoProcessesOnOneProject() {
        // A second process opening the project (and running in it) while a run is live must
        // not take that run for a dead one.
        const std::string project = path("two.ndw");
        QProcess a;
        start(a, bigRun(project, "two-a"));
        QVERIFY(waitFor(project + ".d", R"(run-[0-9]+\.lock)", a));
        {
            neardup::ProjectStore store(project);
            store.recoverStaleRuns();  // as every opening to write does (run, export, GUI)
            const auto runs = store.listRuns();
            QCOMPARE(runs.size(), std::size_t{1});
            QCOMPARE(runs[0].status, std::string("running"));
        }
        QCOMPARE(runToEnd({QStringLiteral("run"), q(small_), QStringLiteral("-p"), q(project),
                           QStringLiteral("-q")}),
                 0);
        QVERIFY(a.waitForFinished(300000));
        QCOMPARE(a.exitStatus(), QProcess::NormalExit);
        QCOMPARE(a.exitCode(), 0);
        QCOMPARE(sqlRows(project, "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("ok"), QStringLiteral("ok")}));
        QVERIFY(readFile(path("two-a.jsonl")) == refJsonl_);
        QCOMPARE(matching(project + ".d", R"(run-.*|.*\.tmp[.-].*|work-.*)"), QStringList{});
    }

    void ctrlCThenResume() {
        const std::string project = path("int.ndw");
        QProcess p;
        start(p, bigRun(project, "int"));
        QVERIFY(waitFor(project + ".d", R"(run-pending-.*\.lock)", p));
        QThread::msleep(static_cast<unsigned long>(readSeconds_ * 1000 * 0.3));
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        if (p.exitCode() == 0) QSKIP("the run finished before Ctrl-C arrived");
        QCOMPARE(p.exitCode(), 130);
        QCOMPARE(sqlRows(project, "SELECT status FROM runs"),
                 QStringList{QStringLiteral("interrupted")});
        QCOMPARE(matching(project + ".d", R"(run-.*)"),
                 QStringList{QStringLiteral("run-1.resume")});

        // Options that change results are the resumed run's; inputs too.
        QCOMPARE(
            runToEnd({QStringLiteral("run"), QStringLiteral("-p"), q(project),
                      QStringLiteral("--resume"), QStringLiteral("--bands"), QStringLiteral("8")}),
            2);
        QCOMPARE(runToEnd({QStringLiteral("run"), q(big_), QStringLiteral("-p"), q(project),
                           QStringLiteral("--resume")}),
                 2);
        QCOMPARE(runToEnd(QStringList{QStringLiteral("run"), QStringLiteral("-p"), q(project),
                                      QStringLiteral("--resume"), QStringLiteral("-q")} +
                          outputs("int")),
                 0);
        QVERIFY(readFile(path("int.jsonl")) == refJsonl_);
        QCOMPARE(sqlRows(project, "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("interrupted"), QStringLiteral("ok")}));
    }
};

QTEST_GUILESS_MAIN(TestKillResume)
#include "test_kill_resume.moc"
