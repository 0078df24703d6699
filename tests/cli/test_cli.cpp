// Every `neardup` subcommand, run as a process: exit codes, outputs, the project file.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "test_support.h"

namespace {

using Result = testsupport::CliResult;
using testsupport::neardup;
using testsupport::readFile;

// The first row of a one-column query (empty when it has none).
QString sqlValue(const QString& db, const char* sql) {
    return testsupport::sqlRows(db.toStdString(), sql).value(0);
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString d(const char* name) const { return dir_.filePath(QLatin1String(name)); }
    // The CLI runs in the test's folder.
    testsupport::CliOptions inDir() const {
        return testsupport::CliOptions().inFolder(dir_.path());
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const Result r =
            neardup({QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("1500"),
                     QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--out"),
                     d("corpus.jsonl"), QStringLiteral("--truth"), d("truth.json")},
                    inDir());
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains(QStringLiteral("1500 documents")));
        QCOMPARE(readFile(d("corpus.jsonl")).count('\n'), 1500);
    }
    void helpAndUsageErrors() {
        Result r = neardup({QStringLiteral("--help")}, inDir());
        QCOMPARE(r.code, 0);
        for (const char* cmd : {"run", "export", "info", "gen", "eval", "truth"})
            QVERIFY2(r.out.contains(QLatin1String(cmd)), cmd);
        QVERIFY(r.out.contains(QStringLiteral("Exit codes")));
        r = neardup({QStringLiteral("run"), QStringLiteral("--help")}, inDir());
        QCOMPARE(r.code, 0);
        for (const char* opt :
             {"--text-field",   "--id-field",  "--shingle",  "--ngram",       "--hashes",
              "--hash",         "--seed",      "--bands",    "--rows",        "--buckets",
              "--bucket-key",   "--threshold", "--verify",   "--keep",        "--threads",
              "--backend",      "--out-jsonl", "--out-kept", "--out-removed", "--out-clusters",
              "--summary-json", "--out-dir",   "--annotate"})
            QVERIFY2(r.out.contains(QLatin1String(opt)), opt);
        QCOMPARE(neardup({}, inDir()).code, 2);
        QCOMPARE(neardup({QStringLiteral("frobnicate")}, inDir()).code, 2);
        QCOMPARE(neardup({QStringLiteral("run"), d("corpus.jsonl")}, inDir()).code,
                 2);  // no --project
        r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("u.ndw"),
                     QStringLiteral("--bands"), QStringLiteral("64"), QStringLiteral("--rows"),
                     QStringLiteral("4")},
                    inDir());
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("--bands x --rows")));
        // One of them given: the other is chosen within the hashes, or the run is refused.
        r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("u.ndw"),
                     QStringLiteral("--bands"), QStringLiteral("200")},
                    inDir());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--bands 200 leaves no room within --hashes (128)")),
                 qPrintable(r.err));
    }
    void storeFloorReachesTheBorderlineBand() {
        // θ 0.5 with borderline verification: the floor is lowered to θ - 3σ (0.367 with 128
        // hashes), so a pair estimated just under 0.5 is still verified.
        Result r =
            neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("fl.ndw"),
                     QStringLiteral("-t"), QStringLiteral("0.5"), QStringLiteral("-q")},
                    inDir());
        QCOMPARE(r.code, 0);
        QCOMPARE(sqlValue(d("fl.ndw"), "SELECT round(store_floor, 3) FROM runs WHERE id = 1"),
                 QStringLiteral("0.367"));
        QVERIFY(sqlValue(d("fl.ndw"), "SELECT min(matches) FROM pairs WHERE run_id = 1").toInt() <
                64);
        // θ 0.8 (floor 0.5) reuses those pairs and stores only those a comparison of its own
        // stores: the same as a fresh project's run with the same b x r.
        r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("fl.ndw"),
                     QStringLiteral("-t"), QStringLiteral("0.8")},
                    inDir());
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("reusing the compared pairs of run 1")),
                 qPrintable(r.err));
        r = neardup(
            {QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("fl2.ndw"),
             QStringLiteral("-t"), QStringLiteral("0.8"), QStringLiteral("-b"),
             QStringLiteral("39"), QStringLiteral("-r"), QStringLiteral("3"), QStringLiteral("-q")},
            inDir());
        QCOMPARE(r.code, 0);
        const char* pairs =
            "SELECT group_concat(a || '-' || b || ':' || matches || ':' || "
            "ifnull(exact, '')) FROM (SELECT * FROM pairs WHERE run_id = %1 "
            "ORDER BY a, b)";
        const QString reused = sqlValue(d("fl.ndw"), qPrintable(QString::fromLatin1(pairs).arg(2)));
        QVERIFY(!reused.isEmpty());
        QCOMPARE(reused, sqlValue(d("fl2.ndw"), qPrintable(QString::fromLatin1(pairs).arg(1))));
        // A floor given is used as given.
        r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("fl3.ndw"),
                     QStringLiteral("-t"), QStringLiteral("0.5"), QStringLiteral("--store-floor"),
                     QStringLiteral("0.45"), QStringLiteral("-q")},
                    inDir());
        QCOMPARE(r.code, 0);
        QCOMPARE(sqlValue(d("fl3.ndw"), "SELECT store_floor FROM runs WHERE id = 1"),
                 QStringLiteral("0.45"));
    }
    void bandsAndRowsAreChosenForTheThreshold() {
        // Neither given: chosen for -t 0.7 and 128 hashes, said and recorded.
        Result r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"),
                            d("br.ndw"), QStringLiteral("-t"), QStringLiteral("0.7")},
                           inDir());
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("bands x rows: 25 x 5 (chosen for threshold 0.7")),
                 qPrintable(r.err));
        QCOMPARE(sqlValue(d("br.ndw"), "SELECT bands || 'x' || rows FROM runs WHERE id = 1"),
                 QStringLiteral("25x5"));
        // -r pinned: the bands are chosen for it; a new b x r compares again.
        r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("br.ndw"),
                     QStringLiteral("-t"), QStringLiteral("0.7"), QStringLiteral("-r"),
                     QStringLiteral("8")},
                    inDir());
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("x 8 (bands chosen")), qPrintable(r.err));
        QVERIFY(!r.err.contains(QStringLiteral("reusing the compared pairs")));
        // A chosen b x r at a higher threshold reuses the 0.7 run's pairs, which cover it.
        r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("br.ndw"),
                     QStringLiteral("-t"), QStringLiteral("0.8")},
                    inDir());
        QCOMPARE(r.code, 0);
        QVERIFY2(
            r.err.contains(QStringLiteral("reusing the compared pairs of run 1 (b x r 25 x 5)")),
            qPrintable(r.err));
        QCOMPARE(sqlValue(d("br.ndw"), "SELECT bands || 'x' || rows FROM runs WHERE id = 3"),
                 QStringLiteral("25x5"));
    }
    void missingInputIsAnError() {
        const Result r = neardup(
            {QStringLiteral("run"), d("nope.jsonl"), QStringLiteral("-p"), d("e.ndw")}, inDir());
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains(QStringLiteral("nope.jsonl")));
    }
    void info() {
        const Result r = neardup({QStringLiteral("info")}, inDir());
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains(QStringLiteral("neardup ")));
        QVERIFY(r.out.contains(QStringLiteral("cuda backend:")));
        QVERIFY(r.out.contains(QStringLiteral("simd:")));
    }
    // `selftest --backend cpu` compares the CPU backend with itself at another thread count;
    // `--backend cuda` compares the GPU with the CPU where there is a GPU, and elsewhere refuses
    // in one line with exit 1 (nothing was tested).
    void selftest() {
        Result r = neardup({QStringLiteral("selftest"), QStringLiteral("--backend"),
                            QStringLiteral("cpu"), QStringLiteral("--docs"), QStringLiteral("300"),
                            QStringLiteral("-j"), QStringLiteral("2")},
                           inDir());
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("result: identical")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("signatures: identical (300 rows")));
        QVERIFY(r.out.contains(QStringLiteral("pairs: identical")));
        QVERIFY(r.out.contains(QStringLiteral("candidate: cpu (1 thread)")));
        // `info` lists usable devices with their compute capability.
        const Result info = neardup({QStringLiteral("info")}, inDir());
        const bool compiledIn = info.out.contains(QStringLiteral("cuda backend: compiled in"));
        const bool haveGpu = info.out.contains(QStringLiteral("compute capability"));
        r = neardup({QStringLiteral("selftest"), QStringLiteral("--backend"),
                     QStringLiteral("cuda"), QStringLiteral("--docs"), QStringLiteral("300")},
                    inDir());
        if (!haveGpu) {
            QCOMPARE(r.code, 1);
            QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
            QVERIFY2(
                r.err.contains(compiledIn ? QStringLiteral("CUDA compiled in, but no CUDA device")
                                          : QStringLiteral("not compiled in")),
                qPrintable(r.err));
            QVERIFY(!r.out.contains(QStringLiteral("identical")));
        } else {
            QCOMPARE(r.code, 0);
            QVERIFY(r.out.contains(QStringLiteral("result: identical")));
        }
        QCOMPARE(neardup({QStringLiteral("selftest"), QStringLiteral("--backend"),
                          QStringLiteral("opencl")},
                         inDir())
                     .code,
                 2);
    }
    // --workers spreads the CPU backend over workers with identical outputs and records each
    // worker's time per phase; bad --workers and --devices values are usage errors.
    void workersAndDevices() {
        auto run = [&](const char* project, const char* kept, const QStringList& extra) {
            return neardup(
                QStringList{QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"),
                            d(project), QStringLiteral("-j"), QStringLiteral("2"),
                            QStringLiteral("--backend"), QStringLiteral("cpu"),
                            QStringLiteral("--out-kept"), d(kept)} +
                    extra,
                inDir());
        };
        Result r = run("w1.ndw", "w1.txt", {});
        QCOMPARE(r.code, 0);
        r = run("w3.ndw", "w3.txt", {QStringLiteral("--workers"), QStringLiteral("3")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("backend: cpu: requested (3 workers)")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("3 workers: cpu (1 thread) x3")), qPrintable(r.err));
        QCOMPARE(readFile(d("w3.txt")), readFile(d("w1.txt")));
        QVERIFY(!readFile(d("w1.txt")).isEmpty());
        QCOMPARE(sqlValue(d("w3.ndw"), "SELECT count(*) FROM worker_phases WHERE run_id = 1"),
                 QStringLiteral("9"));
        QCOMPARE(sqlValue(d("w3.ndw"),
                          "SELECT sum(items) FROM worker_phases "
                          "WHERE run_id = 1 AND phase = 'signatures'"),
                 QStringLiteral("1500"));
        QCOMPARE(sqlValue(d("w1.ndw"), "SELECT count(*) FROM worker_phases"), QStringLiteral("0"));

        r = run("w0.ndw", "w0.txt", {QStringLiteral("--workers"), QStringLiteral("0")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--workers must be between 1 and 64")),
                 qPrintable(r.err));
        r = run("wd.ndw", "wd.txt", {QStringLiteral("--devices"), QStringLiteral("0")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--devices selects GPUs")), qPrintable(r.err));
        QVERIFY(!QFile::exists(d("w0.txt")));
        QVERIFY(!QFile::exists(d("wd.txt")));
    }
    // Saving the dataset and its signatures into the project is a phase of its own, so that the
    // phases (and the run's seconds, their sum) cover it: on one thread it runs in sequence
    // and took 1.0-1.9 s per GB outside every phase; on two it is what the run still waits for.
    void savingTheDatasetIsAPhase() {
        for (const char* threads : {"1", "2"}) {
            const QString project =
                dir_.filePath(QStringLiteral("save%1.ndw").arg(QLatin1String(threads)));
            const QString summary =
                dir_.filePath(QStringLiteral("save%1.json").arg(QLatin1String(threads)));
            Result r =
                neardup(QStringList{QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"),
                                    project, QStringLiteral("-j"), QLatin1String(threads),
                                    QStringLiteral("--summary-json"), summary},
                        inDir());
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY2(r.err.contains(QStringLiteral("\nsave dataset ")), qPrintable(r.err));
            // A phase shown as 0.000 s (on 1,500 documents, often the union) has no rate: over
            // less than a millisecond it is noise (the rule itself: test_pipeline).
            for (const QString& line : r.err.split(QLatin1Char('\n')))
                if (line.contains(QStringLiteral(" 0.000 s")))
                    QVERIFY2(!line.contains(QStringLiteral("/s")), qPrintable(line));
            const QJsonObject phases = QJsonDocument::fromJson(readFile(summary))
                                           .object()
                                           .value(QStringLiteral("phases"))
                                           .toObject();
            QVERIFY2(phases.contains(QStringLiteral("save dataset")), threads);
        }
    }
    void runExportEvalTruth() {
        const QStringList outputs{QStringLiteral("--out-jsonl"),    d("dedup.jsonl"),
                                  QStringLiteral("--out-kept"),     d("kept.txt"),
                                  QStringLiteral("--out-removed"),  d("removed.txt"),
                                  QStringLiteral("--out-clusters"), d("clusters.jsonl"),
                                  QStringLiteral("--summary-json"), d("summary.json")};
        Result r = neardup(
            QStringList{QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("--project"),
                        d("p.ndw"), QStringLiteral("--threads"), QStringLiteral("2")} +
                outputs,
            inDir());
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.contains(QStringLiteral("1500 documents")));
        QVERIFY(r.out.isEmpty());
        const QJsonObject s = QJsonDocument::fromJson(readFile(d("summary.json"))).object();
        QCOMPARE(s.value(QStringLiteral("documents")).toInt(), 1500);
        QCOMPARE(
            s.value(QStringLiteral("kept")).toInt() + s.value(QStringLiteral("removed")).toInt(),
            1500);
        QVERIFY(s.value(QStringLiteral("removed")).toInt() > 100);
        QCOMPARE(s.value(QStringLiteral("threads")).toInt(), 2);
        QVERIFY(s.value(QStringLiteral("phases")).toObject().contains(QStringLiteral("compare")));
        QCOMPARE(readFile(d("dedup.jsonl")).count('\n'), s.value(QStringLiteral("kept")).toInt());
        QCOMPARE(readFile(d("removed.txt")).count('\n'),
                 s.value(QStringLiteral("removed")).toInt());

        // The project: integrity, the run, its phases, bucket statistics and clusters.
        QCOMPARE(sqlValue(d("p.ndw"), "PRAGMA integrity_check"), QStringLiteral("ok"));
        QCOMPARE(sqlValue(d("p.ndw"), "SELECT status FROM runs WHERE id = 1"),
                 QStringLiteral("ok"));
        QVERIFY(sqlValue(d("p.ndw"), "SELECT count(*) FROM run_phases WHERE run_id = 1").toInt() >=
                5);
        // One statistics row per band, of as many bands as the run chose.
        QCOMPARE(sqlValue(d("p.ndw"), "SELECT count(*) FROM band_stats WHERE run_id = 1").toInt(),
                 sqlValue(d("p.ndw"), "SELECT bands FROM runs WHERE id = 1").toInt());
        QCOMPARE(sqlValue(d("p.ndw"), "SELECT count(*) FROM clusters WHERE run_id = 1").toInt(),
                 s.value(QStringLiteral("clusters")).toInt());

        // Threads do not change outputs.
        r = neardup(QStringList{QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"),
                                d("p1.ndw"), QStringLiteral("-j"), QStringLiteral("1"),
                                QStringLiteral("--out-jsonl"), d("dedup1.jsonl")},
                    inDir());
        QCOMPARE(r.code, 0);
        QCOMPARE(readFile(d("dedup1.jsonl")), readFile(d("dedup.jsonl")));

        // export reproduces the run's outputs from the project.
        r = neardup({QStringLiteral("export"), QStringLiteral("--project"), d("p.ndw"),
                     QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("--out-jsonl"),
                     d("e.jsonl"), QStringLiteral("--out-clusters"), d("e.clusters"),
                     QStringLiteral("--out-removed"), d("e.removed")},
                    inDir());
        QCOMPARE(r.code, 0);
        QCOMPARE(readFile(d("e.jsonl")), readFile(d("dedup.jsonl")));
        QCOMPARE(readFile(d("e.clusters")), readFile(d("clusters.jsonl")));
        QCOMPARE(readFile(d("e.removed")), readFile(d("removed.txt")));
        QCOMPARE(
            neardup({QStringLiteral("export"), QStringLiteral("-p"), d("p.ndw")}, inDir()).code, 2);
        // A run number the project does not hold: a usage error in the same words in every
        // command (recluster's below), nothing written.
        const QList<QStringList> noSuchRun = {
            {QStringLiteral("export"), QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--run"),
             QStringLiteral("99"), QStringLiteral("--out-kept"), d("x")},
            {QStringLiteral("report"), QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--run"),
             QStringLiteral("99"), QStringLiteral("--out"), d("x")},
            {QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("p.ndw"),
             QStringLiteral("--reference-run"), QStringLiteral("99")}};
        for (const QStringList& args : noSuchRun) {
            const Result missing = neardup(args, inDir());
            QVERIFY2(missing.code == 2, qPrintable(args.join(QLatin1Char(' ')) + missing.err));
            QVERIFY2(missing.err.contains(QStringLiteral("p.ndw holds no run 99")),
                     qPrintable(missing.err));
            QVERIFY(!QFile::exists(d("x")));
        }

        // eval against the generator's truth, and against truth computed from the corpus.
        r = neardup({QStringLiteral("eval"), QStringLiteral("--truth"), d("truth.json"),
                     QStringLiteral("--clusters"), d("clusters.jsonl"), QStringLiteral("--json"),
                     d("eval.json")},
                    inDir());
        QCOMPARE(r.code, 0);
        const QJsonObject e = QJsonDocument::fromJson(readFile(d("eval.json"))).object();
        QVERIFY(e.value(QStringLiteral("document_jaccard")).toDouble() > 0.9);
        QVERIFY(e.value(QStringLiteral("document_precision")).toDouble() > 0.9);
        r = neardup(
            {QStringLiteral("truth"), d("corpus.jsonl"), QStringLiteral("--out"), d("truth2.json")},
            inDir());
        QCOMPARE(r.code, 0);
        r = neardup({QStringLiteral("eval"), QStringLiteral("--truth"), d("truth2.json"),
                     QStringLiteral("--clusters"), d("clusters.jsonl"), QStringLiteral("--json"),
                     d("eval2.json")},
                    inDir());
        QCOMPARE(r.code, 0);
        QCOMPARE(readFile(d("eval2.json")), readFile(d("eval.json")));
    }
    // recluster: run 1 of p.ndw at another threshold, from its stored pairs, gives the outputs
    // of `neardup run` at that threshold (verification around it included) on a copy.
    void reclusterMatchesARunAtThatThreshold() {
        QFile::remove(d("q.ndw"));
        QVERIFY(QFile::copy(d("p.ndw"), d("q.ndw")));
        Result r =
            neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"), d("q.ndw"),
                     QStringLiteral("-t"), QStringLiteral("0.9"), QStringLiteral("--out-clusters"),
                     d("q.clusters"), QStringLiteral("--out-removed"), d("q.removed")},
                    inDir());
        QCOMPARE(r.code, 0);
        r = neardup({QStringLiteral("recluster"), QStringLiteral("-p"), d("p.ndw"),
                     QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("-t"),
                     QStringLiteral("0.9"), QStringLiteral("--out-clusters"), d("r.clusters"),
                     QStringLiteral("--out-removed"), d("r.removed")},
                    inDir());
        QCOMPARE(r.code, 0);
        QCOMPARE(readFile(d("r.clusters")), readFile(d("q.clusters")));
        QCOMPARE(readFile(d("r.removed")), readFile(d("q.removed")));
        QVERIFY(readFile(d("r.removed")).count('\n') < readFile(d("removed.txt")).count('\n'));
        const QString last = sqlValue(d("p.ndw"), "SELECT max(id) FROM runs");
        QCOMPARE(
            sqlValue(d("p.ndw"),
                     qPrintable(QStringLiteral("SELECT pairs_reused || '|' || threshold FROM runs "
                                               "WHERE id = %1")
                                    .arg(last))),
            QStringLiteral("1|0.9"));
        // No such run; a threshold below the store floor: usage errors that say why.
        r = neardup(
            {QStringLiteral("recluster"), QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--run"),
             QStringLiteral("99"), QStringLiteral("-t"), QStringLiteral("0.9")},
            inDir());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("no run 99")), qPrintable(r.err));
        r = neardup(
            {QStringLiteral("recluster"), QStringLiteral("-p"), d("p.ndw"), QStringLiteral("--run"),
             QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("0.2")},
            inDir());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("store floor")), qPrintable(r.err));
    }
    // -q on every command that writes: nothing on stderr when all goes well, the outputs
    // written as without it.
    void quietCommandsSayNothing() {
        Result r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"),
                            d("quiet.ndw"), QStringLiteral("-q")},
                           inDir());
        QVERIFY2(r.code == 0 && r.err.isEmpty(), qPrintable(r.err));
        const QStringList commands[] = {
            {QStringLiteral("export"), QStringLiteral("-p"), d("quiet.ndw"), QStringLiteral("-q"),
             QStringLiteral("--out-kept"), d("quiet.kept"), QStringLiteral("--rejected"),
             d("quiet.rejected.jsonl")},
            {QStringLiteral("report"), QStringLiteral("-p"), d("quiet.ndw"), QStringLiteral("-q"),
             QStringLiteral("--out"), d("quiet.html"), QStringLiteral("--clusters-csv"),
             d("quiet.csv")},
            {QStringLiteral("relocate"), QStringLiteral("-p"), d("quiet.ndw"), QStringLiteral("-q"),
             QStringLiteral("--from"), dir_.path(), QStringLiteral("--to"), dir_.path()}};
        for (const QStringList& command : commands) {
            r = neardup(command, inDir());
            QVERIFY2(r.code == 0, qPrintable(command.join(u' ') + QStringLiteral(": ") + r.err));
            QVERIFY2(r.err.isEmpty(),
                     qPrintable(command.join(u' ') + QStringLiteral(": ") + r.err));
        }
        QVERIFY(!readFile(d("quiet.kept")).isEmpty());
        QVERIFY(!readFile(d("quiet.html")).isEmpty());
        QVERIFY(!readFile(d("quiet.csv")).isEmpty());
    }

    void refusesToOverwriteInput() {
        const Result r = neardup({QStringLiteral("run"), d("corpus.jsonl"), QStringLiteral("-p"),
                                  d("o.ndw"), QStringLiteral("--out-jsonl"), d("corpus.jsonl")},
                                 inDir());
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains(QStringLiteral("refusing to overwrite")));
        QCOMPARE(readFile(d("corpus.jsonl")).count('\n'), 1500);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
