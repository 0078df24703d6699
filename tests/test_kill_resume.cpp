// kill -9 in the middle of a run, then --resume: the project stays intact, earlier runs are
// untouched, no output under its final name, the killed run is reported interrupted once the
// project is opened again, and both `--resume` and a plain new run write outputs
// byte-identical to an uninterrupted run. Also: two processes on one project, Ctrl-C then
// --resume, and the run lock's parameter record.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/types.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <sqlite3.h>

#include "checkpoint.h"
#include "corpus_generator.h"
#include "project_store.h"
#include "run_lock.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

using testsupport::q;
using testsupport::readFile;
using testsupport::sqlRows;

// Names in `dir` matching `pattern` (a regex on the file name).
QStringList matching(const std::string& dir, const char* pattern) {
    QStringList found;
    const std::regex re(pattern);
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (std::regex_match(name, re)) found << q(name);
    }
    found.sort();
    return found;
}

// Waits (polling every 2 ms) until a file matching `pattern` appears in `dir`.
bool waitFor(const std::string& dir, const char* pattern, const QProcess& p) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 120000) {
        if (!matching(dir, pattern).isEmpty()) return true;
        if (p.state() != QProcess::Running) return false;
        QThread::msleep(2);
    }
    return false;
}

double phaseSeconds(const QJsonObject& summary, const char* phase) {
    return summary.value(QStringLiteral("phases"))
        .toObject()
        .value(QLatin1String(phase))
        .toDouble();
}

}  // namespace

