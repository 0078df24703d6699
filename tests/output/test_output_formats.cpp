// Compressed outputs: every --out-* file, --summary-json and export's --rejected are
// written as gzip when the name ends in .gz and as zstd when it ends in .zst, by `run` and by
// `export`; each decompresses to exactly the plain output's bytes, the same for 1 and 2 threads,
// and is still written atomically (no temporary is left beside it). The lists are written as
// Parquet when their name ends in .parquet: the same records in typed columns.
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>
#include <string>

#include "output_formats_fixture.h"
#include "parquet_file.h"

using testsupport::q;
using testsupport::readFile;
using namespace userfiles;
using namespace outputformats;

class TestOutputFormats : public CorpusFixture {
    Q_OBJECT

    // `neardup run INPUT -p PREFIX.ndw -q -j THREADS` writing every list to PREFIX.<name><ext>.
    Result runWithOutputs(const std::string& input, const std::string& prefix, int threads,
                          const std::string& ext) {
        QStringList args{QStringLiteral("run"),    q(path(input)),       QStringLiteral("-p"),
                         q(path(prefix + ".ndw")), QStringLiteral("-q"), QStringLiteral("-j"),
                         QString::number(threads)};
        for (const char* name : {"jsonl", "kept", "removed", "clusters"})
            args << QStringLiteral("--out-") + QLatin1String(name)
                 << q(path(prefix + "." + name + ext));
        return runCli(args, dir_);
    }

