// The components a run names in its machine-readable and shareable outputs, through
// the CLI as a process: `neardup run --summary-json` (and `export --summary-json`, `recluster`)
// writes a "components" object with the largest components, their diameters and chain flags, the
// same list `neardup run` prints on stderr; a chain is flagged, a star is not; a run that spilled
// measures its diameters from its spill file and caches its signatures for later; a project
// without its cache has no diameters and says why; the list is the same for any thread count;
// `neardup report` shows it in its "Largest components" section.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <string>

#include "chain_corpus.h"
#include "test_support.h"

using testsupport::readFile;

namespace {

using Result = testsupport::CliResult;

QJsonObject summaryOf(const std::string& path) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path))).object();
}

QJsonObject componentsOf(const std::string& path) {
    return summaryOf(path).value(QStringLiteral("components")).toObject();
}

QJsonObject listed(const QJsonObject& components, qsizetype i) {
    return components.value(QStringLiteral("listed")).toArray().at(i).toObject();
}

}  // namespace

class TestComponentSummary : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_;

    std::string d(const std::string& name) const {
        return dir_.filePath(QString::fromStdString(name)).toStdString();
    }
    static QString q(const std::string& s) { return QString::fromStdString(s); }

    // neardup run on the chain and the star into NAME.ndw, its summary in NAME.json.
    Result run(const std::string& name, const QStringList& extra = {}) {
        return testsupport::neardup(
            QStringList{QStringLiteral("run"), q(corpus_), QStringLiteral("-p"),
                        q(d(name + ".ndw")), QStringLiteral("--backend"), QStringLiteral("cpu"),
                        QStringLiteral("--summary-json"), q(d(name + ".json"))} +
            extra);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = d("chain-and-star.jsonl");
        testsupport::writeChainCorpus(corpus_, 12);
    }

    // The chain (25 versions, each a small edit of the previous one) is named with a diameter
    // below the chain threshold and flagged; the star (12 versions of one original) is not; the
    // diameters are the ones printed on stderr.
    void chainIsFlaggedAndStarIsNot() {
        const Result r = run("flags");
        QCOMPARE(r.code, 0);
        const QJsonObject c = componentsOf(d("flags.json"));
        QVERIFY2(!c.isEmpty(), readFile(d("flags.json")).c_str());
        const double below = c.value(QStringLiteral("chain_below")).toDouble();
        QVERIFY(std::abs(below - 0.694) < 0.001);  // θ 0.8, 128 hashes
        QCOMPARE(c.value(QStringLiteral("chains")).toInt(), 1);
        QCOMPARE(c.value(QStringLiteral("large")).toInt(), 0);
        QVERIFY(c.value(QStringLiteral("diameter_unknown")).isNull());
        QCOMPARE(c.value(QStringLiteral("listed")).toArray().size(), 2);

        const QJsonObject chain = listed(c, 0);
        QCOMPARE(chain.value(QStringLiteral("size")).toInt(), testsupport::kChainVersions);
        QCOMPARE(chain.value(QStringLiteral("representative")).toString(), QStringLiteral("v00"));
        QVERIFY(chain.value(QStringLiteral("diameter")).toDouble() < below);
        QVERIFY(chain.value(QStringLiteral("chain")).toBool());
        QVERIFY(!chain.value(QStringLiteral("large")).toBool());
        QVERIFY(chain.value(QStringLiteral("farthest")).toString().startsWith(u'v'));

        const QJsonObject star = listed(c, 1);
        QCOMPARE(star.value(QStringLiteral("size")).toInt(), 12);
        QCOMPARE(star.value(QStringLiteral("representative")).toString(), QStringLiteral("s00"));
        QVERIFY(star.value(QStringLiteral("diameter")).toDouble() >= below);
        QVERIFY(!star.value(QStringLiteral("chain")).toBool());
        QVERIFY(chain.value(QStringLiteral("cluster")).toInt() !=
                star.value(QStringLiteral("cluster")).toInt());

        // One list: stderr names the same components with the same diameters.
        const QRegularExpression line(QStringLiteral(
            "largest components: 25 members \\(diameter (0\\.\\d\\d): a chain\\), 12 members "
            "\\(diameter (0\\.\\d\\d)\\)\n"));
        const QRegularExpressionMatch m = line.match(r.err);
        QVERIFY2(m.hasMatch(), qPrintable(r.err));
        QCOMPARE(m.captured(1),
                 QString::number(chain.value(QStringLiteral("diameter")).toDouble(), 'f', 2));
        QCOMPARE(m.captured(2),
                 QString::number(star.value(QStringLiteral("diameter")).toDouble(), 'f', 2));
    }

    // The same under the components rule: the diameter is about the component, not the rule.
    void componentsRuleNamesTheSameChain() {
        QCOMPARE(run("components", {QStringLiteral("--decide"), QStringLiteral("components")}).code,
                 0);
        const QJsonObject c = componentsOf(d("components.json"));
        QCOMPARE(c.value(QStringLiteral("chains")).toInt(), 1);
        QCOMPARE(c, componentsOf(d("flags.json")));
    }

    // The list reads only the clusters and the cached signatures: the same for 1 and 2 threads.
    void sameForAnyThreadCount() {
        QCOMPARE(run("j1", {QStringLiteral("-j"), QStringLiteral("1")}).code, 0);
        QCOMPARE(run("j2", {QStringLiteral("-j"), QStringLiteral("2")}).code, 0);
        const QJsonObject one = componentsOf(d("j1.json"));
        QVERIFY(!one.isEmpty());
        QCOMPARE(one, componentsOf(d("j2.json")));
    }

    // A run that spills measures its components from the rows' spill file before closing it,
    // and caches its signatures in the project from that file: the same list, diameters and
    // flags as a run in memory, at the run's end and when its summary is exported later.
    void spilledRunMeasuresItsComponents() {
        const Result r = run("spilled", {QStringLiteral("--memory-budget"), QStringLiteral("1M")});
        QCOMPARE(r.code, 0);
        QVERIFY(summaryOf(d("spilled.json")).value(QStringLiteral("spilled")).toBool());
        const QJsonObject c = componentsOf(d("spilled.json"));
        QVERIFY2(c.value(QStringLiteral("diameter_unknown")).isNull(),
                 readFile(d("spilled.json")).c_str());
        QCOMPARE(c.value(QStringLiteral("chains")).toInt(), 1);
        QCOMPARE(c, componentsOf(d("flags.json")));
        QVERIFY2(r.err.contains(QStringLiteral("a chain")), qPrintable(r.err));

        const Result e = testsupport::neardup(
            {QStringLiteral("export"), QStringLiteral("-p"), q(d("spilled.ndw")),
             QStringLiteral("--summary-json"), q(d("spilled-export.json"))});
        QCOMPARE(e.code, 0);
        QCOMPARE(componentsOf(d("spilled-export.json")), componentsOf(d("flags.json")));
    }

    // Without the project's signature cache (its sidecar folder gone), the components are named
    // by size, their diameters are null and the summary says why.
    void absentCacheHasNoDiameters() {
        namespace fs = std::filesystem;
        fs::copy_file(d("flags.ndw"), d("bare.ndw"));  // the project without its sidecar folder
        const Result e =
            testsupport::neardup({QStringLiteral("export"), QStringLiteral("-p"), q(d("bare.ndw")),
                                  QStringLiteral("--summary-json"), q(d("bare.json"))});
        QCOMPARE(e.code, 0);
        const QJsonObject later = componentsOf(d("bare.json"));
        QVERIFY2(!later.value(QStringLiteral("diameter_unknown")).toString().isEmpty(),
                 readFile(d("bare.json")).c_str());
        QCOMPARE(later.value(QStringLiteral("chains")).toInt(), 0);
        const QJsonObject chain = listed(later, 0);
        QCOMPARE(chain.value(QStringLiteral("size")).toInt(), testsupport::kChainVersions);
        QVERIFY(chain.contains(QStringLiteral("diameter")));
        QVERIFY(chain.value(QStringLiteral("diameter")).isNull());
        QVERIFY(chain.value(QStringLiteral("farthest")).isNull());
        QVERIFY(!chain.value(QStringLiteral("chain")).toBool());
    }

    // `neardup export --summary-json` and `neardup recluster` write the same object.
    void exportAndReclusterNameThemToo() {
        const Result e =
            testsupport::neardup({QStringLiteral("export"), QStringLiteral("-p"), q(d("flags.ndw")),
                                  QStringLiteral("--summary-json"), q(d("exported.json"))});
        QCOMPARE(e.code, 0);
        QCOMPARE(componentsOf(d("exported.json")), componentsOf(d("flags.json")));

        const Result r = testsupport::neardup(
            {QStringLiteral("recluster"), QStringLiteral("-p"), q(d("flags.ndw")),
             QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("-t"),
             QStringLiteral("0.85"), QStringLiteral("--summary-json"), q(d("recluster.json"))});
        QCOMPARE(r.code, 0);
        const QJsonObject c = componentsOf(d("recluster.json"));
        QVERIFY2(!c.isEmpty(), readFile(d("recluster.json")).c_str());
        // At a higher threshold the chain threshold is higher too.
        QVERIFY(c.value(QStringLiteral("chain_below")).toDouble() >
                componentsOf(d("flags.json")).value(QStringLiteral("chain_below")).toDouble());
    }

    // The HTML report lists the same components, with the chain flagged in plain words.
    void reportShowsLargestComponents() {
        const Result r =
            testsupport::neardup({QStringLiteral("report"), QStringLiteral("-p"), q(d("flags.ndw")),
                                  QStringLiteral("--run"), QStringLiteral("1"),
                                  QStringLiteral("--out"), q(d("flags.html"))});
        QCOMPARE(r.code, 0);
        const QString html = QString::fromStdString(readFile(d("flags.html")));
        const qsizetype at = html.indexOf(QStringLiteral("<h2>Largest components</h2>"));
        QVERIFY2(at >= 0, qPrintable(html));
        const QString section = html.mid(at, html.indexOf(QStringLiteral("<h2>"), at + 4) - at);
        const QJsonObject c = componentsOf(d("flags.json"));
        const QString chainRow =
            QStringLiteral("<td>v00</td><td class=\"n\">%1</td>")
                .arg(listed(c, 0).value(QStringLiteral("diameter")).toDouble(), 0, 'f', 3);
        QVERIFY2(section.contains(chainRow), qPrintable(section));
        QVERIFY(section.contains(QStringLiteral("<td>s00</td>")));
        QCOMPARE(section.count(QStringLiteral(
                     "a chain: a member far from the kept document, linked only through others")),
                 2);  // the note above the table, and the chain's row
        QCOMPARE(section.count(QStringLiteral("<tr><td")), 2);
    }
};

QTEST_GUILESS_MAIN(TestComponentSummary)
#include "test_component_summary.moc"
