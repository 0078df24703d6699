// `neardup bench` end to end on a tiny corpus: it runs, prints the table and writes JSON with
// every documented field. No timing assertions: speed is measured by the suite, not tested.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "benchmark.h"
#include "clustering_benchmark.h"
#include "parquet_file.h"
#include "test_support.h"
#include "thread_sampler.h"

using namespace neardup;

class TestBench : public QObject {
    Q_OBJECT
  private slots:
    void byteSizes() {
        QCOMPARE(parseCorpusSize("10M"), std::optional<uint64_t>(uint64_t{10} << 20));
        QCOMPARE(parseCorpusSize("1G"), std::optional<uint64_t>(uint64_t{1} << 30));
        QCOMPARE(parseCorpusSize("512K"), std::optional<uint64_t>(uint64_t{512} << 10));
        QCOMPARE(parseCorpusSize("1234"), std::optional<uint64_t>(1234));
        QVERIFY(!parseCorpusSize(""));
        QVERIFY(!parseCorpusSize("M"));
        QVERIFY(!parseCorpusSize("10X"));
        QVERIFY(!parseCorpusSize("0M"));
        QCOMPARE(QString::fromStdString(formatByteSize(uint64_t{100} << 20)),
                 QStringLiteral("100M"));
        QCOMPARE(QString::fromStdString(formatByteSize(1500)), QStringLiteral("1500B"));
        QVERIFY(benchmarkCorpusKind("web") && benchmarkCorpusKind("long"));
        QVERIFY(!benchmarkCorpusKind("tweets"));
    }

    // The sampler counts the threads that want a core: one busy thread while the others sleep
    // is serial; two busy threads are runnable together whatever the machine's cores.
    void threadSamplerSeesSerialAndParallelWork() {
        using namespace std::chrono_literals;
        auto busyFor = [](std::chrono::milliseconds how) {
            const auto end = std::chrono::steady_clock::now() + how;
            volatile uint64_t x = 0;
            while (std::chrono::steady_clock::now() < end)
                x = x + 1;
        };
        {
            ThreadSampler sampler(1ms);
            std::thread one([&] { busyFor(300ms); });
            one.join();
            const ThreadSamples s = sampler.stop();
            QVERIFY(s.samples > 20);
            QVERIFY2(s.serialShare() > 0.8, qPrintable(QString::number(s.serialShare())));
            QVERIFY(s.projectedSpeedup(16) < 1.5);
        }
        {
            ThreadSampler sampler(1ms);
            std::thread one([&] { busyFor(300ms); });
            std::thread two([&] { busyFor(300ms); });
            one.join();
            two.join();
            const ThreadSamples s = sampler.stop();
            QVERIFY(s.samples > 20);
            QVERIFY2(s.serialShare() < 0.5, qPrintable(QString::number(s.serialShare())));
            QVERIFY(s.projectedSpeedup(16) > 1.8);
        }
        ThreadSamples none;
        QCOMPARE(none.serialShare(), 0.0);
        const ThreadSamples tenth{100, 10, 0};
        QCOMPARE(tenth.projectedSpeedup(16), 1.0 / (0.1 + 0.9 / 16));
    }

    void machineIsDescribed() {
        const BenchmarkMachine m = describeMachine();
        QVERIFY(m.logicalCores >= 1);
        QVERIFY(!m.simd.empty());
        QVERIFY(!m.os.empty());
    }

    void cliWritesTableAndJson() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString json = dir.filePath(QStringLiteral("bench.json"));
        const testsupport::CliResult r =
            testsupport::neardup({QStringLiteral("bench"), QStringLiteral("--sizes"),
                                  QStringLiteral("1M"), QStringLiteral("-j"), QStringLiteral("1,2"),
                                  QStringLiteral("--json"), json, QStringLiteral("--work-dir"),
                                  dir.filePath(QStringLiteral("work")), QStringLiteral("--quiet")},
                                 testsupport::CliOptions().withTimeout(120000));
        const QString out = r.out;
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(out.contains(QStringLiteral("Machine: ")));
        QVERIFY(out.contains(QStringLiteral("| web | ")));
        // The cases' table has a column per phase timed, the store too, and every row fills it.
        const QStringList lines = out.split(QLatin1Char('\n'));
        const auto header = std::find_if(lines.begin(), lines.end(), [](const QString& l) {
            return l.startsWith(QStringLiteral("| corpus |"));
        });
        QVERIFY(header != lines.end());
        const QStringList columns = header->split(QStringLiteral(" | "));
        const auto storeColumn = columns.indexOf(QStringLiteral("store s"));
        QVERIFY2(storeColumn > columns.indexOf(QStringLiteral("export s")), qPrintable(*header));
        int rows = 0;
        for (const QString& l : lines) {
            if (!l.startsWith(QStringLiteral("| web | "))) continue;
            const QStringList cells = l.split(QStringLiteral(" | "));
            QCOMPARE(cells.size(), columns.size());
            bool number = false;
            QVERIFY(cells[storeColumn].toDouble(&number) >= 0 && number);
            ++rows;
        }
        QCOMPARE(rows, 2);

        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
        for (const char* key :
             {"neardup_version", "started_at", "machine", "parameters", "kernels", "cases"})
            QVERIFY2(root.contains(QLatin1String(key)), key);
        const QJsonObject machine = root[QStringLiteral("machine")].toObject();
        for (const char* key : {"cpu", "logical_cores", "memory_bytes", "simd", "os", "compiler"})
            QVERIFY2(machine.contains(QLatin1String(key)), key);
        QCOMPARE(root[QStringLiteral("parameters")].toObject()[QStringLiteral("hashes")].toInt(),
                 128);

