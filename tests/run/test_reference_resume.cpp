// A run against a reference (`neardup run NEW --reference REF`) killed with SIGKILL while it
// reads, then `neardup run --resume`: the resumed run finishes with kept and removed lists and
// clusters byte-identical to an uninterrupted run of the same command in a fresh project, and
// no reference document among them; whether the kill left a read checkpoint or none, and
// whether the reference was read before by the project (its rows then come from that dataset).
// Also: a reference read before whose read rejected lines is not read again, and its rejected
// lines count as a run that reads it counts them (accounting, summary, export --rejected).
// The reference and the new data both hold rejected and blank lines.
#include <signal.h>
#include <sys/types.h>

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "test_support.h"

using testsupport::neardup;
using testsupport::q;
using testsupport::readFile;
using testsupport::writeFile;

namespace fs = std::filesystem;

namespace {

// The ids of a JSON Lines file's objects, or of a list's lines.
QSet<QString> idsIn(const std::string& path, bool jsonLines) {
    QSet<QString> ids;
    for (const QByteArray& l : QByteArray::fromStdString(readFile(path)).split('\n')) {
        if (l.isEmpty()) continue;
        ids.insert(jsonLines
                       ? QJsonDocument::fromJson(l).object().value(QStringLiteral("id")).toString()
                       : QString::fromUtf8(l));
    }
    return ids;
}

// The rows that the whole records of the read checkpoint in the sidecar folder `dir` hold, 0
// when there is none (laid out as docs/reference/project-format.md says: magic, key length,
// key, then records of a length, the payload and its checksum; a payload's row count follows
// its position, three totals and its first row). A record still being written is not counted.
uint64_t checkpointedRows(const std::string& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with("checkpoint-") || !name.ends_with(".bin")) continue;
        const std::string bytes = readFile(it->path().string());
        const auto number = [&bytes](std::size_t at, std::size_t size) {
            uint64_t value = 0;
            if (at + size <= bytes.size()) std::memcpy(&value, bytes.data() + at, size);
            return value;
        };
        std::size_t at = 12 + number(8, 4);
        uint64_t rows = 0;
        for (uint64_t length = 0; at + 8 <= bytes.size(); at += 16 + length) {
            length = number(at, 8);
            if (at + 16 + length > bytes.size()) break;
            rows = number(at + 8 + 44, 8) + number(at + 8 + 52, 8);
        }
        return rows;
    }
    return 0;
}

// Whether the run holds the lock of a run still reading (named after its row once its dataset
// is saved) and has written its record, which --resume runs again, into it.
bool lockedForReading(const std::string& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with("run-pending-") && name.ends_with(".lock") &&
            fs::file_size(it->path(), ec) > 0)
            return true;
    }
    return false;
}

}  // namespace

