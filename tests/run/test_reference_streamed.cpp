// A reference the project signed before, whose signatures exceed the run's memory budget: the
// run streams them from the reference's cache file instead of reading and signing the reference
// again, and says so (its summary's reference.read_before, the log's "reading the inputs only");
// the pairs among reference documents are those its own run stored (only buckets holding an
// input document are compared), with that run's verdicts; with other bands, every bucket is.
// Its outputs are byte for byte those of a run that reads the reference, on 1 and on 2 threads;
// the run's own dataset shares the reference's documents and leaves the reference's rows to the
// reference's cache (a hole in its own: a later run streams or loads both and agrees with a fresh
// project; without the reference's cache it reads the inputs again); a damaged reference cache is
// a miss: the reference is read again, with the same results.
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <filesystem>

#include "project_copy.h"
#include "test_support.h"

using testsupport::readFile;
using testsupport::writeFile;

namespace {

// Far below the 1,500 reference rows of 512 bytes, above the documents' floor.
const QString kSmallBudget = QStringLiteral("1M");
const char* const kOutputs[] = {".kept", ".removed", ".clusters.jsonl", ".out.jsonl"};

bool readBefore(const QString& summary) {
    return QJsonDocument::fromJson(readFile(summary))
        .object()
        .value(QStringLiteral("reference"))
        .toObject()
        .value(QStringLiteral("read_before"))
        .toBool();
}

}  // namespace

