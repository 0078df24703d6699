// Mistakes that would otherwise pass in silence are said: a --keep max:FIELD or --id-field that
// no document has, a bands x rows choice that misses most pairs at the threshold, ids given to
// several documents, and an empty id (which would be a blank line in the id lists). Each is a
// warning on stderr (even with -q) and in --summary-json's "warnings"; a field absent from every
// document is refused under --on-error fail. Every case runs `neardup` as a process.
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <string>

#include "test_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;

namespace {

// Two near-duplicates (a, b), an unrelated document that reuses the id "a", one with an empty id
// and one without an id; a numeric "score" on the first two only.
const char* const kCorpus =
    R"({"id":"a","text":"the quick brown fox jumps over the lazy dog near the river bank today","score":3}
{"id":"b","text":"the quick brown fox jumps over the lazy dog near the river bank today!","score":5}
{"id":"c","text":"completely different words about databases and indexes and their joins"}
{"id":"a","text":"another text entirely about gardening in the spring and summer months"}
{"id":"","text":"a fourth unrelated text about sailing boats across the open wide ocean"}
{"text":"a fifth text without any id, about mountains, snow and long winter walks"}
)";

}  // namespace

class TestInputWarnings : public QObject {
    Q_OBJECT

  private:
    QTemporaryDir dir_;
    std::string corpus_;  // canonical: the default ids name it so
    int runs_ = 0;

    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

    // `neardup run` on the corpus into a project of its own, with a summary; extra arguments.
    testsupport::CliResult run(const QStringList& extra, std::string& summary) {
        const std::string project = path("p" + std::to_string(++runs_) + ".ndw");
        const std::string summaryPath = project + ".summary.json";
        QStringList args{QStringLiteral("run"),
                         q(corpus_),
                         QStringLiteral("-p"),
                         q(project),
                         QStringLiteral("--summary-json"),
                         q(summaryPath)};
        args += extra;
        testsupport::CliResult r = testsupport::neardup(args);
        summary = readFile(summaryPath);
        return r;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        testsupport::writeFile(path("in.jsonl"), kCorpus);
        corpus_ = fs::canonical(path("in.jsonl")).string();
    }

    // A plain run of documents with ids says nothing of fields or bands (the ids are checked
    // below).
    void aPlainRunHasNoFieldWarning() {
        std::string summary;
        const auto r = run({QStringLiteral("--keep"), QStringLiteral("max:score")}, summary);
        QCOMPARE(r.code, 0);
        QVERIFY2(!r.err.contains(QStringLiteral("--keep")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("--id-field")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("--bands")), qPrintable(r.err));
    }

    void aKeepFieldNoDocumentHasIsAWarning() {
        for (const char* field : {"nosuchfield", "text"}) {
            std::string summary;
            const auto r = run(
                {QStringLiteral("--keep"), QStringLiteral("max:") + q(field), QStringLiteral("-q")},
                summary);
            QCOMPARE(r.code, 0);
            const QString named = QStringLiteral("--keep max:") + q(field);
            QVERIFY2(r.err.contains(QStringLiteral("warning: ")) && r.err.contains(named) &&
                         r.err.contains(QStringLiteral("input order")),
                     qPrintable(r.err));
            QVERIFY2(summary.find("\"warnings\": [") != std::string::npos &&
                         summary.find(named.toStdString()) != std::string::npos,
                     summary.c_str());
        }
    }

