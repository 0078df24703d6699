// Deduplicating new data against a reference (`neardup run --reference`), end to end through
// the CLI: a generated corpus with exact ground truth split in two, the reference half never
// written and never removed, every removal vouched for by a reference document or a kept new
// one at exact Jaccard >= θ, recall against the reference, identical outputs on 1 and 2
// threads, the reference named by an earlier run or a project, a file in both refused, a run
// resumed with its reference, and a decontamination run on short benchmark-like items.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "test_support.h"

using testsupport::neardup;
using testsupport::q;
using testsupport::readFile;
using testsupport::writeFile;

namespace {

constexpr double kThreshold = 0.8;

QSet<QString> lines(const QString& path) {
    QSet<QString> out;
    for (const QByteArray& l : readFile(path).split('\n'))
        if (!l.isEmpty()) out.insert(QString::fromUtf8(l));
    return out;
}

QSet<QString> idsOfJsonl(const QString& path) {
    QSet<QString> out;
    for (const QByteArray& l : readFile(path).split('\n'))
        if (!l.isEmpty())
            out.insert(QJsonDocument::fromJson(l).object().value(QStringLiteral("id")).toString());
    return out;
}

QJsonObject jsonFile(const QString& path) {
    return QJsonDocument::fromJson(readFile(path)).object();
}

}  // namespace