class TestReferenceStreamed : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString ref_, new_, signed_;

    QString path(const QString& name) const { return dir_.filePath(name); }

    // A copy of `from`, sidecar folder included.
    QString copyOf(const QString& from, const QString& name) {
        namespace fs = std::filesystem;
        const QString project = path(name + QStringLiteral(".ndw"));
        fs::copy_file(from.toStdString(), project.toStdString());
        fs::copy(from.toStdString() + ".d", project.toStdString() + ".d",
                 fs::copy_options::recursive);
        return project;
    }

    // A copy of the project where only the reference was run.
    QString copyOfSigned(const QString& name) { return copyOf(signed_, name); }

    // `neardup run NEW --reference REF` under `budget`, its outputs prefixed `tag`.
    testsupport::CliResult runAgainstReference(const QString& project, const QString& tag,
                                               const QStringList& extra = {},
                                               const QString& budget = kSmallBudget) {
        QStringList args = {QStringLiteral("run"),
                            new_,
                            QStringLiteral("--reference"),
                            ref_,
                            QStringLiteral("-p"),
                            project,
                            QStringLiteral("--memory-budget"),
                            budget,
                            QStringLiteral("--verify"),
                            QStringLiteral("exact"),
                            QStringLiteral("--summary-json"),
                            path(tag + QStringLiteral(".json")),
                            QStringLiteral("--out-kept"),
                            path(tag + QStringLiteral(".kept")),
                            QStringLiteral("--out-removed"),
                            path(tag + QStringLiteral(".removed")),
                            QStringLiteral("--out-clusters"),
                            path(tag + QStringLiteral(".clusters.jsonl")),
                            QStringLiteral("--out-jsonl"),
                            path(tag + QStringLiteral(".out.jsonl"))};
        return testsupport::neardup(args + extra);
    }

    void compareOutputs(const QString& tag, const QString& expected) {
        for (const char* suffix : kOutputs) {
            const QByteArray want = readFile(path(expected + QLatin1String(suffix)));
            QVERIFY2(!want.isEmpty() || QLatin1String(suffix) == QLatin1String(".removed"), suffix);
            QVERIFY2(readFile(path(tag + QLatin1String(suffix))) == want,
                     qPrintable(tag + QLatin1String(suffix)));
        }
    }

    // The counts a run's summary gives, which pairs taken from the reference's run must keep.
    void compareCounts(const QString& tag, const QString& expected) {
        const QJsonObject got =
            QJsonDocument::fromJson(readFile(path(tag + QStringLiteral(".json")))).object();
        const QJsonObject want =
            QJsonDocument::fromJson(readFile(path(expected + QStringLiteral(".json")))).object();
        for (const char* key : {"candidate_pairs", "stored_pairs", "duplicate_pairs", "clusters",
                                "kept", "removed", "components"})
            QVERIFY2(got.value(QLatin1String(key)) == want.value(QLatin1String(key)), key);
    }

    // The latest run's stored pairs, summed: the same pairs, estimates and verdicts.
    static QStringList storedPairs(const QString& project) {
        return testsupport::sqlRows(project.toStdString(),
                                    "SELECT count(*), sum(a), sum(b), sum(matches), "
                                    "sum(exact IS NOT NULL), round(sum(coalesce(exact, 0)), 4) "
                                    "FROM pairs WHERE run_id = (SELECT max(id) FROM runs)");
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString all = path(QStringLiteral("all.jsonl"));
        const auto gen = testsupport::neardup(
            {QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("3000"),
             QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--out"), all,
             QStringLiteral("--truth"), path(QStringLiteral("truth.json"))});
        QVERIFY2(gen.code == 0, qPrintable(gen.err));
        // Alternate lines to each half, so that planted variants fall on both sides.
        std::string ref, fresh;
        int i = 0;
        for (const QByteArray& l : readFile(all).split('\n'))
            if (!l.isEmpty()) (i++ % 2 == 0 ? ref : fresh) += l.toStdString() + "\n";
        ref_ = path(QStringLiteral("reference.jsonl"));
        new_ = path(QStringLiteral("new.jsonl"));
        writeFile(ref_.toStdString(), ref);
        writeFile(new_.toStdString(), fresh);
        // The reference run alone, under the small budget: its spilled rows become its cache.
        signed_ = path(QStringLiteral("signed.ndw"));
        const auto r =
            testsupport::neardup({QStringLiteral("run"), ref_, QStringLiteral("-p"), signed_,
                                  QStringLiteral("--memory-budget"), kSmallBudget});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // What a run that reads the reference writes.
        const auto read =
            runAgainstReference(path(QStringLiteral("fresh.ndw")), QStringLiteral("fresh"),
                                {QStringLiteral("--threads"), QStringLiteral("1")});
        QVERIFY2(read.code == 0, qPrintable(read.err));
        QVERIFY(!readBefore(path(QStringLiteral("fresh.json"))));
        QVERIFY(!readFile(path(QStringLiteral("fresh.removed"))).isEmpty());
    }

    void aReferenceBeyondTheBudgetIsStreamedNotRead() {
        for (const QString& threads : {QStringLiteral("1"), QStringLiteral("2")}) {
            const QString tag = QStringLiteral("streamed") + threads;
            const auto r =
                runAgainstReference(copyOfSigned(tag), tag, {QStringLiteral("--threads"), threads});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY2(r.err.contains(QStringLiteral("the reference's signatures exceed the memory "
                                                   "budget")),
                     qPrintable(r.err));
            QVERIFY2(r.err.contains(QStringLiteral("reading the inputs only")), qPrintable(r.err));
            // The pairs among reference documents take the verdicts the reference's own run
            // stored: its documents are not read again to verify them.
            QVERIFY2(r.err.contains(QStringLiteral("or of the reference verified")),
                     qPrintable(r.err));
            // Only buckets holding an input document were compared; the pairs among reference
            // documents are those the reference's own run stored, with the same counts.
            QVERIFY2(r.err.contains(QStringLiteral("only buckets holding an input document were "
                                                   "compared")),
                     qPrintable(r.err));
            QVERIFY(readBefore(path(tag + QStringLiteral(".json"))));
            compareOutputs(tag, QStringLiteral("fresh"));
            compareCounts(tag, QStringLiteral("fresh"));
            QCOMPARE(storedPairs(path(tag + QStringLiteral(".ndw"))),
                     storedPairs(path(QStringLiteral("fresh.ndw"))));
        }
    }

    // The run's own dataset (reference and inputs) shares the reference's documents, and its
    // cache leaves the reference's rows to the reference's cache: their place in its file stays
    // a hole. A later run with other bands streams both, or loads both when its budget holds
    // every row, and writes what a project that read everything writes; without the
    // reference's cache, the shared cache is a miss and the inputs are read again.
    void theRunsCacheSharesTheReferencesRows() {
        namespace fs = std::filesystem;
        const QString shared = path(QStringLiteral("streamed1.ndw"));
        QCOMPARE(testsupport::sqlRows(shared.toStdString(),
                                      "SELECT shared_rows FROM signature_caches WHERE "
                                      "dataset_id = 2"),
                 QStringList{QStringLiteral("1500")});
        // 1,500 rows of 512 bytes left unwritten: the file holds far less than its size; and so
        // does the copy Save As makes.
        const std::string savedAs = path(QStringLiteral("saved-as.ndw")).toStdString();
        neardup::copyProject(shared.toStdString(), savedAs, {});
        for (const std::string& project : {shared.toStdString(), savedAs}) {
            int caches = 0;
            for (const auto& e : fs::directory_iterator(project + ".d")) {
                if (e.path().filename().string().rfind("signatures-2-", 0) != 0) continue;
                ++caches;
                struct stat st {};
                QCOMPARE(::stat(e.path().c_str(), &st), 0);
                QVERIFY2(st.st_blocks * 512 < st.st_size - 1500 * 512 / 2,
                         qPrintable(QStringLiteral("%1: %2 of %3 bytes allocated")
                                        .arg(QString::fromStdString(e.path().string()))
                                        .arg(st.st_blocks * 512)
                                        .arg(st.st_size)));
            }
            QCOMPARE(caches, 1);
        }
        const QStringList otherBands = {QStringLiteral("--bands"),   QStringLiteral("16"),
                                        QStringLiteral("--rows"),    QStringLiteral("8"),
                                        QStringLiteral("--threads"), QStringLiteral("2")};
        const auto streamed = runAgainstReference(path(QStringLiteral("streamed1.ndw")),
                                                  QStringLiteral("rb1"), otherBands);
        const auto fresh = runAgainstReference(path(QStringLiteral("fresh.ndw")),
                                               QStringLiteral("rb2"), otherBands);
        QVERIFY2(streamed.code == 0 && fresh.code == 0, qPrintable(streamed.err + fresh.err));
        for (const auto* r : {&streamed, &fresh})
            QVERIFY2(r->err.contains(QStringLiteral("streaming them from its cache")),
                     qPrintable(r->err));
        compareOutputs(QStringLiteral("rb1"), QStringLiteral("rb2"));

        // Bands no run of that project used, so that no stored pairs stand in for comparing.
        const QStringList newBands = {QStringLiteral("--bands"),   QStringLiteral("20"),
                                      QStringLiteral("--rows"),    QStringLiteral("6"),
                                      QStringLiteral("--threads"), QStringLiteral("2")};
        const auto expected =
            runAgainstReference(path(QStringLiteral("fresh.ndw")), QStringLiteral("rb3"), newBands);
        QVERIFY2(expected.code == 0, qPrintable(expected.err));
        const auto loaded =
            runAgainstReference(copyOf(shared, QStringLiteral("loaded")), QStringLiteral("loaded"),
                                newBands, QStringLiteral("1G"));
        QVERIFY2(loaded.code == 0, qPrintable(loaded.err));
        QVERIFY2(loaded.err.contains(QStringLiteral("reusing the project's signatures")),
                 qPrintable(loaded.err));
        QVERIFY2(!loaded.err.contains(QStringLiteral("reusing the compared pairs")),
                 qPrintable(loaded.err));
        compareOutputs(QStringLiteral("loaded"), QStringLiteral("rb3"));

        const QString noBase = copyOf(shared, QStringLiteral("nobase"));
        for (const auto& e : fs::directory_iterator(noBase.toStdString() + ".d"))
            if (e.path().filename().string().rfind("signatures-1-", 0) == 0) fs::remove(e.path());
        const auto reread = runAgainstReference(noBase, QStringLiteral("nobase"), newBands);
        QVERIFY2(reread.code == 0, qPrintable(reread.err));
        QVERIFY2(!reread.err.contains(QStringLiteral("reusing the project's signatures")),
                 qPrintable(reread.err));
        compareOutputs(QStringLiteral("nobase"), QStringLiteral("rb3"));
    }

    // Other bands and rows than the reference's own run: its stored pairs do not serve, and
    // every bucket is compared, as a project that read everything compares them.
    void otherBandsCompareTheReferenceAgain() {
        const QString tag = QStringLiteral("otherbands");
        const auto r = runAgainstReference(
            copyOfSigned(tag), tag,
            {QStringLiteral("--bands"), QStringLiteral("16"), QStringLiteral("--rows"),
             QStringLiteral("8"), QStringLiteral("--threads"), QStringLiteral("2")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("reading the inputs only")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("only buckets holding")), qPrintable(r.err));
        compareOutputs(tag, QStringLiteral("rb2"));
        compareCounts(tag, QStringLiteral("rb2"));
    }

    // A reference cache cut short or with another header is no cache: the reference is read
    // and signed again, and the outputs do not change.
    void aDamagedReferenceCacheIsAMiss() {
        namespace fs = std::filesystem;
        for (const bool truncate : {true, false}) {
            const QString tag = truncate ? QStringLiteral("cut") : QStringLiteral("garbled");
            const QString project = copyOfSigned(tag);
            int caches = 0;
            for (const auto& e : fs::directory_iterator(project.toStdString() + ".d")) {
                if (e.path().filename().string().rfind("signatures-", 0) != 0) continue;
                ++caches;
                if (truncate) {
                    fs::resize_file(e.path(), fs::file_size(e.path()) - 700);
                } else {
                    std::string bytes = readFile(e.path().string());
                    bytes.replace(0, 8, "garbage!");
                    writeFile(e.path().string(), bytes);
                }
            }
            QCOMPARE(caches, 1);
            const auto r = runAgainstReference(project, tag,
                                               {QStringLiteral("--threads"), QStringLiteral("2")});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY2(!r.err.contains(QStringLiteral("reading the inputs only")), qPrintable(r.err));
            QVERIFY(!readBefore(path(tag + QStringLiteral(".json"))));
            compareOutputs(tag, QStringLiteral("fresh"));
        }
    }
};

QTEST_GUILESS_MAIN(TestReferenceStreamed)
#include "test_reference_streamed.moc"
