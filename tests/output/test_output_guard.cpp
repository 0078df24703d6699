// One output guard for every writer: no command writes onto a file that any dataset of the
// project reads (not only the run being written), nor into a Hugging Face dataset folder that
// one of them belongs to. Every case runs `neardup` as a process, as a user would, and checks
// that the file that would have been replaced is byte for byte what it was.
#include <QProcess>
#include <QTest>
#include <filesystem>
#include <string>

#include "parquet_file.h"
#include "test_support.h"
#include "user_files_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;
using namespace userfiles;

class TestOutputGuard : public CorpusFixture {
    Q_OBJECT

    Result cli(const QStringList& args) { return runCli(args, dir_); }

    static QString runCount(const std::string& project) {
        return testsupport::sqlRows(project, "SELECT count(*) FROM runs").join(QLatin1Char(','));
    }

    // `neardup gen` of a small corpus at `name`.
    Result gen(const std::string& name, int seed) {
        return cli({QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("200"),
                    QStringLiteral("--seed"), QString::number(seed), QStringLiteral("--out"),
                    q(path(name)), QStringLiteral("--truth"), q(path(name + ".truth.json"))});
    }

    // Asserts that `r` was refused with a message containing `says`, and that `victim` holds
    // `before`.
    static void expectRefused(const Result& r, const char* says, const std::string& victim,
                              const std::string& before, const char* what) {
        const QByteArray context = QByteArray(what) + ": " + r.err.toUtf8();
        QVERIFY2(r.code == 1, context.constData());
        QVERIFY2(r.err.contains(QLatin1String(says)), context.constData());
        QVERIFY2(readFile(victim) == before, context.constData());
    }

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        for (const auto& [name, seed] : {std::pair{"a.jsonl", 1}, {"b.jsonl", 2}, {"c.jsonl", 3}}) {
            const Result g = gen(name, seed);
            QVERIFY2(g.code == 0, qPrintable(g.err));
        }
        fs::create_directories(path("x"));
        fs::create_directories(path("y"));
        fs::copy_file(path("c.jsonl"), path("x/part.jsonl"));
        fs::copy_file(path("a.jsonl"), path("y/part.jsonl"));
    }

    // Every writer refuses a path that an earlier run of the same project read.
    void anotherRunsInputIsNeverOverwritten() {
        const std::string project = path("q.ndw");
        for (const char* input : {"a.jsonl", "b.jsonl", "x"}) {
            const Result r = cli({QStringLiteral("run"), q(path(input)), QStringLiteral("-p"),
                                  q(project), QStringLiteral("-q")});
            QVERIFY2(r.code == 0, qPrintable(r.err));
        }
        const std::string a = readFile(path("a.jsonl")), b = readFile(path("b.jsonl"));
        const std::string part = readFile(path("x/part.jsonl"));
        const QString p = q(project);

        expectRefused(
            cli({QStringLiteral("export"), QStringLiteral("-p"), p, QStringLiteral("--run"),
                 QStringLiteral("1"), QStringLiteral("--out-jsonl"), q(path("b.jsonl"))}),
            "an input of dataset 2", path("b.jsonl"), b, "export onto run 2's input");
        expectRefused(
            cli({QStringLiteral("run"), q(path("c.jsonl")), QStringLiteral("-p"), p,
                 QStringLiteral("-q"), QStringLiteral("--out-jsonl"), q(path("a.jsonl"))}),
            "an input of dataset 1", path("a.jsonl"), a, "run onto run 1's input");
        expectRefused(
            cli({QStringLiteral("report"), QStringLiteral("-p"), p, QStringLiteral("--run"),
                 QStringLiteral("1"), QStringLiteral("--out"), q(path("b.jsonl"))}),
            "an input of dataset 2", path("b.jsonl"), b, "report onto run 2's input");
        expectRefused(
            cli({QStringLiteral("recluster"), QStringLiteral("-p"), p, QStringLiteral("--run"),
                 QStringLiteral("1"), QStringLiteral("--threshold"), QStringLiteral("0.9"),
                 QStringLiteral("--out-removed"), q(path("b.jsonl"))}),
            "an input of dataset 2", path("b.jsonl"), b, "recluster onto run 2's input");
        // Run 2 read b.jsonl, whose shard under --out-dir x would be x/b.jsonl: not an input.
        // Run 1's shard in folder x is a.jsonl; the folder run 3 read holds part.jsonl, which an
        // export of run 3 into its own folder would replace.
        expectRefused(
            cli({QStringLiteral("export"), QStringLiteral("-p"), p, QStringLiteral("--run"),
                 QStringLiteral("3"), QStringLiteral("--out-dir"), q(path("x"))}),
            "refusing to overwrite input file", path("x/part.jsonl"), part,
            "export --out-dir onto the folder the run read");
        // Run 3's shard under --out-dir y is y/part.jsonl: the input of run 4, which read y.
        Result r = cli(
            {QStringLiteral("run"), q(path("y")), QStringLiteral("-p"), p, QStringLiteral("-q")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string ypart = readFile(path("y/part.jsonl"));
        expectRefused(
            cli({QStringLiteral("export"), QStringLiteral("-p"), p, QStringLiteral("--run"),
                 QStringLiteral("3"), QStringLiteral("--out-dir"), q(path("y"))}),
            "an input of dataset 4", path("y/part.jsonl"), ypart,
            "export --out-dir onto another run's folder");
        // Nothing was recorded by the refused commands, and an export elsewhere works.
        QCOMPARE(runCount(project), QStringLiteral("4"));
        fs::create_directories(path("z"));
        r = cli({QStringLiteral("export"), QStringLiteral("-p"), p, QStringLiteral("--run"),
                 QStringLiteral("3"), QStringLiteral("--out-dir"), q(path("z"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(fs::exists(path("z/part.jsonl")));
    }

    // A dataset folder's metadata and shards are part of the dataset: nothing is written there.
    void nothingIsWrittenIntoADatasetFolder() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        QProcess p;
        p.start(QStringLiteral(NEARDUP_ARROW_PYTHON),
                {QStringLiteral(NEARDUP_SOURCE_DIR "/tests/support/write_arrow.py"),
                 QStringLiteral("save_to_disk"), q(path("corpus.jsonl")), q(path("dsx")),
                 QStringLiteral("2")});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const std::string project = path("dsx.ndw");
        Result r = cli({QStringLiteral("run"), q(path("dsx")), QStringLiteral("-p"), q(project),
                        QStringLiteral("-q")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string state = readFile(path("dsx/state.json"));
        const std::string info = readFile(path("dsx/dataset_info.json"));
        expectRefused(
            cli({QStringLiteral("run"), q(path("dsx")), QStringLiteral("-p"), q(project),
                 QStringLiteral("-q"), QStringLiteral("--out-kept"), q(path("dsx/state.json"))}),
            "into the dataset folder", path("dsx/state.json"), state,
            "run --out-kept onto state.json");
        expectRefused(cli({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                           QStringLiteral("--out-removed"), q(path("dsx/dataset_info.json"))}),
                      "into the dataset folder", path("dsx/dataset_info.json"), info,
                      "export onto dataset_info.json");
        // A new file in the folder would be refused by the next run as an unlisted shard.
        expectRefused(cli({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                           QStringLiteral("--out-clusters"), q(path("dsx/clusters.jsonl"))}),
                      "into the dataset folder", path("dsx/state.json"), state,
                      "export of a new file into the folder");
        QVERIFY(!fs::exists(path("dsx/clusters.jsonl")));
        // Another project's run of an unrelated corpus may not write there either, once it
        // holds the folder's dataset.
        r = cli({QStringLiteral("run"), q(path("a.jsonl")), QStringLiteral("-p"), q(project),
                 QStringLiteral("-q"), QStringLiteral("--out-dir"), q(path("dsx"))});
        QVERIFY2(r.code == 1 && r.err.contains(QLatin1String("into the dataset folder")),
                 qPrintable(r.err));
        r = cli({QStringLiteral("run"), q(path("dsx")), QStringLiteral("-p"), q(project),
                 QStringLiteral("-q")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestOutputGuard)
#include "test_output_guard.moc"