    // The decompressed bytes of `file`, by its extension; fails the test when it is not valid.
    static std::string decoded(const std::string& file, bool& ok) {
        const std::string bytes = readFile(file);
        if (file.ends_with(".gz")) return gunzip(bytes, ok);
        if (file.ends_with(".zst")) return unzstd(bytes, ok);
        ok = true;
        return bytes;
    }

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // The corpus with two lines that are not documents, for the --rejected list.
        writeFile(path("withbad.jsonl"),
                  readFile(path("corpus.jsonl")) + "not json\n{\"id\":\"x\",\"text\":7}\n");
    }

    // Each list decompresses to the plain list, byte for byte, for 1 and 2 threads; the
    // compressed files start with their format's magic and are themselves the same bytes for
    // any thread count (no time stamp, one stream).
    void compressedListsDecompressToPlain() {
        Result r = runWithOutputs("corpus.jsonl", "plain", 1, "");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(!readFile(path("plain.removed")).empty());
        for (const char* ext : {".gz", ".zst"}) {
            for (int threads : {1, 2}) {
                const std::string prefix = std::string("c") + ext + std::to_string(threads);
                r = runWithOutputs("corpus.jsonl", prefix, threads, ext);
                QVERIFY2(r.code == 0, qPrintable(r.err));
                for (const char* name : {"jsonl", "kept", "removed", "clusters"}) {
                    const std::string file = path(prefix + "." + name + ext);
                    const std::string bytes = readFile(file);
                    QVERIFY2(bytes.size() > 4, file.c_str());
                    if (std::string(ext) == ".gz") {
                        QCOMPARE(bytes.substr(0, 2), std::string("\x1f\x8b"));
                    } else {
                        QCOMPARE(bytes.substr(0, 4), std::string("\x28\xb5\x2f\xfd"));
                    }
                    bool ok = false;
                    const std::string plain = decoded(file, ok);
                    QVERIFY2(ok, file.c_str());
                    QCOMPARE(plain, readFile(path(std::string("plain.") + name)));
                    if (threads == 2)
                        QCOMPARE(bytes, readFile(path(std::string("c") + ext + "1." + name + ext)));
                }
            }
        }
        QVERIFY2(temporaries(dir_).isEmpty(), qPrintable(temporaries(dir_).join(u' ')));
    }

    // `neardup export` compresses by name too, --rejected and --summary-json included.
    void exportCompresses() {
        Result r = runCli({QStringLiteral("run"), q(path("withbad.jsonl")), QStringLiteral("-p"),
                           q(path("bad.ndw")), QStringLiteral("-q"), QStringLiteral("--out-jsonl"),
                           q(path("bad.plain.jsonl"))},
                          dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("bad.ndw")),
                    QStringLiteral("--rejected"), q(path("bad.rejected.jsonl"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string rejected = readFile(path("bad.rejected.jsonl"));
        QVERIFY(rejected.find("malformed_json") != std::string::npos);
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("bad.ndw")),
                    QStringLiteral("--out-jsonl"), q(path("bad.e.jsonl.zst")),
                    QStringLiteral("--rejected"), q(path("bad.rejected.jsonl.gz")),
                    QStringLiteral("--summary-json"), q(path("bad.summary.json.gz"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        bool ok = false;
        QCOMPARE(decoded(path("bad.e.jsonl.zst"), ok), readFile(path("bad.plain.jsonl")));
        QVERIFY(ok);
        QCOMPARE(decoded(path("bad.rejected.jsonl.gz"), ok), rejected);
        QVERIFY(ok);
        QVERIFY(decoded(path("bad.summary.json.gz"), ok).find("\"rejected\": 2") !=
                std::string::npos);
        QVERIFY(ok);
        QVERIFY2(temporaries(dir_).isEmpty(), qPrintable(temporaries(dir_).join(u' ')));
    }

    // --out-kept, --out-removed and --out-clusters named .parquet: one row per id or member,
    // holding what the JSON Lines lists hold (the clusters' "kept" for every member, witness,
    // jaccard and exact null where the JSON line has none).
    void parquetLists() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        if (!fs::exists(path("plain.clusters"))) {
            const Result r = runWithOutputs("corpus.jsonl", "plain", 1, "");
            QVERIFY2(r.code == 0, qPrintable(r.err));
        }
        const Result r = runWithOutputs("corpus.jsonl", "pq", 2, ".parquet");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        auto rows = [](const std::string& file) {
            const Python p = python("read_parquet.py", {QStringLiteral("rows"), q(file)});
            QList<QJsonObject> out;
            for (const QByteArray& line : QByteArray::fromStdString(p.out).split('\n'))
                if (!line.isEmpty()) out << QJsonDocument::fromJson(line).object();
            return out;
        };
        for (const char* name : {"kept", "removed"}) {
            QString ids;
            for (const QJsonObject& o : rows(path(std::string("pq.") + name + ".parquet")))
                ids += o.value(QStringLiteral("id")).toString() + u'\n';
            QVERIFY(!ids.isEmpty());
            QCOMPARE(ids, QString::fromStdString(readFile(path(std::string("plain.") + name))));
        }
        const QList<QJsonObject> members = rows(path("pq.clusters.parquet"));
        const QList<QByteArray> lines =
            QByteArray::fromStdString(readFile(path("plain.clusters"))).trimmed().split('\n');
        QCOMPARE(members.size(), lines.size());
        QSet<QString> removed;
        for (const QString& id :
             QString::fromStdString(readFile(path("plain.removed"))).split(u'\n'))
            removed.insert(id);
        for (int i = 0; i < members.size(); ++i) {
            const QJsonObject json = QJsonDocument::fromJson(lines[i]).object();
            const QJsonObject& row = members[i];
            for (const char* key : {"id", "cluster", "representative", "witness", "jaccard"}) {
                const QString k = QLatin1String(key);
                QCOMPARE(row.value(k).toVariant(), json.contains(k) ? json.value(k).toVariant()
                                                                    : QVariant::fromValue(nullptr));
            }
            const QString id = row.value(QStringLiteral("id")).toString();
            QCOMPARE(row.value(QStringLiteral("kept")).toBool(), !removed.contains(id));
        }
    }
};

QTEST_GUILESS_MAIN(TestOutputFormats)
#include "test_output_formats.moc"
