// `neardup report` and core/report: the HTML report of a stored run. Its counts are the run's,
// every string from the data comes out escaped, it references nothing outside itself, the same
// run gives the same bytes, a changed input is refused (or left out with --no-text), and it
// never replaces an input or the project.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

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
              "Largest clusters", "Outlier buckets", "<del>", "<ins>", "sample.jsonl",
              "Reviewed 0 of"})
            QVERIFY2(html.contains(QString::fromUtf8(part)), part);
        QCOMPARE(html.count(QStringLiteral("<div class=\"pair\">")), 8);
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
        r = report({QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--run"), QStringLiteral("9"),
                    QStringLiteral("--out"), d("none.html")});
        QCOMPARE(r.code, 1);
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
        QVERIFY(html.contains(QStringLiteral("2 of 4 drawn pairs judged (1 duplicates)")));
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "test_report.moc"
