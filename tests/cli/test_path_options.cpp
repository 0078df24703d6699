// An empty string given to an option that names a file or folder is a usage error naming the
// option, for every command: "" names no file, and taking it for one made a run store nothing
// (SQLite's temporary database) or write nothing while reporting success. So is a negative number
// given to an option that counts something: read as an unsigned number it would become the
// largest one, a silent wrong value.
#include <QTest>
#include <filesystem>
#include <initializer_list>
#include <string>

#include "test_support.h"
#include "user_files_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using namespace userfiles;

class TestPathOptions : public CorpusFixture {
    Q_OBJECT

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const Result p = command({"run", "corpus.jsonl", "-p", "c.ndw", "-q"});
        QVERIFY2(p.code == 0, qPrintable(p.err));
    }

    void anEmptyPathIsAUsageError_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("option");
        const auto row = [](const char* name, std::initializer_list<const char*> args,
                            const char* option) {
            QStringList list;
            for (const char* a : args)
                list << QString::fromUtf8(a);
            QTest::newRow(name) << list << QString::fromUtf8(option);
        };
        row("run -p", {"run", "corpus.jsonl", "-p", ""}, "--project");
        row("run --out-jsonl", {"run", "corpus.jsonl", "-p", "x.ndw", "--out-jsonl", ""},
            "--out-jsonl");
        row("run --out-removed", {"run", "corpus.jsonl", "-p", "x.ndw", "--out-removed", ""},
            "--out-removed");
        row("run --out-dir", {"run", "corpus.jsonl", "-p", "x.ndw", "--out-dir", ""}, "--out-dir");
        row("run --summary-json", {"run", "corpus.jsonl", "-p", "x.ndw", "--summary-json", ""},
            "--summary-json");
        row("run --reference", {"run", "corpus.jsonl", "-p", "x.ndw", "--reference", ""},
            "--reference");
        row("run --work-dir", {"run", "corpus.jsonl", "-p", "x.ndw", "--work-dir", ""},
            "--work-dir");
        row("run input", {"run", "", "-p", "x.ndw"}, "inputs");
        row("recluster --out-kept",
            {"recluster", "-p", "c.ndw", "--run", "1", "-t", "0.9", "--out-kept", ""},
            "--out-kept");
        row("export --out-clusters", {"export", "-p", "c.ndw", "--out-clusters", ""},
            "--out-clusters");
        row("export --rejected", {"export", "-p", "c.ndw", "--rejected", ""}, "--rejected");
        row("report --out", {"report", "-p", "c.ndw", "--out", ""}, "--out");
        row("report --clusters-csv",
            {"report", "-p", "c.ndw", "--out", "r.html", "--clusters-csv", ""}, "--clusters-csv");
        row("gen --out", {"gen", "--out", "", "--truth", "t.json"}, "--out");
        row("gen --truth", {"gen", "--out", "g.jsonl", "--truth", ""}, "--truth");
        row("truth --out", {"truth", "corpus.jsonl", "--out", ""}, "--out");
        row("eval --json",
            {"eval", "--truth", "truth.json", "--clusters", "corpus.jsonl", "--json", ""},
            "--json");
        row("relocate --from", {"relocate", "-p", "c.ndw", "--from", "", "--to", "."}, "--from");
        row("bench --json", {"bench", "--json", ""}, "--json");
    }

    void anEmptyPathIsAUsageError() {
        QFETCH(QStringList, args);
        QFETCH(QString, option);
        const Result r = runCli(args, dir_);
        QVERIFY2(r.code == 2, qPrintable(QString::number(r.code) + QStringLiteral(": ") + r.err));
        QVERIFY2(r.err.contains(option + QStringLiteral(": ")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("empty")), qPrintable(r.err));
        // Nothing was created: no project, no output beside the corpus.
        QVERIFY(!fs::exists(path("x.ndw")));
        QVERIFY(!fs::exists(path("g.jsonl")));
        QVERIFY(!fs::exists(path("r.html")));
    }

    void aNegativeCountIsAUsageError_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("option");
        QTest::newRow("run --seed")
            << QStringList{QStringLiteral("run"),    QStringLiteral("corpus.jsonl"),
                           QStringLiteral("-p"),     QStringLiteral("x.ndw"),
                           QStringLiteral("--seed"), QStringLiteral("-1")}
            << QStringLiteral("--seed");
        QTest::newRow("gen --docs")
            << QStringList{QStringLiteral("gen"),     QStringLiteral("--docs"),
                           QStringLiteral("-5"),      QStringLiteral("--out"),
                           QStringLiteral("g.jsonl"), QStringLiteral("--truth"),
                           QStringLiteral("t.json")}
            << QStringLiteral("--docs");
        QTest::newRow("selftest --seed")
            << QStringList{QStringLiteral("selftest"), QStringLiteral("--seed"),
                           QStringLiteral("-2")}
            << QStringLiteral("--seed");
    }

    void aNegativeCountIsAUsageError() {
        QFETCH(QStringList, args);
        QFETCH(QString, option);
        const Result r = runCli(args, dir_);
        QVERIFY2(r.code == 2, qPrintable(QString::number(r.code) + QStringLiteral(": ") + r.err));
        QVERIFY2(r.err.contains(option + QStringLiteral(": must be zero or more")),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(path("x.ndw")));
        QVERIFY(!fs::exists(path("g.jsonl")));
    }
};

QTEST_GUILESS_MAIN(TestPathOptions)
#include "test_path_options.moc"
