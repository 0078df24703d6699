// Compressed outputs (issue 14): every --out-* file, --summary-json and export's --rejected are
// written as gzip when the name ends in .gz and as zstd when it ends in .zst, by `run` and by
// `export`; each decompresses to exactly the plain output's bytes, the same for 1 and 2 threads,
// and is still written atomically (no temporary is left beside it).
#include <QTest>
#include <string>

#include "output_formats_fixture.h"

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
};

QTEST_GUILESS_MAIN(TestOutputFormats)
#include "test_output_formats.moc"
