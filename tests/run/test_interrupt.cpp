// Interrupted runs, as a user or the system would interrupt them: SIGINT/SIGTERM stop a run
// within moments (exit 130, run recorded as interrupted, no temporary files left); SIGKILL at
// random moments leaves the project intact, earlier runs untouched, no output that looks
// complete but is not, and a project the next run works in.
#include <signal.h>
#include <sys/types.h>

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "corpus_generator.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

using testsupport::q;
using testsupport::readFile;
using testsupport::sqlRows;

// Hidden temporaries of outputs (".NAME.tmp-PID") and spill work directories ("work-*").
QStringList leftovers(const std::string& dir) {
    QStringList found;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.find(".tmp") != std::string::npos || name.rfind("work-", 0) == 0)
            found << q(it->path().string());
    }
    return found;
}

}  // namespace

class TestInterrupt : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_, extra_, reference_;
    qint64 fullRunMs_ = 0;

    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

    void start(QProcess& p, const QStringList& args) {
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.setStandardOutputFile(QProcess::nullDevice());
        p.start(testsupport::cliPath(), args);
        QVERIFY(p.waitForStarted());
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // A generated corpus, repeated under other ids until a run takes over a second.
        neardup::GeneratorOptions gen;
        gen.documents = 2500;
        gen.seed = 11;
        neardup::GroundTruth truth;
        std::ostringstream base;
        neardup::generateCorpus(gen, base, truth);
        const std::string lines = base.str();
        corpus_ = path("big.jsonl");
        extra_ = path("extra.jsonl");
        std::ofstream(extra_) << "{\"id\":\"extra\",\"text\":\"one more document\"}\n";

        // The reference: an uninterrupted run, timed. The signals below land at shares of it,
        // and no sooner than 200 ms, so the corpus grows (copies under other ids, doubling)
        // until a run takes over a second on this machine: a fast machine otherwise finishes
        // before the first signal.
        std::ofstream out(corpus_, std::ios::binary);
        int copies = 0;
        for (int target = 8; target <= 256; target *= 2) {
            for (; copies < target; ++copies) {
                std::string replica = lines;
                const std::string from = "{\"id\":\"doc-",
                                  to = "{\"id\":\"r" + std::to_string(copies) + "-";
                for (std::size_t at = replica.find(from); at != std::string::npos;
                     at = replica.find(from, at + to.size()))
                    replica.replace(at, from.size(), to);
                out << replica;
            }
            out.flush();
            QElapsedTimer timer;
            timer.start();
            QProcess p;
            start(p, {QStringLiteral("run"), q(corpus_), QStringLiteral("-p"),
                      q(path("ref-" + std::to_string(copies) + ".ndw")), QStringLiteral("-q"),
                      QStringLiteral("-j"), QStringLiteral("2")});
            QVERIFY(p.waitForFinished(300000));
            QCOMPARE(p.exitCode(), 0);
            fullRunMs_ = timer.elapsed();
            reference_ = path("ref-" + std::to_string(copies) + ".ndw");
            if (fullRunMs_ >= 1200) break;
        }
        qInfo("an uninterrupted run of %d copies takes %lld ms", copies,
              static_cast<long long>(fullRunMs_));
    }

    void sigintAndSigtermStopTheRunCleanly() {
        int interrupted = 0;
        // Early (reading), in the middle and late in a run, as measured on this machine.
        const auto at = [&](double share) {
            return static_cast<int>(std::max<qint64>(200, static_cast<qint64>(fullRunMs_ * share)));
        };
        const std::pair<int, int> cases[] = {
            {SIGINT, at(0.15)}, {SIGTERM, at(0.45)}, {SIGINT, at(0.75)}};
        // Each case gets its own project: on a quick machine two delays clamp to the same
        // 200 ms, so the delay cannot name it.
        int caseIndex = 0;
        for (const auto& [signal, delayMs] : cases) {
            const std::string tag =
                "int" + std::to_string(caseIndex++) + "-" + std::to_string(delayMs);
            const std::string project = path(tag + ".ndw");
            const std::string output = path(tag + ".jsonl");
            QProcess p;
            start(p, {QStringLiteral("run"), q(corpus_), QStringLiteral("-p"), q(project),
                      QStringLiteral("-q"), QStringLiteral("-j"), QStringLiteral("2"),
                      QStringLiteral("--out-jsonl"), q(output)});
            QThread::msleep(static_cast<unsigned long>(delayMs));
            if (p.state() != QProcess::Running) {
                qWarning("run finished before the %d ms signal", delayMs);
                continue;
            }
            QElapsedTimer stopping;
            stopping.start();
            ::kill(static_cast<pid_t>(p.processId()), signal);
            QVERIFY(p.waitForFinished(60000));
            const qint64 stopMs = stopping.elapsed();
            QCOMPARE(p.exitStatus(), QProcess::NormalExit);
            if (p.exitCode() == 0) {  // it was already writing its results
                qWarning("run completed despite the signal at %d ms", delayMs);
                continue;
            }
            ++interrupted;
            QCOMPARE(p.exitCode(), 130);
            qInfo("signal %d at %d ms: stopped %lld ms later", signal, delayMs,
                  static_cast<long long>(stopMs));
            // Within 5 s, or a fifth of a full run where sanitizers slow everything down: a
            // prompt stop, not a hang, with room for a loaded machine.
            QVERIFY2(stopMs < std::max<qint64>(5000, fullRunMs_ / 5),
                     qPrintable(QString::number(stopMs)));
            QCOMPARE(sqlRows(project, "SELECT status FROM runs"),
                     QStringList{QStringLiteral("interrupted")});
            QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
            QVERIFY(!fs::exists(output));
            QCOMPARE(leftovers(dir_.path().toStdString()), QStringList{});
            // SIGTERM is recorded as what sends it (a batch job's time limit, scancel), not as
            // the user; Ctrl-C is the user.
            const QStringList error = sqlRows(project, "SELECT error FROM runs");
            QVERIFY2(error.size() == 1 &&
                         error[0].startsWith(signal == SIGTERM
                                                 ? QStringLiteral("stopped by a signal (SIGTERM: ")
                                                 : QStringLiteral("cancelled by the user")),
                     qPrintable(error.join(QLatin1Char('\n'))));
            if (signal != SIGTERM) continue;
            // The job a time limit stopped goes on with --resume to the uninterrupted result.
            QProcess resumed;
            start(resumed, {QStringLiteral("run"), QStringLiteral("-p"), q(project),
                            QStringLiteral("--resume"), QStringLiteral("-q"), QStringLiteral("-j"),
                            QStringLiteral("2"), QStringLiteral("--out-jsonl"), q(output)});
            QVERIFY(resumed.waitForFinished(300000));
            QCOMPARE(resumed.exitCode(), 0);
            const char* counts =
                "SELECT documents, kept, removed, duplicate_pairs FROM runs WHERE status = 'ok'";
            QCOMPARE(sqlRows(project, counts), sqlRows(reference_, counts));
            QVERIFY(fs::exists(output));
        }
        QVERIFY2(interrupted > 0, "no run was interrupted");

        // A second Ctrl-C does not wait for the clean stop: exit 130 at once, project intact.
        const std::string project = path("twice.ndw");
        QProcess p;
        start(p, {QStringLiteral("run"), q(corpus_), QStringLiteral("-p"), q(project),
                  QStringLiteral("-q"), QStringLiteral("--out-jsonl"), q(path("twice.jsonl"))});
        QThread::msleep(500);
        if (p.state() == QProcess::Running) {
            ::kill(static_cast<pid_t>(p.processId()), SIGINT);
            QThread::msleep(20);  // two signals sent at once may be delivered as one
            ::kill(static_cast<pid_t>(p.processId()), SIGINT);
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitStatus(), QProcess::NormalExit);
            QCOMPARE(p.exitCode(), 130);
            QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
            QVERIFY(!fs::exists(path("twice.jsonl")));
        }
    }

    void sigkillNeverDamagesTheProject() {
        const std::string project = path("kill.ndw");
        const QStringList first{QStringLiteral("run"), q(corpus_),
                                QStringLiteral("-p"),  q(project),
                                QStringLiteral("-q"),  QStringLiteral("--seed"),
                                QStringLiteral("1")};
        QProcess p;
        start(p, first);
        QVERIFY(p.waitForFinished(300000));
        QCOMPARE(p.exitCode(), 0);
        const char* earlierSql =
            "SELECT r.status, r.documents, r.removed, r.duplicate_pairs, "
            "(SELECT count(*) FROM pairs WHERE run_id = 1), "
            "(SELECT count(*) FROM cluster_members WHERE run_id = 1) FROM runs r WHERE id = 1";
        const QStringList earlier = sqlRows(project, earlierSql);
        QCOMPARE(earlier.size(), 1);
        QVERIFY(earlier[0].startsWith(QStringLiteral("ok|")));

        // Later runs read another dataset (one more file), each with its own signature seed so
        // that none reuses the signatures of the one before: a kill can land in any phase
        // (reading, saving the dataset and signatures, comparing, verifying, exporting).
        auto later = [&](int attempt, const std::string& output) {
            return QStringList{QStringLiteral("run"),
                               q(corpus_),
                               q(extra_),
                               QStringLiteral("-p"),
                               q(project),
                               QStringLiteral("-q"),
                               QStringLiteral("--seed"),
                               QString::number(10 + attempt),
                               QStringLiteral("--out-jsonl"),
                               q(output)};
        };
        auto killedOutput = [&](int attempt) {
            return path("killed-" + std::to_string(attempt) + ".jsonl");
        };
        const quint32 seed = qEnvironmentVariableIsSet("NEARDUP_KILL_SEED")
                                 ? qEnvironmentVariableIntValue("NEARDUP_KILL_SEED")
                                 : QRandomGenerator::global()->generate();
        qInfo("kill moments drawn with NEARDUP_KILL_SEED=%u", seed);
        QRandomGenerator random(seed);
        const int span = static_cast<int>(std::max<qint64>(fullRunMs_, 500));
        const int attempts = 4;
        for (int attempt = 0; attempt < attempts; ++attempt) {
            const int delayMs = 50 + random.bounded(span);
            QProcess k;
            start(k, later(attempt, killedOutput(attempt)));
            QThread::msleep(static_cast<unsigned long>(delayMs));
            ::kill(static_cast<pid_t>(k.processId()), SIGKILL);
            QVERIFY(k.waitForFinished(60000));
            qInfo("SIGKILL at %d ms (%s)", delayMs,
                  k.exitStatus() == QProcess::CrashExit ? "killed" : "had finished");
            QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
            QCOMPARE(sqlRows(project, earlierSql), earlier);
            // Only temporaries may be left behind (hidden ".NAME.tmp-PID" files of outputs and
            // of the project's sidecar files, spill directories), never a partial file under a
            // final name.
            for (const QString& left : leftovers(dir_.path().toStdString())) {
                const QString name = QFileInfo(left).fileName();
                QVERIFY2(
                    name.startsWith(QLatin1Char('.')) || name.startsWith(QStringLiteral("work-")),
                    qPrintable(left));
            }
        }

        // The next run into the same project works, and an output that a killed run left under
        // its final name is complete: the same as a finished run with its parameters writes.
        for (int attempt = 0; attempt < attempts; ++attempt) {
            if (attempt > 0 && !fs::exists(killedOutput(attempt))) continue;
            const std::string reference = path("reference-" + std::to_string(attempt) + ".jsonl");
            QProcess next;
            start(next, later(attempt, reference));
            QVERIFY(next.waitForFinished(300000));
            QCOMPARE(next.exitCode(), 0);
            QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
            QCOMPARE(sqlRows(project, earlierSql), earlier);
            QVERIFY(!readFile(reference).empty());
            if (fs::exists(killedOutput(attempt)))
                QVERIFY(readFile(killedOutput(attempt)) == readFile(reference));
        }
    }
};

QTEST_GUILESS_MAIN(TestInterrupt)
#include "test_interrupt.moc"