class TestReferenceResume : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string ref_, new_;
    QSet<QString> refIds_;
    // What the uninterrupted run in a fresh project wrote and printed.
    std::string kept_, removed_, clusters_, rejected_;
    QJsonObject counts_;
    QString accounting_;

    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

    QStringList outputs(const std::string& tag) const {
        return {QStringLiteral("--out-kept"),     q(path(tag + ".kept")),
                QStringLiteral("--out-removed"),  q(path(tag + ".removed")),
                QStringLiteral("--out-clusters"), q(path(tag + ".clusters")),
                QStringLiteral("--summary-json"), q(path(tag + ".json"))};
    }

    // The counts of a run's --summary-json.
    QJsonObject countsOf(const std::string& tag) const {
        const QJsonObject summary =
            QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path(tag + ".json"))))
                .object();
        QJsonObject counts;
        for (const char* key :
             {"lines_read", "blank_lines", "documents", "kept", "removed", "rejected",
              "rejected_by_reason", "first_rejected_line", "short_documents", "input_bytes"})
            counts.insert(QLatin1String(key), summary.value(QLatin1String(key)));
        counts.insert(QStringLiteral("reference"), summary.value(QStringLiteral("reference"))
                                                       .toObject()
                                                       .value(QStringLiteral("documents")));
        return counts;
    }

    // `neardup export --rejected` of the project's latest run.
    std::string rejectedLinesOf(const std::string& project, const std::string& tag) const {
        const auto r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                                QStringLiteral("--rejected"), q(path(tag + ".rejected"))});
        return r.code == 0 ? readFile(path(tag + ".rejected")) : "failed: " + r.err.toStdString();
    }

    static QString accountingOf(const QString& err) {
        return err.section(QStringLiteral("accounting: "), 1, 1).section(QLatin1Char('\n'), 0, 0);
    }

    // The run under test: one thread and exact verification, as the kill tests run it.
    QStringList againstReference(const std::string& project, const std::string& tag) const {
        return QStringList{QStringLiteral("run"),         q(new_),
                           QStringLiteral("--reference"), q(ref_),
                           QStringLiteral("-p"),          q(project),
                           QStringLiteral("-q"),          QStringLiteral("-j"),
                           QStringLiteral("1"),           QStringLiteral("--verify"),
                           QStringLiteral("exact")} +
               outputs(tag);
    }

    struct Killed {
        std::string project;
        QString err;  // what it printed before the kill
    };

    // Starts the run against the reference into `project` and kills it with SIGKILL once
    // `readingFar` says so, while it still reads; a run that ended first is tried again in
    // another project (the reading takes a fraction of a second). `prepare` makes each project.
    // An empty project when every run ended first.
    Killed killWhileReading(const std::string& name,
                            const std::function<void(const std::string&)>& prepare,
                            const std::function<bool(const std::string&)>& readingFar) {
        for (int attempt = 0; attempt < 5; ++attempt) {
            const std::string project = path(name + std::to_string(attempt) + ".ndw");
            prepare(project);
            const std::string sidecar = project + ".d";
            QProcess p;
            p.setStandardOutputFile(QProcess::nullDevice());
            QStringList args = againstReference(project, name);
            args.removeAll(QStringLiteral("-q"));  // it says where the reference's rows come from
            p.start(testsupport::cliPath(), args);
            if (!p.waitForStarted()) return {};
            QElapsedTimer t;
            t.start();
            while (p.state() == QProcess::Running && t.elapsed() < 120000 && !readingFar(sidecar))
                QThread::usleep(200);
            const bool reading = lockedForReading(sidecar);
            ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
            p.waitForFinished(60000);
            if (p.exitStatus() == QProcess::CrashExit && reading)
                return {project, QString::fromUtf8(p.readAllStandardError())};
            qInfo("attempt %d: the run was past its read when killed", attempt);
        }
        return {};
    }

    // `neardup run --resume` of the killed run: its outputs are the uninterrupted run's, with
    // no reference document in them, and its counts and rejected lines are the uninterrupted
    // run's too. Returns what it printed.
    QString resumeAndCompare(const std::string& project, const std::string& tag) {
        const auto resumed = neardup(QStringList{QStringLiteral("run"), QStringLiteral("-p"),
                                                 q(project), QStringLiteral("--resume"),
                                                 QStringLiteral("-j"), QStringLiteral("2")} +
                                     outputs(tag));
        [&] {
            QVERIFY2(resumed.code == 0, qPrintable(resumed.err));
            QVERIFY(readFile(path(tag + ".kept")) == kept_);
            QVERIFY(readFile(path(tag + ".removed")) == removed_);
            QVERIFY(readFile(path(tag + ".clusters")) == clusters_);
            QVERIFY(!idsIn(path(tag + ".kept"), false).intersects(refIds_));
            QVERIFY(!idsIn(path(tag + ".removed"), false).intersects(refIds_));
            QVERIFY(!idsIn(path(tag + ".clusters"), true).intersects(refIds_));
            QCOMPARE(countsOf(tag), counts_);
            QVERIFY(rejectedLinesOf(project, tag) == rejected_);
            QCOMPARE(testsupport::sqlRows(project, "SELECT status FROM runs ORDER BY id").last(),
                     QStringLiteral("ok"));
        }();
        return resumed.err;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const auto gen =
            neardup({QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("16000"),
                     QStringLiteral("--seed"), QStringLiteral("5"), QStringLiteral("--out"),
                     q(path("all.jsonl")), QStringLiteral("--truth"), q(path("truth.json"))});
        QVERIFY2(gen.code == 0, qPrintable(gen.err));
        // Alternate lines to each half, so that planted variants fall on both sides; a few
        // rejected and blank lines on both sides, so that their accounting resumes too.
        std::string ref, fresh;
        int n = 0;
        for (const QByteArray& l :
             QByteArray::fromStdString(readFile(path("all.jsonl"))).split('\n')) {
            if (l.isEmpty()) continue;
            if (n++ % 2 == 0) {
                ref += l.toStdString() + "\n";
                refIds_.insert(
                    QJsonDocument::fromJson(l).object().value(QStringLiteral("id")).toString());
                if (n == 7) ref += "{\"id\": \"broken\", \"text\": \"no end\n";
                if (n == 1201) ref += "{\"id\":\"no-text\",\"body\":\"a field of another name\"}\n";
                if (n == 2401) ref += "\n[\"not\", \"an object\"]\n";
                if (n == 4001) ref += "{\"id\":\"a-number\",\"text\":42}\n";
                continue;
            }
            fresh += l.toStdString() + "\n";
            if (n % 997 == 6) fresh += "{\"id\":\"bad-" + std::to_string(n) + "\",\"text\":12}\n";
            if (n % 1499 == 8) fresh += "\n";
        }
        ref_ = path("reference.jsonl");
        new_ = path("new.jsonl");
        writeFile(ref_, ref);
        writeFile(new_, fresh);
        QStringList args = againstReference(path("fresh.ndw"), "fresh");
        args.removeAll(QStringLiteral("-q"));  // for its accounting line
        const auto whole = neardup(args);
        QVERIFY2(whole.code == 0, qPrintable(whole.err));
        kept_ = readFile(path("fresh.kept"));
        removed_ = readFile(path("fresh.removed"));
        clusters_ = readFile(path("fresh.clusters"));
        QVERIFY(!kept_.empty() && !removed_.empty() && !clusters_.empty());
        QVERIFY(!idsIn(path("fresh.removed"), false).intersects(refIds_));
        counts_ = countsOf("fresh");
        accounting_ = accountingOf(whole.err);
        rejected_ = rejectedLinesOf(path("fresh.ndw"), "fresh");
        // The reference's four rejected lines and one blank, and the new data's.
        QVERIFY2(accounting_.contains(QStringLiteral(" rejected + ")), qPrintable(whole.err));
        QVERIFY(counts_.value(QStringLiteral("rejected")).toInt() > 4);
        QCOMPARE(QByteArray::fromStdString(rejected_).count(q(ref_).toUtf8()), 4);
    }

    // Killed as soon as it started reading: no checkpoint, the read starts again.
    void killedBeforeAnyCheckpointReadsAgain() {
        const Killed killed = killWhileReading(
            "early", [](const std::string&) {}, lockedForReading);
        QVERIFY2(!killed.project.empty(), "every run ended before its kill");
        const QString err = resumeAndCompare(killed.project, "early");
        QVERIFY2(!err.contains(QStringLiteral("resuming the read from a checkpoint")),
                 qPrintable(err));
    }

    // Killed after its read left a checkpoint: the read goes on from it.
    void killedAfterACheckpointReadsOnFromIt() {
        qputenv("NEARDUP_CHECKPOINT_BYTES", "1000000");
        const Killed killed = killWhileReading(
            "ckpt", [](const std::string&) {},
            [](const std::string& sidecar) { return checkpointedRows(sidecar) > 0; });
        qunsetenv("NEARDUP_CHECKPOINT_BYTES");
        QVERIFY2(!killed.project.empty(), "every run ended before its kill");
        const QString err = resumeAndCompare(killed.project, "ckpt");
        QVERIFY2(err.contains(QStringLiteral("resuming the read from a checkpoint")),
                 qPrintable(err));
        qInfo("%s", qPrintable(err.section(QStringLiteral("resuming the read"), 1, 1)
                                   .section(QLatin1Char('\n'), 0, 0)));
    }

    // The project read the reference alone before: the killed run took the reference's rows
    // from that dataset and read the inputs only; killed after a checkpoint of its inputs
    // (which holds the reference's rows too), it resumes from it.
    void killedAfterAReferenceReadBeforeResumes() {
        const auto readReferenceAlone = [this](const std::string& project) {
            QCOMPARE(neardup({QStringLiteral("run"), q(ref_), QStringLiteral("-p"), q(project),
                              QStringLiteral("-q")})
                         .code,
                     0);
        };
        qputenv("NEARDUP_CHECKPOINT_BYTES", "1000000");
        const Killed killed =
            killWhileReading("seeded", readReferenceAlone, [this](const std::string& sidecar) {
                return checkpointedRows(sidecar) > static_cast<uint64_t>(refIds_.size());
            });
        qunsetenv("NEARDUP_CHECKPOINT_BYTES");
        QVERIFY2(!killed.project.empty(), "every run ended before its kill");
        QVERIFY2(killed.err.contains(QStringLiteral("reading the inputs only")),
                 qPrintable(killed.err));
        const QString err = resumeAndCompare(killed.project, "seeded");
        QVERIFY2(err.contains(QStringLiteral("resuming the read from a checkpoint")) &&
                     err.contains(q(new_)),
                 qPrintable(err));
        // The reference's own run is untouched.
        QCOMPARE(testsupport::sqlRows(killed.project, "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("ok"), QStringLiteral("interrupted"),
                              QStringLiteral("ok")}));
    }

    // A reference read before, alone, whose read rejected lines: the run against it reads the
    // inputs only, and says, counts and exports what a run that reads the reference does.
    void aReferenceWithRejectedLinesReadBeforeIsNotReadAgain() {
        const std::string project = path("reused.ndw");
        QCOMPARE(neardup({QStringLiteral("run"), q(ref_), QStringLiteral("-p"), q(project)}).code,
                 0);
        QStringList args = againstReference(project, "reused");
        args.removeAll(QStringLiteral("-q"));
        const auto r = neardup(args);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("reading the inputs only")), qPrintable(r.err));
        QCOMPARE(accountingOf(r.err), accounting_);
        QCOMPARE(countsOf("reused"), counts_);
        QVERIFY(rejectedLinesOf(project, "reused") == rejected_);
        QVERIFY(readFile(path("reused.kept")) == kept_);
        QVERIFY(readFile(path("reused.removed")) == removed_);
        QVERIFY(readFile(path("reused.clusters")) == clusters_);

        // With --on-error fail, it fails on the reference's first rejected line as a run that
        // reads it does.
        const QStringList failing = {QStringLiteral("--on-error"), QStringLiteral("fail")};
        const auto seeded = neardup(againstReference(project, "fail") + failing);
        const auto reading = neardup(againstReference(path("fail.ndw"), "fail") + failing);
        QCOMPARE(seeded.code, 1);
        QCOMPARE(reading.code, 1);
        QVERIFY2(reading.err.contains(q(ref_) + QStringLiteral(":5:")), qPrintable(reading.err));
        QCOMPARE(seeded.err, reading.err);
    }
};

QTEST_GUILESS_MAIN(TestReferenceResume)
#include "test_reference_resume.moc"
