// What the kill-and-resume tests share (test_kill_resume.cpp, test_kill_resume_recovery.cpp,
// test_kill_resume_checkpoint.cpp): a private folder, the CLI started and killed as a process,
// and for the kill tests a generated corpus with an uninterrupted reference run to compare
// against.
#pragma once

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

#include "checkpoint.h"
#include "corpus_generator.h"
#include "project_store.h"
#include "run_lock.h"
#include "stopped_runs.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace killresume {

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

}  // namespace killresume

using namespace killresume;

class KillResumeFixture : public QObject {
  protected:
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
        p.start(testsupport::cliPath(), args);
        QVERIFY(p.waitForStarted());
    }

    int runToEnd(const QStringList& args, QString* err = nullptr) {
        QProcess p;
        if (err == nullptr) p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.setStandardOutputFile(QProcess::nullDevice());
        p.start(testsupport::cliPath(), args);
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
        QCOMPARE(matching(sidecar, R"(run-.*\.lock|.*\.tmp[.-].*|work-.*)"), QStringList{});
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

    // The corpora (12,000 documents with bad and blank lines, and 300) and the reference run
    // whose outputs, dataset and phase times the killed runs are compared with.
    void makeCorporaAndReference() {
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
};
