// Parquet input end to end: real Parquet files, written at test time by Arrow's own
// writer (pyarrow, tests/support/write_parquet.py, from the environment scripts/install-deps.sh
// makes), read by `neardup run` as a user would: the same documents as JSONL give the same
// clusters; struct fields, dictionary columns, nulls and integer ids; a folder mixing formats;
// verification, export and the pin check; the same bytes for 1 and 2 threads. A build without
// Parquet support refuses a .parquet input by name.
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <filesystem>
#include <string>

#include "document_fetcher.h"
#include "output_formats_fixture.h"
#include "parquet_file.h"
#include "project_store.h"
#include "test_support.h"
#include "user_files_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;
using namespace userfiles;

class TestParquetInput : public outputformats::ColumnarInputFixture {
    Q_OBJECT

    // The (id, text) of each line of a JSON Lines file.
    static QList<QPair<QString, QString>> idsAndTexts(const std::string& file) {
        QList<QPair<QString, QString>> out;
        for (const QByteArray& line : QByteArray::fromStdString(readFile(file)).split('\n')) {
            if (line.isEmpty()) continue;
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            out.append({o.value(QStringLiteral("id")).toVariant().toString(),
                        o.value(QStringLiteral("text")).toString()});
        }
        return out;
    }

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        if (!neardup::columnar::parquetCompiledIn()) return;
        // The corpus as Parquet: six row groups of 100 rows, zstd pages; and the two halves of
        // it in a folder, JSONL then snappy Parquet.
        QString e = outputformats::writeParquet({QStringLiteral("convert"), q(path("corpus.jsonl")),
                                                 q(path("corpus.parquet")), QStringLiteral("100"),
                                                 QStringLiteral("zstd")});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        fs::create_directories(path("mixed/sub"));
        writeCorpusHead("mixed/a.jsonl", 300);
        e = outputformats::writeParquet({QStringLiteral("convert"), q(path("corpus.jsonl")),
                                         q(path("mixed/sub/b.parquet")), QStringLiteral("64"),
                                         QStringLiteral("snappy"), QStringLiteral("300")});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        e = outputformats::writeParquet({QStringLiteral("features"), q(path("features.parquet"))});
        QVERIFY2(e.isEmpty(), qPrintable(e));
    }

    // A .parquet input is never read as text: without Arrow it is refused by name, whatever
    // --on-error says; with it, one that is not valid Parquet is an error naming it.
    void neverReadAsText() {
        writeFile(path("fake.parquet"), std::string("PAR1\x15\x04\x15\x80\n", 9) + "PAR1");
        const bool compiledIn = neardup::columnar::parquetCompiledIn();
        for (const char* onError : {"skip", "fail"}) {
            if (compiledIn && std::string(onError) == "skip") continue;  // a rejection then
            const Result r =
                runCli({QStringLiteral("run"), q(path("fake.parquet")), QStringLiteral("-p"),
                        q(path("fake.ndw")), QStringLiteral("--on-error"), QLatin1String(onError)},
                       dir_);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(compiledIn ? QStringLiteral("cannot read Parquet file")
                                               : QStringLiteral("not compiled in")) &&
                         r.err.contains(q(path("fake.parquet"))),
                     qPrintable(r.err));
        }
    }

    // The same documents as JSONL and as Parquet: the same removed ids and clusters, and the
    // deduplicated output holds the same documents; a folder mixing the two formats too.
    void sameClustersAsJsonl() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        Result r = runOn({q(path("corpus.jsonl"))}, "j", 2);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runOn({q(path("corpus.parquet"))}, "p", 2);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string removed = readFile(path("j.removed"));
        QVERIFY(!removed.empty());
        QCOMPARE(readFile(path("p.removed")), removed);
        QCOMPARE(readFile(path("p.clusters")), readFile(path("j.clusters")));
        QCOMPARE(readFile(path("p.kept")), readFile(path("j.kept")));
        // Kept rows are written as JSON lines of their id and text.
        const auto kept = idsAndTexts(path("j.dedup.jsonl"));
        QVERIFY(!kept.isEmpty());
        QCOMPARE(idsAndTexts(path("p.dedup.jsonl")), kept);
        // A folder: mixed/a.jsonl, then mixed/sub/b.parquet (sorted paths, recursive).
        r = runOn({q(path("mixed"))}, "m", 2);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("m.removed")), removed);
        QCOMPARE(readFile(path("m.clusters")), readFile(path("j.clusters")));
        QCOMPARE(idsAndTexts(path("m.dedup.jsonl")), kept);
    }

    // The workbench's side-by-side view and searches re-read documents by location.
    void documentsAreReadBackByLocation() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        for (const char* prefix : {"j", "p"})
            if (!fs::exists(path(std::string(prefix) + ".ndw"))) {
                const Result r =
                    runOn({q(path(*prefix == 'j' ? "corpus.jsonl" : "corpus.parquet"))}, prefix, 2);
                QVERIFY2(r.code == 0, qPrintable(r.err));
            }
        neardup::ProjectStore jsonl(path("j.ndw")), parquet(path("p.ndw"));
        neardup::DocumentTable jdocs, pdocs;
        const neardup::DatasetRecord jset = jsonl.loadDataset(1, &jdocs);
        const neardup::DatasetRecord pset = parquet.loadDataset(1, &pdocs);
        QCOMPARE(pdocs.size(), jdocs.size());
        QCOMPARE(pdocs.line, jdocs.line);  // rows are numbered like lines
        neardup::DocumentFetcher jf(jset.files, jset.reader), pf(pset.files, pset.reader);
        // Backwards and across row groups: every row group is decoded again when needed.
        for (std::size_t i : {std::size_t{599}, std::size_t{0}, std::size_t{250}, std::size_t{99},
                              std::size_t{100}, std::size_t{101}}) {
            const neardup::FetchedDocument a = jf.fetch(jdocs, i), b = pf.fetch(pdocs, i);
            QVERIFY2(a.ok && b.ok, b.error.c_str());
            QCOMPARE(b.id, a.id);
            QCOMPARE(b.text, a.text);
            QCOMPARE(pdocs.offset[i], uint64_t{i / 100});  // the row group
            QCOMPARE(pdocs.length[i], uint32_t(i % 100));  // the row in it
        }
    }

    // Struct fields by dotted path, dictionary-encoded and large strings, nulls rejected with
    // their reason, integer ids and the default id of a row without one.
    void columnsOfEveryKind() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        const QString file = q(path("features.parquet"));
        Result r = runOn({file}, "f", 2,
                         {QStringLiteral("--text-field"), QStringLiteral("meta.content"),
                          QStringLiteral("--id-field"), QStringLiteral("num")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(QString::fromStdString(readFile(path("f.kept"))),
                 QStringLiteral("10\n11\n") + file + QStringLiteral(":5\n15\n"));
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("f.ndw")),
                    QStringLiteral("--rejected"), q(path("f.rejected"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QList<QByteArray> rejected =
            QByteArray::fromStdString(readFile(path("f.rejected"))).trimmed().split('\n');
        QCOMPARE(rejected.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const QJsonObject o = QJsonDocument::fromJson(rejected[i]).object();
            QCOMPARE(o.value(QStringLiteral("file")).toString(), file);
            QCOMPARE(o.value(QStringLiteral("line")).toInt(), 3 + i);
            QCOMPARE(o.value(QStringLiteral("reason")).toString(), QStringLiteral("missing_text"));
            QCOMPARE(o.value(QStringLiteral("detail")).toString(),
                     QStringLiteral("'meta.content' is null"));
            QVERIFY(!o.contains(QStringLiteral("raw")));
        }
        // The deduplicated output keeps the integer ids as numbers and the nesting of the path.
        const QByteArray first =
            QByteArray::fromStdString(readFile(path("f.dedup.jsonl"))).split('\n').front();
        QCOMPARE(first, QByteArray("{\"num\":10,\"meta\":{\"content\":\"the quick brown fox jumps "
                                   "over the lazy dog near the river bank today\"}}"));
        // A dictionary-encoded column and a large_string one: every row is a document.
        for (const char* field : {"dict", "label"}) {
            r = runOn({file}, std::string("d") + field, 1,
                      {QStringLiteral("--text-field"), QLatin1String(field)});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QCOMPARE(QByteArray::fromStdString(readFile(path(std::string("d") + field + ".kept")))
                         .count('\n'),
                     6);
        }
        // A text column that is not a string, and one that does not exist: every row rejected,
        // saying why.
        r = runOn({file}, "n", 1, {QStringLiteral("--text-field"), QStringLiteral("count")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("text_not_string 6")), qPrintable(r.err));
        r = runOn({file}, "n2", 1, {QStringLiteral("--text-field"), QStringLiteral("body")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("missing_text 6")), qPrintable(r.err));
    }

    // --verify exact re-reads the pairs' texts from the row groups: the same exact Jaccards as
    // from JSONL; and the outputs are the same bytes for 1 and 2 threads.
    void verifyExactAndThreads() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        const QStringList exact{QStringLiteral("--verify"), QStringLiteral("exact")};
        Result r = runOn({q(path("corpus.jsonl"))}, "vj", 2, exact);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runOn({q(path("corpus.parquet"))}, "v1", 1, exact);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runOn({q(path("corpus.parquet"))}, "v2", 2, exact);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string clusters = readFile(path("vj.clusters"));
        QVERIFY(clusters.find("\"exact\"") != std::string::npos);
        QCOMPARE(readFile(path("v1.clusters")), clusters);
        for (const char* output : {".clusters", ".removed", ".kept", ".dedup.jsonl"})
            QCOMPARE(readFile(path(std::string("v2") + output)),
                     readFile(path(std::string("v1") + output)));
    }

    // `neardup export` writes the outputs again from the project and the Parquet input; a
    // changed input is refused by the pin check, naming it.
    void exportAndThePinCheck() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        fs::create_directories(path("pin"));
        fs::copy_file(path("corpus.parquet"), path("pin/c.parquet"));
        Result r = runOn({q(path("pin/c.parquet"))}, "pin/run", 2);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        auto exportJsonl = [&](const char* name) {
            return runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("pin/run.ndw")),
                           QStringLiteral("--out-jsonl"), q(path(std::string("pin/") + name))},
                          dir_);
        };
        r = exportJsonl("a.jsonl");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("pin/a.jsonl")), readFile(path("pin/run.dedup.jsonl")));
        // The same rows written again in other row groups: another file, refused.
        const QString e = outputformats::writeParquet(
            {QStringLiteral("convert"), q(path("corpus.jsonl")), q(path("pin/c.parquet")),
             QStringLiteral("50"), QStringLiteral("zstd")});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        r = exportJsonl("b.jsonl");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(path("pin/c.parquet"))) &&
                     r.err.contains(QStringLiteral("changed since it was read")),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(path("pin/b.jsonl")));
        // The original bytes back under a new inode and times: accepted by their fingerprint.
        fs::copy_file(path("corpus.parquet"), path("pin/c.parquet"),
                      fs::copy_options::overwrite_existing);
        r = exportJsonl("c.jsonl");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("pin/c.jsonl")), readFile(path("pin/a.jsonl")));
    }
};

QTEST_GUILESS_MAIN(TestParquetInput)
#include "test_parquet_input.moc"