        const QJsonArray kernels = root[QStringLiteral("kernels")].toArray();
        QVERIFY(kernels.size() >= 3);  // normalize, classic signatures, oph at least
        bool sawOph = false;
        for (const auto& k : kernels) {
            const QJsonObject o = k.toObject();
            QVERIFY(o[QStringLiteral("mb_per_s")].toDouble() > 0);
            QCOMPARE(o[QStringLiteral("threads")].toInt(), 1);
            sawOph =
                sawOph || o[QStringLiteral("name")].toString() == QStringLiteral("signatures-oph");
        }
        QVERIFY(sawOph);
        // Each phase's kernel beside its limit (docs/performance.md, "One core").
        QStringList kernelNames;
        for (const auto& k : kernels)
            kernelNames << k.toObject()[QStringLiteral("name")].toString();
        for (const char* name :
             {"read-parse", "limit-simdjson-parse", "limit-memcpy", "verify-shingle-sets"})
            QVERIFY2(kernelNames.contains(QLatin1String(name)), name);
        QCOMPARE(root[QStringLiteral("parameters")].toObject()[QStringLiteral("sketch")].toString(),
                 QStringLiteral("oph"));

        const QJsonArray cases = root[QStringLiteral("cases")].toArray();
        QCOMPARE(cases.size(), 2);  // one corpus, two thread counts
        int expectedThreads = 1;
        for (const auto& value : cases) {
            const QJsonObject c = value.toObject();
            for (const char* key :
                 {"corpus", "bytes", "documents", "threads", "wall_seconds", "end_to_end_mb_per_s",
                  "docs_per_s", "candidate_pairs", "comparisons_per_s", "peak_rss_bytes", "phases"})
                QVERIFY2(c.contains(QLatin1String(key)), key);
            QCOMPARE(c[QStringLiteral("corpus")].toString(), QStringLiteral("web"));
            QCOMPARE(c[QStringLiteral("threads")].toInt(), expectedThreads++);
            QVERIFY(c[QStringLiteral("bytes")].toDouble() > 0.5e6 &&
                    c[QStringLiteral("bytes")].toDouble() < 2e6);
            QVERIFY(c[QStringLiteral("documents")].toDouble() > 100);
            QVERIFY(c[QStringLiteral("peak_rss_bytes")].toDouble() > 1e6);
            // The run's threads were sampled: a share in [0, 1] and its projection.
            QVERIFY(c[QStringLiteral("thread_samples")].toDouble() > 0);
            const double serial = c[QStringLiteral("serial_share")].toDouble(-1);
            QVERIFY2(serial >= 0 && serial <= 1, qPrintable(QString::number(serial)));
            const double projected = c[QStringLiteral("projected_speedup_16")].toDouble();
            QVERIFY(projected >= 1 && projected <= 16);
            // The serial samples by phase add up to the run's serial share.
            const QJsonObject byPhase = c[QStringLiteral("serial_by_phase")].toObject();
            QVERIFY(byPhase.contains(QStringLiteral("read")));
            double sum = 0;
            for (const auto& share : byPhase)
                sum += share.toDouble();
            QVERIFY2(std::abs(sum - serial) < 1e-6,
                     qPrintable(QStringLiteral("%1 against %2").arg(sum).arg(serial)));
            QStringList names;
            for (const auto& ph : c[QStringLiteral("phases")].toArray()) {
                const QJsonObject o = ph.toObject();
                names << o[QStringLiteral("name")].toString();
                QVERIFY(o.contains(QStringLiteral("mb_per_s")) &&
                        o.contains(QStringLiteral("items_per_s")));
            }
            // "save dataset": a name with a space comes through the child's report whole.
            for (const char* phase : {"read", "signatures", "save dataset", "buckets", "compare",
                                      "union", "export", "store"})
                QVERIFY2(names.contains(QLatin1String(phase)), phase);
        }
        // The corpus stays in the work directory for the next benchmark.
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("work/web-1M-seed1.jsonl"))));
    }

    // --memory-budget reaches every run: a budget far below the corpus's signatures makes the
    // runs spill, and each case reports its budget, its spill and how many cores it kept busy.
    void memoryBudgetReachesTheRuns() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString json = dir.filePath(QStringLiteral("bench.json"));
        const testsupport::CliResult r = testsupport::neardup(
            {QStringLiteral("bench"), QStringLiteral("--sizes"), QStringLiteral("2M"),
             QStringLiteral("-j"), QStringLiteral("2"), QStringLiteral("--memory-budget"),
             QStringLiteral("1M"), QStringLiteral("--no-kernels"), QStringLiteral("--json"), json,
             QStringLiteral("--work-dir"), dir.filePath(QStringLiteral("work")),
             QStringLiteral("--quiet")},
            testsupport::CliOptions().withTimeout(120000));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("| cores busy |")));
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray cases =
            QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("cases")].toArray();
        QCOMPARE(cases.size(), 1);
        const QJsonObject c = cases.first().toObject();
        QCOMPARE(c[QStringLiteral("memory_budget")].toDouble(), 1024.0 * 1024.0);
        QVERIFY2(c[QStringLiteral("spill_bytes")].toDouble() > 0,
                 qPrintable(QString::number(c[QStringLiteral("spill_bytes")].toDouble())));
        QVERIFY(c[QStringLiteral("cores_busy")].toDouble() > 0);
        QVERIFY(c[QStringLiteral("cores_busy")].toDouble() <= 2.5);
        // A budget that is no size is refused before anything runs.
        const testsupport::CliResult bad = testsupport::neardup(
            {QStringLiteral("bench"), QStringLiteral("--memory-budget"), QStringLiteral("lots"),
             QStringLiteral("--work-dir"), dir.filePath(QStringLiteral("bad"))});
        QVERIFY(bad.code != 0);
        QVERIFY2(bad.err.contains(QStringLiteral("--memory-budget")), qPrintable(bad.err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("bad"))));
    }

    // --formats: the same documents read from JSONL and from a Parquet copy, one row each with
    // the same documents and text bytes; refused by name of the format without Parquet.
    void formatsReadTheSameDocuments() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString json = dir.filePath(QStringLiteral("bench.json"));
        const testsupport::CliResult r =
            testsupport::neardup({QStringLiteral("bench"), QStringLiteral("--sizes"),
                                  QStringLiteral("300K"), QStringLiteral("-j"), QStringLiteral("2"),
                                  QStringLiteral("--formats"), QStringLiteral("--no-kernels"),
                                  QStringLiteral("--json"), json, QStringLiteral("--work-dir"),
                                  dir.filePath(QStringLiteral("work")), QStringLiteral("--quiet")},
                                 testsupport::CliOptions().withTimeout(120000));
        if (!columnar::parquetCompiledIn()) {
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(QStringLiteral("Parquet support is not compiled in")),
                     qPrintable(r.err));
            return;
        }
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("| parquet | ")));
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray formats =
            QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("formats")].toArray();
        QCOMPARE(formats.size(), 2);
        const QJsonObject jsonl = formats[0].toObject(), parquet = formats[1].toObject();
        QCOMPARE(jsonl[QStringLiteral("format")].toString(), QStringLiteral("jsonl"));
        QCOMPARE(parquet[QStringLiteral("format")].toString(), QStringLiteral("parquet"));
        QVERIFY(jsonl[QStringLiteral("documents")].toDouble() > 50);
        for (const char* key : {"documents", "text_bytes"})
            QCOMPARE(parquet[QLatin1String(key)].toDouble(), jsonl[QLatin1String(key)].toDouble());
        for (const QJsonObject& o : {jsonl, parquet}) {
            QVERIFY(o[QStringLiteral("read_seconds")].toDouble() > 0);
            QVERIFY(o[QStringLiteral("text_mb_per_s")].toDouble() > 0);
            QVERIFY(o[QStringLiteral("peak_rss_bytes")].toDouble() > 1e6);
        }
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("work/web-300K-seed1.parquet"))));
    }

    // The clustering step alone: every keep policy with and without exact copies, union-find and
    // both rules; the witness rule never removes more than the components rule (its removals
    // are a subset), and both see the same pairs.
    void clusteringBenchmarkTimesBothRules() {
        const std::vector<ClusteringBenchmarkRow> rows = runClusteringBenchmark(4000, 1, 3);
        QCOMPARE(rows.size(), std::size_t{18});
        for (std::size_t i = 0; i < rows.size(); i += 3) {
            QCOMPARE(QString::fromStdString(rows[i].step), QStringLiteral("union-find"));
            QCOMPARE(QString::fromStdString(rows[i + 1].step), QStringLiteral("witness"));
            QCOMPARE(QString::fromStdString(rows[i + 2].step), QStringLiteral("components"));
            QVERIFY(rows[i].pairs > 4000);
            QCOMPARE(rows[i + 1].pairs, rows[i].pairs);
            QVERIFY(rows[i + 1].removed > 0);
            QVERIFY(rows[i + 1].removed < rows[i + 2].removed);  // the chains
            for (std::size_t j = i; j < i + 3; ++j)
                QVERIFY(rows[j].medianSeconds > 0 && rows[j].medianCpuSeconds >= 0);
        }
        QCOMPARE(rows[0].copies, false);
        QCOMPARE(rows[9].copies, true);
        QCOMPARE(QString::fromStdString(rows[3].keep), QStringLiteral("longest"));
        QCOMPARE(QString::fromStdString(rows[6].keep), QStringLiteral("max:FIELD"));

        const testsupport::CliResult r = testsupport::neardup(
            {QStringLiteral("bench"), QStringLiteral("--clustering"), QStringLiteral("2000")},
            testsupport::CliOptions().withTimeout(60000));
        QCOMPARE(r.code, 0);
        const QString table = r.out;
        QCOMPARE(table.count(QStringLiteral("| witness |")), 6);
        QCOMPARE(table.count(QStringLiteral("| components |")), 6);
        QCOMPARE(table.count(QStringLiteral("| max:FIELD |")), 6);
    }

    // The same cases on a stored run's own pairs: the witness rule under --keep first (the
    // run's default) removes exactly what the run removed, with its pairs and documents.
    void clusteringFromAStoredRun() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString corpus = dir.filePath(QStringLiteral("c.jsonl")),
                      project = dir.filePath(QStringLiteral("c.ndw")),
                      summary = dir.filePath(QStringLiteral("s.json"));
        testsupport::CliResult r = testsupport::neardup(
            {QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("1500"),
             QStringLiteral("--mean-chars"), QStringLiteral("600"), QStringLiteral("--out"), corpus,
             QStringLiteral("--truth"), dir.filePath(QStringLiteral("t.json"))});
        QCOMPARE(r.code, 0);
        r = testsupport::neardup({QStringLiteral("run"), corpus, QStringLiteral("-p"), project,
                                  QStringLiteral("-q"), QStringLiteral("--summary-json"), summary});
        QCOMPARE(r.code, 0);
        QFile f(summary);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject s = QJsonDocument::fromJson(f.readAll()).object();
        const qint64 removed = s[QStringLiteral("removed")].toInteger();
        const qint64 documents = s[QStringLiteral("documents")].toInteger();
        QVERIFY(removed > 0);

        r = testsupport::neardup(
            {QStringLiteral("bench"), QStringLiteral("--clustering-from"), project},
            testsupport::CliOptions().withTimeout(60000));
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.count(QStringLiteral("| witness |")), 2);  // first, longest: no field
        QCOMPARE(r.out.count(QStringLiteral("| max:FIELD |")), 0);
        const QString firstWitness =
            QStringLiteral("| first | yes | witness | %1 |").arg(documents);
        const QString firstNoCopies =
            QStringLiteral("| first | no | witness | %1 |").arg(documents);
        QString row;
        for (const QString& line : r.out.split(QLatin1Char('\n')))
            if (line.startsWith(firstWitness) || line.startsWith(firstNoCopies)) row = line;
        QVERIFY2(!row.isEmpty(), qPrintable(r.out));
        const QStringList cells = row.split(QLatin1Char('|'));
        QCOMPARE(cells[6].trimmed().toLongLong(), removed);

        r = testsupport::neardup({QStringLiteral("bench"), QStringLiteral("--clustering-from"),
                                  dir.filePath(QStringLiteral("none.ndw"))});
        QCOMPARE(r.code, 2);  // not an existing file: a usage error
    }

    void badArgumentsAreUsageErrors() {
        const testsupport::CliResult r = testsupport::neardup(
            {QStringLiteral("bench"), QStringLiteral("--sizes"), QStringLiteral("ten")},
            testsupport::CliOptions().withTimeout(30000));
        QCOMPARE(r.code, 2);
    }
};

QTEST_GUILESS_MAIN(TestBench)
#include "test_bench.moc"