    void anIdFieldNoDocumentHasIsAWarning() {
        std::string summary;
        const auto r = run({QStringLiteral("--id-field"), QStringLiteral("doc_id")}, summary);
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("warning: ")) &&
                     r.err.contains(QStringLiteral("--id-field doc_id")) &&
                     r.err.contains(QStringLiteral("file:line")),
                 qPrintable(r.err));
        QVERIFY2(summary.find("--id-field doc_id") != std::string::npos, summary.c_str());
    }

    // Under --on-error fail a field that no document has is refused: almost surely a typo.
    void aFieldAbsentEverywhereIsRefusedUnderOnErrorFail() {
        const QStringList cases[] = {{QStringLiteral("--keep"), QStringLiteral("max:nosuchfield")},
                                     {QStringLiteral("--id-field"), QStringLiteral("doc_id")}};
        for (const QStringList& given : cases) {
            std::string summary;
            const std::string kept = path("refused" + std::to_string(runs_) + ".kept");
            const auto r =
                run(given + QStringList{QStringLiteral("--on-error"), QStringLiteral("fail"),
                                        QStringLiteral("--out-kept"), q(kept)},
                    summary);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(given.join(QLatin1Char(' '))), qPrintable(r.err));
            QVERIFY(!fs::exists(kept));
            QVERIFY(summary.empty());
        }
    }

    void bandsThatMissMostPairsAreAWarning() {
        std::string summary;
        const auto r = run({QStringLiteral("-b"), QStringLiteral("1"), QStringLiteral("-r"),
                            QStringLiteral("20"), QStringLiteral("-q")},
                           summary);
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("warning: ")) &&
                     r.err.contains(QStringLiteral("--bands 1 --rows 20")) &&
                     r.err.contains(QStringLiteral("miss ")),
                 qPrintable(r.err));
        QVERIFY2(summary.find("--bands 1 --rows 20") != std::string::npos, summary.c_str());
    }

    // Ids are labels, not keys, but a reused one is counted and the first one named with both
    // places: filtering by id would drop the kept copy as well.
    void duplicateIdsAreCountedAndTheFirstNamed() {
        std::string summary;
        const auto r = run({}, summary);
        QCOMPARE(r.code, 0);
        QVERIFY2(summary.find("\"duplicate_ids\": 1,") != std::string::npos, summary.c_str());
        QVERIFY2(r.err.contains(QStringLiteral("duplicate ids: 1")), qPrintable(r.err));
        const QString first = q(corpus_ + ":1"), again = q(corpus_ + ":4");
        QVERIFY2(r.err.contains(QStringLiteral("warning: ")) &&
                     r.err.contains(QStringLiteral("'a'")) && r.err.contains(first) &&
                     r.err.contains(again),
                 qPrintable(r.err));
        QVERIFY2(summary.find("'a'") != std::string::npos, summary.c_str());
        // An export of the stored run says the same: the counts follow from its documents.
        const std::string exported = path("exported.summary.json");
        const auto e = testsupport::neardup({QStringLiteral("export"), QStringLiteral("-p"),
                                             q(path("p" + std::to_string(runs_) + ".ndw")),
                                             QStringLiteral("--summary-json"), q(exported)});
        QCOMPARE(e.code, 0);
        const std::string fromExport = readFile(exported);
        for (const char* field : {"\"duplicate_ids\"", "\"file_line_ids\"", "\"warnings\""}) {
            const auto line = [&](const std::string& json) {
                const std::size_t at = json.find(field);
                return at == std::string::npos ? std::string()
                                               : json.substr(at, json.find('\n', at) - at);
            };
            QVERIFY2(!line(summary).empty() && line(summary) == line(fromExport),
                     fromExport.c_str());
        }
    }

    // An empty id would be a blank line in the id lists, which many readers skip: it is given
    // the document's <file>:<line>, as a missing id is, and counted.
    void anEmptyIdGetsItsFileAndLine() {
        std::string summary;
        const std::string kept = path("empty.kept"), removed = path("empty.removed");
        const auto r = run(
            {QStringLiteral("--out-kept"), q(kept), QStringLiteral("--out-removed"), q(removed)},
            summary);
        QCOMPARE(r.code, 0);
        const std::string lists = readFile(kept) + readFile(removed);
        QVERIFY2(lists.find("\n\n") == std::string::npos && !lists.starts_with("\n"),
                 lists.c_str());
        QVERIFY2(lists.find(corpus_ + ":5\n") != std::string::npos, lists.c_str());
        QVERIFY2(summary.find("\"file_line_ids\": 2,") != std::string::npos, summary.c_str());
        QVERIFY2(r.err.contains(QStringLiteral("2 of the 6 documents")) &&
                     r.err.contains(QStringLiteral("empty")),
                 qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestInputWarnings)
#include "test_input_warnings.moc"