class TestReference : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString ref_, new_, truth_;
    QSet<QString> refIds_, newIds_;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

    // `neardup run NEW --reference REF` with every output, into files prefixed `tag`.
    testsupport::CliResult runAgainstReference(const QString& tag, const QStringList& extra = {}) {
        QStringList args = {QStringLiteral("run"),
                            new_,
                            QStringLiteral("--reference"),
                            ref_,
                            QStringLiteral("-p"),
                            dir_.filePath(tag + QStringLiteral(".ndw")),
                            QStringLiteral("--verify"),
                            QStringLiteral("exact"),
                            QStringLiteral("--out-kept"),
                            dir_.filePath(tag + QStringLiteral(".kept")),
                            QStringLiteral("--out-removed"),
                            dir_.filePath(tag + QStringLiteral(".removed")),
                            QStringLiteral("--out-clusters"),
                            dir_.filePath(tag + QStringLiteral(".clusters.jsonl")),
                            QStringLiteral("--out-jsonl"),
                            dir_.filePath(tag + QStringLiteral(".out.jsonl")),
                            QStringLiteral("--summary-json"),
                            dir_.filePath(tag + QStringLiteral(".summary.json"))};
        return neardup(args + extra);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString all = path("all.jsonl");
        truth_ = path("truth.json");
        const auto gen =
            neardup({QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("3000"),
                     QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--out"), all,
                     QStringLiteral("--truth"), truth_});
        QVERIFY2(gen.code == 0, qPrintable(gen.err));
        // Alternate lines to each half, so that planted variants fall on both sides.
        std::string ref, fresh;
        int i = 0;
        for (const QByteArray& l : readFile(all).split('\n')) {
            if (l.isEmpty()) continue;
            const QString id =
                QJsonDocument::fromJson(l).object().value(QStringLiteral("id")).toString();
            std::string& half = i++ % 2 == 0 ? ref : fresh;
            half += l.toStdString() + "\n";
            (i % 2 == 1 ? refIds_ : newIds_).insert(id);
        }
        ref_ = path("reference.jsonl");
        new_ = path("new.jsonl");
        writeFile(ref_.toStdString(), ref);
        writeFile(new_.toStdString(), fresh);
    }

    void referenceDocumentsAreNeverWrittenNorRemoved() {
        const auto r = runAgainstReference(QStringLiteral("a"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QSet<QString> kept = lines(dir_.filePath(QStringLiteral("a.kept")));
        const QSet<QString> removed = lines(dir_.filePath(QStringLiteral("a.removed")));
        QVERIFY(!kept.intersects(refIds_));
        QVERIFY(!removed.intersects(refIds_));
        QVERIFY(!idsOfJsonl(dir_.filePath(QStringLiteral("a.out.jsonl"))).intersects(refIds_));
        QVERIFY(!idsOfJsonl(dir_.filePath(QStringLiteral("a.clusters.jsonl"))).intersects(refIds_));
        // Every new document is kept or removed, exactly once.
        QCOMPARE(kept + removed, newIds_);
        QVERIFY(!kept.intersects(removed));
        const QJsonObject s = jsonFile(dir_.filePath(QStringLiteral("a.summary.json")));
        const QJsonObject reference = s.value(QStringLiteral("reference")).toObject();
        QCOMPARE(reference.value(QStringLiteral("documents")).toInt(), refIds_.size());
        QCOMPARE(s.value(QStringLiteral("kept")).toInt(), kept.size());
        QCOMPARE(s.value(QStringLiteral("removed")).toInt(), removed.size());
        QVERIFY(reference.value(QStringLiteral("removed_for_reference")).toInt() > 100);
        QVERIFY2(r.err.contains(QStringLiteral("1500 reference + ")), qPrintable(r.err));
        // The project's document_status view names the reference's documents as such.
        QCOMPARE(testsupport::sqlRows(dir_.filePath(QStringLiteral("a.ndw")).toStdString(),
                                      "SELECT status, count(*) FROM document_status GROUP BY "
                                      "status ORDER BY status"),
                 (QStringList{QStringLiteral("kept|%1").arg(kept.size()),
                              QStringLiteral("reference|1500"),
                              QStringLiteral("removed|%1").arg(removed.size())}));
    }

    void everyRemovalHasAWitnessAtTheThreshold() {
        const QSet<QString> kept = lines(dir_.filePath(QStringLiteral("a.kept")));
        const QSet<QString> removed = lines(dir_.filePath(QStringLiteral("a.removed")));
        int fromReference = 0, checked = 0;
        QHash<QString, int> matchedPerReference;
        for (const QByteArray& l :
             readFile(dir_.filePath(QStringLiteral("a.clusters.jsonl"))).split('\n')) {
            if (l.isEmpty()) continue;
            const QJsonObject m = QJsonDocument::fromJson(l).object();
            const QString id = m.value(QStringLiteral("id")).toString();
            if (!removed.contains(id)) continue;
            ++checked;
            const QString witness = m.value(QStringLiteral("witness")).toString();
            QVERIFY2(!witness.isEmpty(), qPrintable(id));
            QVERIFY2(m.value(QStringLiteral("exact")).toDouble() >= kThreshold - 1e-6,
                     qPrintable(id));
            const bool byReference = m.value(QStringLiteral("witness_reference")).toBool();
            QCOMPARE(byReference, refIds_.contains(witness));
            QVERIFY2(byReference || kept.contains(witness),
                     qPrintable(id + QStringLiteral(" for ") + witness));
            if (byReference) {
                ++fromReference;
                ++matchedPerReference[witness];
            }
        }
        QCOMPARE(checked, removed.size());
        const QJsonObject reference = jsonFile(dir_.filePath(QStringLiteral("a.summary.json")))
                                          .value(QStringLiteral("reference"))
                                          .toObject();
        QCOMPARE(reference.value(QStringLiteral("removed_for_reference")).toInt(), fromReference);
        // Per reference document, how many new documents it removed, as the clusters say.
        const QJsonArray matched = reference.value(QStringLiteral("matched")).toArray();
        QCOMPARE(matched.size(), matchedPerReference.size());
        int previous = INT_MAX;
        for (const QJsonValue& v : matched) {
            const QJsonObject o = v.toObject();
            const int n = o.value(QStringLiteral("removed")).toInt();
            QCOMPARE(n, matchedPerReference.value(o.value(QStringLiteral("id")).toString()));
            QVERIFY(n <= previous);  // most matched first
            previous = n;
        }
    }

    // Of the new documents with a reference document at exact Jaccard >= θ (the generator's
    // ground truth), at least 99.5 % are removed.
    void recallAgainstTheReference() {
        const QSet<QString> removed = lines(dir_.filePath(QStringLiteral("a.removed")));
        QSet<QString> expected;
        const QJsonArray pairs = jsonFile(truth_).value(QStringLiteral("pairs")).toArray();
        for (const QJsonValue& v : pairs) {
            const QJsonObject p = v.toObject();
            if (p.value(QStringLiteral("jaccard")).toDouble() < kThreshold) continue;
            const QString a = p.value(QStringLiteral("a")).toString();
            const QString b = p.value(QStringLiteral("b")).toString();
            if (refIds_.contains(a) && newIds_.contains(b)) expected.insert(b);
            if (refIds_.contains(b) && newIds_.contains(a)) expected.insert(a);
        }
        QVERIFY(expected.size() > 100);
        const qsizetype found = (expected & removed).size();
        QVERIFY2(static_cast<double>(found) >= 0.995 * static_cast<double>(expected.size()),
                 qPrintable(QStringLiteral("%1 of %2").arg(found).arg(expected.size())));
    }

    void oneAndTwoThreadsWriteTheSameBytes() {
        const auto one = runAgainstReference(QStringLiteral("t1"),
                                             {QStringLiteral("--threads"), QStringLiteral("1")});
        const auto two = runAgainstReference(QStringLiteral("t2"),
                                             {QStringLiteral("--threads"), QStringLiteral("2")});
        QVERIFY2(one.code == 0 && two.code == 0, qPrintable(one.err + two.err));
        for (const char* suffix : {".kept", ".removed", ".clusters.jsonl", ".out.jsonl"}) {
            const QByteArray a =
                readFile(dir_.filePath(QStringLiteral("t1") + QLatin1String(suffix)));
            QVERIFY(!a.isEmpty());
            QCOMPARE(a, readFile(dir_.filePath(QStringLiteral("t2") + QLatin1String(suffix))));
        }
    }

    // The HTML report counts the reference apart, balances its accounting with it, and lists the
    // reference documents that removed the most, as --summary-json does; its clusters CSV names
    // reference members as such.
    void theReportSaysWhatTheReferenceRemoved() {
        const auto r = neardup({QStringLiteral("report"), QStringLiteral("-p"),
                                dir_.filePath(QStringLiteral("t1.ndw")), QStringLiteral("--out"),
                                path("t1.html"), QStringLiteral("--clusters-csv"), path("t1.csv")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString html = QString::fromUtf8(readFile(path("t1.html")));
        QVERIFY(html.contains(QStringLiteral("<h2>Reference</h2>")));
        QVERIFY(html.contains(QStringLiteral("= reference 1,500 + kept")));
        QVERIFY(!html.contains(QStringLiteral("does not balance")));
        const QJsonObject reference = jsonFile(dir_.filePath(QStringLiteral("t1.summary.json")))
                                          .value(QStringLiteral("reference"))
                                          .toObject();
        const QJsonArray matched = reference.value(QStringLiteral("matched")).toArray();
        QVERIFY(matched.size() > 20);
        for (int i = 0; i < 20; ++i) {
            const QJsonObject m = matched.at(i).toObject();
            QVERIFY2(html.contains(QStringLiteral("<tr><td>%1</td><td class=\"n\">%2</td></tr>")
                                       .arg(m.value(QStringLiteral("id")).toString())
                                       .arg(m.value(QStringLiteral("removed")).toInt())),
                     qPrintable(m.value(QStringLiteral("id")).toString()));
        }
        const QString csv = QString::fromUtf8(readFile(path("t1.csv")));
        QVERIFY(csv.count(QStringLiteral(",reference,")) > 100);
        for (const QString& line : csv.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts)) {
            if (!line.contains(QStringLiteral(",reference,"))) continue;
            const QString id = line.section(QLatin1Char(','), 2, 2);
            QVERIFY2(refIds_.contains(id), qPrintable(line));
        }
    }

    // A reference the project read before, alone (the corpus cleaned by an earlier run), is
    // neither read nor signed again: its documents and signatures come from that dataset, and
    // the outputs are byte for byte those of a run that read it.
    void aReferenceReadBeforeIsNotReadAgain() {
        const QString project = path("cleaned.ndw");
        QCOMPARE(neardup({QStringLiteral("run"), ref_, QStringLiteral("-p"), project}).code, 0);
        auto against = [&](const QString& inputs, const QString& tag) {
            return neardup(
                {QStringLiteral("run"), inputs, QStringLiteral("--reference"), ref_,
                 QStringLiteral("-p"), project, QStringLiteral("--verify"), QStringLiteral("exact"),
                 QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--out-kept"),
                 path(qPrintable(tag + QStringLiteral(".kept"))), QStringLiteral("--out-removed"),
                 path(qPrintable(tag + QStringLiteral(".removed"))),
                 QStringLiteral("--out-clusters"),
                 path(qPrintable(tag + QStringLiteral(".clusters.jsonl"))),
                 QStringLiteral("--summary-json"),
                 path(qPrintable(tag + QStringLiteral(".json")))});
        };
        const auto r = against(new_, QStringLiteral("seeded"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("reading the inputs only")), qPrintable(r.err));
        QVERIFY(jsonFile(path("seeded.json"))
                    .value(QStringLiteral("reference"))
                    .toObject()
                    .value(QStringLiteral("read_before"))
                    .toBool());
        for (const char* suffix : {".kept", ".removed", ".clusters.jsonl"})
            QCOMPARE(readFile(path(qPrintable(QStringLiteral("seeded") + QLatin1String(suffix)))),
                     readFile(dir_.filePath(QStringLiteral("t1") + QLatin1String(suffix))));
        // Nor stored again: the new dataset's document rows are the inputs' only, the
        // reference's are dataset 1's.
        QCOMPARE(testsupport::sqlRows(project.toStdString(),
                                      "SELECT base_dataset, base_documents, (SELECT count(*) FROM "
                                      "documents WHERE dataset_id = 2) FROM datasets WHERE id = 2"),
                 QStringList{QStringLiteral("1|%1|%2").arg(refIds_.size()).arg(newIds_.size())});
        // Other new data against the same reference: still not read again.
        std::string half;
        int i = 0;
        for (const QByteArray& l : readFile(new_).split('\n'))
            if (!l.isEmpty() && i++ % 2 == 0) half += l.toStdString() + "\n";
        writeFile(path("new-half.jsonl").toStdString(), half);
        const auto other = against(path("new-half.jsonl"), QStringLiteral("half"));
        QVERIFY2(other.code == 0, qPrintable(other.err));
        QVERIFY2(other.err.contains(QStringLiteral("reading the inputs only")),
                 qPrintable(other.err));
        const QSet<QString> removed = lines(path("half.removed"));
        QVERIFY(!removed.isEmpty());
        QVERIFY(!removed.intersects(refIds_));
    }

    // A run against a reference re-clustered at another threshold (neardup recluster, the
    // workbench's Save as run) keeps its reference, its pairs reused.
    void reclusterKeepsTheReference() {
        const QString project = dir_.filePath(QStringLiteral("t1.ndw"));
        const auto r =
            neardup({QStringLiteral("recluster"), QStringLiteral("-p"), project,
                     QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("-t"),
                     QStringLiteral("0.9"), QStringLiteral("--out-removed"), path("re.removed"),
                     QStringLiteral("--summary-json"), path("re.json")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject s = jsonFile(path("re.json"));
        QVERIFY(s.value(QStringLiteral("pairs_reused")).toBool());
        QCOMPARE(s.value(QStringLiteral("reference"))
                     .toObject()
                     .value(QStringLiteral("documents"))
                     .toInt(),
                 refIds_.size());
        const QSet<QString> removed = lines(path("re.removed"));
        QVERIFY(!removed.intersects(refIds_));
        QVERIFY(!removed.isEmpty());
        QCOMPARE(s.value(QStringLiteral("removed")).toInt(), removed.size());
    }

    // The same reference and inputs again, at another threshold: nothing is read again.
    void aSecondRunReusesTheReferencesSignatures() {
        const auto again = runAgainstReference(
            QStringLiteral("a"), {QStringLiteral("--threshold"), QStringLiteral("0.85")});
        QVERIFY2(again.code == 0, qPrintable(again.err));
        const QJsonObject s = jsonFile(dir_.filePath(QStringLiteral("a.summary.json")));
        QVERIFY(s.value(QStringLiteral("signatures_reused")).toBool());
        // A run of the inputs alone is another dataset: the reference is part of what was read.
        const auto alone = neardup({QStringLiteral("run"), new_, QStringLiteral("-p"),
                                    dir_.filePath(QStringLiteral("a.ndw")),
                                    QStringLiteral("--summary-json"), path("alone.json")});
        QVERIFY2(alone.code == 0, qPrintable(alone.err));
        const QJsonObject a = jsonFile(path("alone.json"));
        QVERIFY(!a.value(QStringLiteral("signatures_reused")).toBool());
        QVERIFY(!a.contains(QStringLiteral("reference")));
        QCOMPARE(a.value(QStringLiteral("documents")).toInt(), newIds_.size());
    }

    // --reference-run N and a project given to --reference stand for that run's inputs.
    void anEarlierRunOrAProjectServesAsTheReference() {
        const QString project = path("runs.ndw");
        const auto first = neardup({QStringLiteral("run"), ref_, QStringLiteral("-p"), project});
        QVERIFY2(first.code == 0, qPrintable(first.err));
        // The project given to --reference: its latest run read the reference alone.
        const QString referenceProject = path("reference-only.ndw");
        QVERIFY(QFile::copy(project, referenceProject));
        auto against = [&](const QStringList& how, const char* removedName) {
            QStringList args = {QStringLiteral("run"),
                                new_,
                                QStringLiteral("-p"),
                                project,
                                QStringLiteral("--verify"),
                                QStringLiteral("exact"),
                                QStringLiteral("--out-removed"),
                                path(removedName)};
            return neardup(args + how);
        };
        const auto byRun =
            against({QStringLiteral("--reference-run"), QStringLiteral("1")}, "by-run.removed");
        QVERIFY2(byRun.code == 0, qPrintable(byRun.err));
        const auto byProject =
            against({QStringLiteral("--reference"), referenceProject}, "by-project.removed");
        QVERIFY2(byProject.code == 0, qPrintable(byProject.err));
        const QByteArray expected = readFile(dir_.filePath(QStringLiteral("t1.removed")));
        QCOMPARE(readFile(path("by-run.removed")), expected);
        QCOMPARE(readFile(path("by-project.removed")), expected);
        // A run whose inputs changed since cannot stand for them.
        writeFile(path("changed.jsonl").toStdString(),
                  "{\"id\":\"x\",\"text\":\"one two three four five six\"}\n");
        const QString changedProject = path("changed.ndw");
        QCOMPARE(neardup({QStringLiteral("run"), path("changed.jsonl"), QStringLiteral("-p"),
                          changedProject})
                     .code,
                 0);
        writeFile(path("changed.jsonl").toStdString(),
                  "{\"id\":\"x\",\"text\":\"another text entirely here\"}\n");
        const auto refused = against({QStringLiteral("--reference"), changedProject}, "no.removed");
        QCOMPARE(refused.code, 1);
        QVERIFY2(refused.err.contains(path("changed.jsonl")), qPrintable(refused.err));
        QVERIFY(!QFile::exists(path("no.removed")));
    }

    // A file given both as an input and in the reference is refused, naming it, before the
    // project is opened.
    void aFileInBothIsRefused() {
        const auto r = neardup({QStringLiteral("run"), new_, QStringLiteral("--reference"), new_,
                                QStringLiteral("-p"), path("both.ndw"),
                                QStringLiteral("--out-kept"), path("both.kept")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("both an input and part of the reference")) &&
                     r.err.contains(new_),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(path("both.kept")));
        // Refused before the project is opened, as a refused output is: nothing is created.
        QVERIFY(!QFile::exists(path("both.ndw")));
    }

    // No output may land on the reference.
    void anOutputOnTheReferenceIsRefused() {
        const QByteArray before = readFile(ref_);
        const auto r =
            neardup({QStringLiteral("run"), new_, QStringLiteral("--reference"), ref_,
                     QStringLiteral("-p"), path("guard.ndw"), QStringLiteral("--out-kept"), ref_});
        QVERIFY(r.code != 0);
        QCOMPARE(readFile(ref_), before);
    }

    // A run that failed after it was recorded resumes with its reference.
    void aResumedRunKeepsItsReference() {
        const QString project = path("resume.ndw");
        std::string withBad = readFile(new_.toStdString());
        writeFile(path("new-bad.jsonl").toStdString(), withBad + "not json\n");
        const auto failed = neardup({QStringLiteral("run"), path("new-bad.jsonl"),
                                     QStringLiteral("--reference"), ref_, QStringLiteral("-p"),
                                     project, QStringLiteral("--verify"), QStringLiteral("exact"),
                                     QStringLiteral("--max-rejected"), QStringLiteral("0")});
        QCOMPARE(failed.code, 1);
        const auto resumed =
            neardup({QStringLiteral("run"), QStringLiteral("--resume"), QStringLiteral("-p"),
                     project, QStringLiteral("--out-removed"), path("resumed.removed")});
        QVERIFY2(resumed.code == 0, qPrintable(resumed.err));
        QVERIFY2(resumed.err.contains(QStringLiteral("1 reference(s)")), qPrintable(resumed.err));
        QCOMPARE(readFile(path("resumed.removed")),
                 readFile(dir_.filePath(QStringLiteral("t1.removed"))));
    }

    // Decontamination: short benchmark items planted with small edits into a corpus are all
    // found, and the summary lists each item with how many documents repeated it.
    void decontaminationFindsEveryPlantedItem() {
        std::string bench, corpus;
        QHash<QString, int> planted;
        const char* words[] = {"alpha",   "bravo",  "charlie", "delta",    "echo",
                               "foxtrot", "golf",   "hotel",   "india",    "juliet",
                               "kilo",    "lima",   "mike",    "november", "oscar",
                               "papa",    "quebec", "romeo",   "sierra",   "tango"};
        auto question = [&](int item) {
            std::string text = "Question " + std::to_string(item) + ":";
            for (int w = 0; w < 40; ++w)
                text += std::string(" ") + words[(item * 7 + w * w * 3 + w) % 20] +
                        std::to_string((item * 31 + w) % 97);
            return text;
        };
        for (int item = 0; item < 30; ++item) {
            const std::string text = question(item);
            bench += "{\"id\":\"bench-" + std::to_string(item) + "\",\"text\":\"" + text + "\"}\n";
            // Items 0..9 leak, item k in k % 3 + 1 documents, with a word changed and a prefix.
            if (item >= 10) continue;
            const QString id = QStringLiteral("bench-%1").arg(item);
            planted[id] = item % 3 + 1;
            for (int copy = 0; copy < item % 3 + 1; ++copy) {
                std::string edited = text;
                edited.replace(
                    edited.find(words[0]) != std::string::npos ? edited.find(words[0]) : 0, 0,
                    "Answer this: ");
                corpus += "{\"id\":\"train-leak-" + std::to_string(item) + "-" +
                          std::to_string(copy) + "\",\"text\":\"" + edited + " copy " +
                          std::to_string(copy) + "\"}\n";
            }
        }
        for (int d = 0; d < 300; ++d) {
            std::string text = "Unrelated training document " + std::to_string(d) + ".";
            for (int w = 0; w < 60; ++w)
                text +=
                    std::string(" ") + words[(d * 13 + w * 5) % 20] + std::to_string(d * w % 89);
            corpus += "{\"id\":\"train-" + std::to_string(d) + "\",\"text\":\"" + text + "\"}\n";
        }
        writeFile(path("bench.jsonl").toStdString(), bench);
        writeFile(path("train.jsonl").toStdString(), corpus);
        const auto r = neardup(
            {QStringLiteral("run"), path("train.jsonl"), QStringLiteral("--reference"),
             path("bench.jsonl"), QStringLiteral("-p"), path("decon.ndw"),
             QStringLiteral("--shingle"), QStringLiteral("word"), QStringLiteral("--ngram"),
             QStringLiteral("3"), QStringLiteral("--threshold"), QStringLiteral("0.5"),
             QStringLiteral("--verify"), QStringLiteral("exact"), QStringLiteral("--out-removed"),
             path("decon.removed"), QStringLiteral("--summary-json"), path("decon.json")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QSet<QString> removed = lines(path("decon.removed"));
        int leaks = 0;
        for (auto it = planted.begin(); it != planted.end(); ++it)
            leaks += it.value();
        QCOMPARE(removed.size(), leaks);
        for (const QString& id : removed)
            QVERIFY2(id.startsWith(QStringLiteral("train-leak-")), qPrintable(id));
        const QJsonArray matched = jsonFile(path("decon.json"))
                                       .value(QStringLiteral("reference"))
                                       .toObject()
                                       .value(QStringLiteral("matched"))
                                       .toArray();
        QCOMPARE(matched.size(), planted.size());
        for (const QJsonValue& v : matched) {
            const QJsonObject o = v.toObject();
            QCOMPARE(o.value(QStringLiteral("removed")).toInt(),
                     planted.value(o.value(QStringLiteral("id")).toString()));
        }
    }

    // The example of docs/guide/reference.md prints what the guide says it prints.
    void theDecontaminationExamplePrintsWhatTheGuideShows() {
        QProcess example;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("NEARDUP"), QStringLiteral(NEARDUP_CLI_PATH));
        example.setProcessEnvironment(env);
        example.start(
            QStringLiteral(NEARDUP_SOURCE_DIR "/docs/examples/decontamination/run-example.sh"),
            {path("example")});
        QVERIFY(example.waitForFinished(120000));
        const QString out = QString::fromUtf8(example.readAllStandardOutput());
        QVERIFY2(example.exitCode() == 0,
                 qPrintable(out + QString::fromUtf8(example.readAllStandardError())));
        const QString guide = QString::fromUtf8(
            readFile(QStringLiteral(NEARDUP_SOURCE_DIR "/docs/guide/reference.md")));
        for (const QString& line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            QVERIFY2(guide.contains(line), qPrintable(line));
        QVERIFY(out.contains(QStringLiteral("\"removed_for_reference\": 4")));
    }
};

QTEST_GUILESS_MAIN(TestReference)
#include "test_reference.moc"