class TestKillResume : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string big_, small_;
    std::string refJsonl_, refClusters_;
    QStringList refDataset_;
    double readSeconds_ = 0, laterSeconds_ = 0;
    QRandomGenerator random_{0};

    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

    void start(QProcess& p, const QStringList& args) {
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.setStandardOutputFile(QProcess::nullDevice());
        p.start(QStringLiteral(NEARDUP_CLI_PATH), args);
        QVERIFY(p.waitForStarted());
    }

    int runToEnd(const QStringList& args, QString* err = nullptr) {
        QProcess p;
        if (err == nullptr) p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.setStandardOutputFile(QProcess::nullDevice());
        p.start(QStringLiteral(NEARDUP_CLI_PATH), args);
        if (!p.waitForStarted() || !p.waitForFinished(300000)) return -1;
        if (err != nullptr) *err = QString::fromUtf8(p.readAllStandardError());
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }

    // What the read and signatures produced for the latest finished run's dataset: its
    // counts, document rows, rejections (counts, samples, the full list) and signature cache.
    QStringList datasetDump(const std::string& project) {
        const char* latest =
            "(SELECT dataset_id FROM runs WHERE status = 'ok' ORDER BY id DESC "
            "LIMIT 1)";
        QStringList dump;
        for (const std::string& sql :
             {std::string("SELECT lines_read, blank_lines, input_bytes, documents FROM datasets "
                          "WHERE id = ") +
                  latest,
              std::string("SELECT doc_index, file_index, line, offset, length, chars, doc_id, "
                          "keep_value FROM documents WHERE dataset_id = ") +
                  latest + " ORDER BY doc_index",
              std::string("SELECT ordinal, reason, count, first_file, first_line FROM "
                          "dataset_rejections WHERE dataset_id = ") +
                  latest,
              std::string("SELECT ordinal, reason, file_index, line, detail FROM "
                          "rejection_samples WHERE dataset_id = ") +
                  latest})
            dump += sqlRows(project, sql.c_str());
        const QStringList ids = sqlRows(project, (std::string("SELECT ") + latest).c_str());
        const QStringList cache = sqlRows(
            project, (std::string("SELECT path FROM signature_caches WHERE dataset_id = ") + latest)
                         .c_str());
        dump << QStringLiteral("signatures %1").arg(cache.size());
        for (const QString& file : cache)
            dump << QString::fromLatin1(
                QByteArray::fromStdString(readFile(project + ".d/" + file.toStdString()))
                    .toBase64());
        dump << QString::fromLatin1(
            QByteArray::fromStdString(
                readFile(project + ".d/rejections-" + ids.value(0).toStdString() + ".bin"))
                .toBase64());
        return dump;
    }

    // The run whose kill is tested: one thread and exact verification make it long enough to
    // be caught in the middle of a phase.
    QStringList bigRun(const std::string& project, const std::string& tag) const {
        return {QStringLiteral("run"),     q(big_),
                QStringLiteral("-p"),      q(project),
                QStringLiteral("-q"),      QStringLiteral("-j"),
                QStringLiteral("1"),       QStringLiteral("--verify"),
                QStringLiteral("exact"),   QStringLiteral("--out-jsonl"),
                q(path(tag + ".jsonl")),   QStringLiteral("--out-clusters"),
                q(path(tag + ".clusters"))};
    }
    QStringList outputs(const std::string& tag) const {
        return {QStringLiteral("--out-jsonl"),    q(path(tag + ".jsonl")),
                QStringLiteral("--out-clusters"), q(path(tag + ".clusters")),
                QStringLiteral("--summary-json"), q(path(tag + ".json"))};
    }

    // A project holding one finished run on another corpus; returns its row, pairs, clusters.
    QStringList seed(const std::string& project) {
        [&] {
            QCOMPARE(runToEnd({QStringLiteral("run"), q(small_), QStringLiteral("-p"), q(project),
                               QStringLiteral("-q")}),
                     0);
        }();
        return sqlRows(project, kEarlierSql);
    }

    static constexpr const char* kEarlierSql =
        "SELECT r.status, r.documents, r.removed, r.duplicate_pairs, r.finished_at, "
        "(SELECT count(*) FROM pairs WHERE run_id = 1), "
        "(SELECT count(*) FROM cluster_members WHERE run_id = 1), "
        "(SELECT count(*) FROM documents WHERE dataset_id = r.dataset_id) FROM runs r "
        "WHERE id = 1";

    // After a SIGKILL: the project, the outputs, the recovery, --resume and a new run.
    void checkAfterKill(const std::string& project, const std::string& tag,
                        const QStringList& earlier) {
        // --resume must reuse the signatures exactly when the killed run had saved them.
        const bool expectSignaturesReused =
            sqlRows(project,
                    "SELECT count(*) FROM signature_caches WHERE dataset_id <> "
                    "(SELECT dataset_id FROM runs WHERE id = 1)") ==
            QStringList{QStringLiteral("1")};
        QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
        QCOMPARE(sqlRows(project, kEarlierSql), earlier);
        // Outputs are written under temporary names and renamed when complete: none under its
        // final name, unless the kill came after the export, between the rename and the run's
        // final transaction; then it is complete.
        for (const char* ext : {".jsonl", ".clusters"}) {
            const std::string out = path(tag + ext);
            if (fs::exists(out)) {
                qInfo("killed after the export: %s exists", out.c_str());
                QVERIFY(readFile(out) == (std::string(ext) == ".jsonl" ? refJsonl_ : refClusters_));
            }
        }

        // Opening the project to write it finds the dead run: reported interrupted, its lock
        // gone, its inputs kept for --resume, the dead process's temporaries removed.
        const std::string sidecar = project + ".d";
        int64_t killed = 0;
        {
            neardup::ProjectStore store(project);
            store.recoverStaleRuns();  // as every opening to write does (run, export, GUI)
            const auto runs = store.listRuns();
            QCOMPARE(runs.size(), std::size_t{2});
            killed = runs.back().runId;
            QCOMPARE(runs.back().status, std::string("interrupted"));
            QCOMPARE(store.loadRun(killed).error, std::string(neardup::kStaleRunError));
            QCOMPARE(runs.front().status, std::string("ok"));
        }
        QCOMPARE(matching(sidecar, R"(run-.*\.lock|.*\.tmp\..*|work-.*)"), QStringList{});
        QCOMPARE(matching(sidecar, R"(run-.*\.resume)"),
                 QStringList{QStringLiteral("run-%1.resume").arg(killed)});
        QCOMPARE(sqlRows(project, kEarlierSql), earlier);

        // --resume: the same inputs and parameters (only execution options and outputs are
        // given), outputs identical to the uninterrupted run's.
        QCOMPARE(runToEnd(QStringList{QStringLiteral("run"), QStringLiteral("-p"), q(project),
                                      QStringLiteral("--resume"), QStringLiteral("-q"),
                                      QStringLiteral("-j"), QStringLiteral("2")} +
                          outputs(tag)),
                 0);
        QVERIFY(readFile(path(tag + ".jsonl")) == refJsonl_);
        QVERIFY(readFile(path(tag + ".clusters")) == refClusters_);
        const QJsonObject summary =
            QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path(tag + ".json"))))
                .object();
        QCOMPARE(summary.value(QStringLiteral("signatures_reused")).toBool(),
                 expectSignaturesReused);
        QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
        QCOMPARE(sqlRows(project, kEarlierSql), earlier);
        // Resumed once: nothing left to resume.
        QCOMPARE(matching(sidecar, R"(run-.*\.(resume|lock))"), QStringList{});
        QCOMPARE(runToEnd({QStringLiteral("run"), QStringLiteral("-p"), q(project),
                           QStringLiteral("--resume"), QStringLiteral("-q")}),
                 1);

        // A plain new run into the project works too.
        fs::remove(path(tag + ".jsonl"));
        QCOMPARE(runToEnd(bigRun(project, tag)), 0);
        QVERIFY(readFile(path(tag + ".jsonl")) == refJsonl_);
        QVERIFY(readFile(path(tag + ".clusters")) == refClusters_);
        QCOMPARE(sqlRows(project, "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("ok"), QStringLiteral("interrupted"),
                              QStringLiteral("ok"), QStringLiteral("ok")}));
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const quint32 seed = qEnvironmentVariableIsSet("NEARDUP_KILL_SEED")
                                 ? qEnvironmentVariableIntValue("NEARDUP_KILL_SEED")
                                 : QRandomGenerator::global()->generate();
        qInfo("kill moments drawn with NEARDUP_KILL_SEED=%u", seed);
        random_.seed(seed);
        neardup::GroundTruth truth;
        neardup::GeneratorOptions gen;
        gen.documents = 12000;
        gen.seed = 5;
        big_ = path("big.jsonl");
        {
            // With bad and blank lines here and there, so that rejections are resumed too.
            std::ostringstream generated;
            neardup::generateCorpus(gen, generated, truth);
            std::istringstream lines(generated.str());
            std::ofstream out(big_, std::ios::binary);
            int n = 0;
            for (std::string line; std::getline(lines, line); ++n) {
                out << line << '\n';
                if (n % 997 == 5) out << "{\"id\":\"bad-" << n << "\",\"text\":12}\n";
                if (n % 1499 == 7) out << "\n";
                if (n % 2003 == 9) out << "[\"not\", \"an object\"]\n";
            }
        }
        gen.documents = 300;
        gen.seed = 6;
        small_ = path("small.jsonl");
        {
            std::ofstream out(small_, std::ios::binary);
            neardup::generateCorpus(gen, out, truth);
        }
        QCOMPARE(runToEnd(bigRun(path("ref.ndw"), "ref") +
                          QStringList{QStringLiteral("--summary-json"), q(path("ref.json"))}),
                 0);
        refJsonl_ = readFile(path("ref.jsonl"));
        refClusters_ = readFile(path("ref.clusters"));
        refDataset_ = datasetDump(path("ref.ndw"));
        QVERIFY(refDataset_.size() > 12000);
        QVERIFY(!refJsonl_.empty() && !refClusters_.empty());
        const QJsonObject s =
            QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path("ref.json")))).object();
        readSeconds_ = phaseSeconds(s, "read") + phaseSeconds(s, "signatures");
        for (const char* phase : {"buckets", "compare", "verify", "union", "export"})
            laterSeconds_ += phaseSeconds(s, phase);
        qInfo("uninterrupted: read + signatures %.2f s, later phases %.2f s", readSeconds_,
              laterSeconds_);
    }

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
        // outputs are identical to an uninterrupted run's.
        qputenv("NEARDUP_CHECKPOINT_BYTES", "2000000");
        const std::string project = path("ckpt.ndw");
        const QStringList earlier = seed(project);
        QProcess p;
        start(p, bigRun(project, "ckpt"));
        QVERIFY(waitFor(project + ".d", R"(run-pending-.*\.lock)", p));
        const auto checkpointed = [&] {
            for (const QString& name : matching(project + ".d", R"(checkpoint-.*\.bin)"))
                if (fs::file_size(project + ".d/" + name.toStdString()) > 1500000) return true;
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
        QCOMPARE(matching(project + ".d", R"(run-.*|.*\.tmp\..*|work-.*)"), QStringList{});
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

    void recoveryFindsDeadLocksOnly() {
        // Deterministic: lock files written by hand. One dead (no process holds it) for a run
        // that never got a row, one dead for a running row, one held by this process (live).
        const std::string project = path("locks.ndw");
        const std::string sidecar = project + ".d";
        int64_t deadRow = 0, liveRow = 0;
        {
            neardup::ProjectStore store(project);
            neardup::DatasetRecord dataset;
            dataset.linesRead = 1;
            neardup::DocumentTable docs;
            docs.append(0, 1, 0, 10, 10, 0.0, "a");
            const int64_t datasetId = store.saveDataset(dataset, docs);
            neardup::RunResult run;
            run.datasetId = datasetId;
            run.startedAt = "2026-01-01T00:00:00.000Z";
            run.backend = "cpu";
            deadRow = store.beginRun(run);
            liveRow = store.beginRun(run);
        }
        const std::string pending =
            R"({"format":1,"pid":999999,"run":0,"started_at":"2026-01-02T00:00:00.000Z",)"
            R"("inputs":["/nowhere/a.jsonl"],"on_error":"fail","chunk_bytes":4194304,)"
            R"("memory_budget":1048576,"work_dir":"","params":)" +
            neardup::toJson([] {
                neardup::RunParams p;
                p.lsh.bands = 8;
                p.signature.seed = 77;
                return p;
            }()) +
            "}";
        fs::create_directories(sidecar);
        std::ofstream(sidecar + "/run-pending-999999-0.lock") << pending;
        std::ofstream(sidecar + "/run-" + std::to_string(deadRow) + ".lock") << pending;
        std::string mine = pending;  // the live lock is this process's
        mine.replace(mine.find("999999"), 6, std::to_string(::getpid()));
        std::ofstream(sidecar + "/run-" + std::to_string(liveRow) + ".lock") << mine;
        const int live =
            ::open((sidecar + "/run-" + std::to_string(liveRow) + ".lock").c_str(), O_RDWR);
        QVERIFY(live >= 0);
        QCOMPARE(::flock(live, LOCK_EX | LOCK_NB), 0);
        // Leftovers of dead processes, and a signature cache no row refers to.
        std::ofstream(sidecar + "/signatures-9-0123456789abcdef.bin.tmp.999999") << "x";
        fs::create_directories(sidecar + "/work-999999-abcdef");
        std::ofstream(sidecar + "/work-999999-abcdef/spill") << "x";
        std::ofstream(sidecar + "/signatures-42-0123456789abcdef.bin") << "x";
        std::ofstream(sidecar + "/run-4242.resume") << pending;  // no such run
        {
            neardup::ProjectStore store(project);
            store.recoverStaleRuns();  // as every opening to write does (run, export, GUI)
            const auto runs = store.listRuns();
            QCOMPARE(runs.size(), std::size_t{3});
            QCOMPARE(runs[0].status, std::string("interrupted"));  // its lock was free
            QCOMPARE(runs[1].status, std::string("running"));      // its lock is held
            QCOMPARE(runs[2].status, std::string("interrupted"));  // killed before its row
            QCOMPARE(runs[2].startedAt, std::string("2026-01-02T00:00:00.000Z"));
            const neardup::RunResult added = store.loadRun(runs[2].runId);
            QCOMPARE(added.error, std::string(neardup::kStaleRunError));
            QCOMPARE(added.params.lsh.bands, 8);
            QCOMPARE(added.params.signature.seed, uint64_t{77});
            // The latest unfinished run, with the execution options of its record.
            const auto rec = neardup::findResumable(store);
            QVERIFY(rec.has_value());
            QCOMPARE(rec->runId, runs[2].runId);
            QCOMPARE(rec->inputs, std::vector<std::string>{"/nowhere/a.jsonl"});
            QVERIFY(rec->params.reader.onError == neardup::OnError::Fail);
            QCOMPARE(rec->params.memoryBudget, uint64_t{1048576});
            QCOMPARE(rec->params.lsh.bands, 8);
        }
        // Dead processes' temporaries and records of missing runs are gone; the unreferenced
        // signature cache stays while a run is live (it may be about to record it).
        QStringList expected{QStringLiteral("run-%1.lock").arg(liveRow),
                             QStringLiteral("run-%1.resume").arg(deadRow),
                             QStringLiteral("run-%1.resume").arg(liveRow + 1),
                             QStringLiteral("signatures-42-0123456789abcdef.bin"),
                             QStringLiteral("sweep.lock")};
        expected.sort();
        QCOMPARE(matching(sidecar, ".*"), expected);
        // Once the live process ends, its run is found too, and the cache is removed.
        ::close(live);
        neardup::ProjectStore store(project);
        store.recoverStaleRuns();  // as every opening to write does (run, export, GUI)
        QCOMPARE(store.loadRun(liveRow).status, std::string("interrupted"));
        expected = QStringList{QStringLiteral("run-%1.resume").arg(deadRow),
                               QStringLiteral("run-%1.resume").arg(liveRow),
                               QStringLiteral("run-%1.resume").arg(liveRow + 1),
                               QStringLiteral("sweep.lock")};
        expected.sort();
        QCOMPARE(matching(sidecar, ".*"), expected);
    }

    // A process that recorded its own end (interrupted by the launcher's SIGTERM) and was
    // killed before its lock was renamed after the row: recovery finds that row by its start
    // time and adds no second one.
    void recoveryDoesNotDuplicateARecordedEnd() {
        const std::string project = path("recorded-end.ndw");
        const std::string sidecar = project + ".d";
        int64_t row = 0;
        {
            neardup::ProjectStore store(project);
            neardup::DatasetRecord dataset;
            dataset.linesRead = 1;
            neardup::DocumentTable docs;
            docs.append(0, 1, 0, 10, 10, 0.0, "a");
            neardup::RunResult run;
            run.datasetId = store.saveDataset(dataset, docs);
            run.startedAt = "2026-01-03T00:00:00.000Z";
            run.backend = "cpu";
            row = store.beginRun(run);
            store.markRun(row, "interrupted", "cancelled by the user");
        }
        const std::string pending =
            R"({"format":1,"pid":999999,"run":0,"started_at":"2026-01-03T00:00:00.000Z",)"
            R"("inputs":["/nowhere/a.jsonl"],"on_error":"skip","chunk_bytes":4194304,)"
            R"("memory_budget":1048576,"work_dir":"","params":)" +
            neardup::toJson(neardup::RunParams{}) + "}";
        fs::create_directories(sidecar);
        std::ofstream(sidecar + "/run-pending-999999-0.lock") << pending;
        neardup::ProjectStore store(project);
        store.recoverStaleRuns();  // as every opening to write does (run, export, GUI)
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), std::size_t{1});
        QCOMPARE(runs[0].runId, row);
        QCOMPARE(store.loadRun(row).error, std::string("cancelled by the user"));
        QVERIFY(matching(sidecar, R"(run-pending-.*)").isEmpty());
    }

    void savingADatasetCanBeInterrupted() {
        neardup::ProjectStore store(path("cancel.ndw"));
        neardup::DatasetRecord dataset;
        neardup::DocumentTable docs;
        for (uint64_t i = 0; i < 20000; ++i)
            docs.append(0, i + 1, i * 100, 99, 99, 0.0, "d" + std::to_string(i));
        dataset.linesRead = docs.size();
        int calls = 0;
        store.setInterruptCheck([&calls] {
            if (++calls == 3) throw std::runtime_error("cancelled");
        });
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, store.saveDataset(dataset, docs));
        QCOMPARE(calls, 3);  // before the first row, then every 4096 rows
        store.setInterruptCheck({});
        QCOMPARE(sqlRows(path("cancel.ndw"), "SELECT count(*) FROM datasets"),
                 QStringList{QStringLiteral("0")});
        QCOMPARE(sqlRows(path("cancel.ndw"), "SELECT count(*) FROM documents"),
                 QStringList{QStringLiteral("0")});
        QVERIFY(store.saveDataset(dataset, docs) > 0);
    }

    void checkpointSurvivesATornRecord() {
        // Two records, the second cut short as by a kill while appending it: the first is
        // restored whole, with its position, counts and rejections.
        qputenv("NEARDUP_CHECKPOINT_BYTES", "1");
        const std::string sidecar = path("torn.ndw.d");
        fs::create_directories(sidecar);
        const std::vector<neardup::InputFile> files{{path("big.jsonl"), 100, 7, {}}};
        neardup::ReaderOptions reader;
        neardup::DocumentTable docs;
        neardup::SignatureMatrix sigs;
        sigs.resize(0, 4);
        neardup::DatasetRecord dataset;
        auto add = [&](uint64_t line) {
            docs.append(0, line, line * 10, 9, 9, 0.5, "id-" + std::to_string(line));
            for (uint32_t k = 0; k < 4; ++k)
                sigs.values.push_back(static_cast<uint32_t>(line * 100 + k));
            sigs.digests.push_back(line);
            sigs.eligible.push_back(1);
        };
        neardup::LineChunk chunk;
        neardup::ParsedChunk parsed;
        {
            neardup::ReadCheckpoint writer(sidecar, files, reader, "key", 4);
            add(1);
            add(2);
            chunk.data = std::string(20, 'x');
            parsed.lines = 3;  // two documents and a rejected line
            neardup::Rejection bad;
            bad.reason = neardup::RejectReason::MissingText;
            bad.line = 3;
            bad.detail = "no text";
            parsed.rejections = {bad};
            dataset.linesRead = 3;
            writer.afterChunk(chunk, parsed, docs, sigs, dataset, 30);
            // Records are written on a thread of their own; records() waits for the one in
            // flight (a record still being written would defer the next one to a later chunk).
            QCOMPARE(writer.records(), 1);
            add(4);
            chunk.baseOffset = 30;
            chunk.firstLine = 4;
            parsed.lines = 1;
            parsed.rejections.clear();
            dataset.linesRead = 4;
            writer.afterChunk(chunk, parsed, docs, sigs, dataset, 40);
            QCOMPARE(writer.records(), 2);
        }
        const QStringList written = matching(sidecar, R"(checkpoint-.*\.bin)");
        QCOMPARE(written.size(), 1);
        const std::string file = sidecar + "/" + written[0].toStdString();
        fs::resize_file(file, fs::file_size(file) - 5);
        neardup::ReadCheckpoint reader2(sidecar, files, reader, "key", 4);
        neardup::DocumentTable back;
        neardup::SignatureMatrix backSigs;
        neardup::RejectionLog log;
        neardup::DatasetRecord counts;
        uint64_t bytes = 0;
        const auto at = reader2.restore(back, backSigs, log, counts, bytes);
        qputenv("NEARDUP_CHECKPOINT_BYTES", "");
        QVERIFY(at.has_value());
        QCOMPARE(at->file, uint32_t{0});
        QCOMPARE(at->offset, uint64_t{20});
        QCOMPARE(at->line, uint64_t{4});
        QCOMPARE(bytes, uint64_t{30});
        QCOMPARE(counts.linesRead, uint64_t{3});
        QCOMPARE(back.size(), std::size_t{2});
        QCOMPARE(std::string(back.id(1)), std::string("id-2"));
        QCOMPARE(backSigs.values, (std::vector<uint32_t>{100, 101, 102, 103, 200, 201, 202, 203}));
        QCOMPARE(log.total(), uint64_t{1});
        QCOMPARE(log.samples.at(0).detail, std::string("no text"));
        // Another key (a touched input) does not see it.
        const std::vector<neardup::InputFile> touched{{path("big.jsonl"), 100, 8, {}}};
        neardup::ReadCheckpoint other(sidecar, touched, reader, "key", 4);
        QVERIFY(!other.restore(back, backSigs, log, counts, bytes).has_value());
    }

    void lockRecordsParameters() {
        neardup::RunParams p;
        p.reader.textField = "meta.body";
        p.reader.idField = "uid";
        p.signature.normalize.nfc = false;
        p.signature.normalize.trim = false;
        p.signature.shingle = neardup::ShingleKind::Word;
        p.signature.ngram = 3;
        p.signature.hashes = 96;
        p.signature.family = neardup::HashFamily::Rolling;
        p.signature.sketch = neardup::SketchKind::Oph;
        p.signature.seed = 123456789012345ull;
        p.lsh.bands = 12;
        p.lsh.rows = 8;
        p.lsh.scheme = neardup::BandKeyScheme::Sum;
        p.lsh.bucketMode = neardup::BucketMode::Fixed;
        p.lsh.buckets = 999;
        p.compare.threshold = 0.73;
        p.compare.storeFloor = 0.41;
        p.compare.verify = neardup::VerifyMode::Exact;
        p.keep = neardup::KeepPolicy::MaxField;
        p.reader.keepField = "score";
        p.threads = 3;
        p.backend = "cpu";
        neardup::RunParams back;
        QVERIFY(neardup::paramsFromJson(neardup::toJson(p), back));
        QCOMPARE(neardup::toJson(back), neardup::toJson(p));
        QCOMPARE(back.reader.keepField, std::string("score"));
        QVERIFY(!neardup::paramsFromJson("{\"text_field\": 1}", back));
        QVERIFY(!neardup::paramsFromJson("not json", back));
    }
};

QTEST_GUILESS_MAIN(TestKillResume)
#include "test_kill_resume.moc"
