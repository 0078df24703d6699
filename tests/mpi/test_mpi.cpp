// `neardup run` as an MPI job: `mpirun -np 1|2|3` gives byte-identical outputs and the same
// project contents as a single-process run, with the input chunks read (parsed, normalized,
// signed) on the other ranks, or only the hashing spread (NEARDUP_MPI_CHUNKS=0); bad lines and
// compressed inputs are accounted exactly as in one process; a failing or killed rank, while
// reading or later, ends the job quickly with a clear error and an intact project; a build
// without MPI says so. The work-splitting
// functions are checked in every build; the jobs need MPI compiled in and mpirun on PATH.
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "mpi_fixture.h"
#include "mpi_job.h"
#include "project_store.h"
#include "test_support.h"
#include "work_split.h"

namespace {

using mpitest::execute;
using mpitest::kOutputs;
using mpitest::Result;
using mpitest::sqlRows;

// The environment Open MPI needs to start several ranks in a container, as root, on a machine
// with fewer cores than ranks.
QProcessEnvironment mpiEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("OMPI_MCA_btl"), QStringLiteral("self,vader"));
    env.insert(QStringLiteral("OMPI_MCA_btl_vader_single_copy_mechanism"), QStringLiteral("none"));
    env.insert(QStringLiteral("OMPI_MCA_rmaps_base_oversubscribe"), QStringLiteral("1"));
    // Under AddressSanitizer (scripts/sanitize.sh), the ranks run without leak detection: Open
    // MPI leaks at MPI_Finalize, partly in plugins it has already unloaded (so no suppression
    // can name them). ASan's memory checks and UBSan stay on.
    if (env.contains(QStringLiteral("ASAN_OPTIONS")))
        env.insert(QStringLiteral("ASAN_OPTIONS"),
                   env.value(QStringLiteral("ASAN_OPTIONS")) + QStringLiteral(":detect_leaks=0"));
    return env;
}

using testsupport::readFile;

}  // namespace

class TestMpi : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString mpirun_;
    QString d(const QString& name) const { return dir_.filePath(name); }
    QString cli() const { return testsupport::cliPath(); }

    // `neardup run` on the corpus into project `name`.ndw with outputs under `name`/.
    QStringList runArgs(const QString& name, const QStringList& extra = {}) const {
        return mpitest::runArgs(dir_, name) + extra;
    }

    Result mpirun(int ranks, const QStringList& args,
                  QProcessEnvironment env = mpiEnvironment()) const {
        QStringList launch{QStringLiteral("--oversubscribe"), QStringLiteral("-np"),
                           QString::number(ranks)};
        if (::geteuid() == 0) launch << QStringLiteral("--allow-run-as-root");
        launch << cli();
        return execute(mpirun_, launch + args, env);
    }

    bool canLaunch() const { return NEARDUP_HAVE_MPI && !mpirun_.isEmpty(); }

    // Project contents that must not depend on how the run was spread.
    static QString projectResults(const QString& db) {
        return mpitest::runResults(db) +
               sqlRows(db,
                       "SELECT cluster, representative, size FROM clusters ORDER BY run_id, "
                       "cluster");
    }
    // The dataset as read: line counts, documents, rejections and their samples.
    static QString datasetContents(const QString& db) {
        return sqlRows(db, "SELECT lines_read, blank_lines, input_bytes, documents FROM datasets") +
               sqlRows(db,
                       "SELECT doc_index, file_index, line, offset, length, chars, doc_id, "
                       "keep_value FROM documents ORDER BY dataset_id, doc_index") +
               sqlRows(db,
                       "SELECT ordinal, reason, count, first_file, first_line FROM "
                       "dataset_rejections ORDER BY dataset_id, ordinal") +
               sqlRows(db,
                       "SELECT ordinal, reason, file_index, line, detail FROM rejection_samples "
                       "ORDER BY dataset_id, ordinal");
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        mpirun_ = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        const Result gen =
            execute(cli(),
                    {QStringLiteral("gen"), QStringLiteral("--docs"), QStringLiteral("3000"),
                     QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--out"),
                     d(QStringLiteral("corpus.jsonl")), QStringLiteral("--truth"),
                     d(QStringLiteral("truth.json"))},
                    QProcessEnvironment::systemEnvironment());
        QCOMPARE(gen.code, 0);
        // The reference: one process, no launcher.
        const Result base = execute(cli(), runArgs(QStringLiteral("single")),
                                    QProcessEnvironment::systemEnvironment());
        QVERIFY2(base.code == 0, qPrintable(base.err));
        QVERIFY(readFile(d(QStringLiteral("single/removed.txt"))).count('\n') > 100);
    }

    void splitByPrefixBalancesWeight() {
        // Weights 5, 1, 1, 1, 1, 1, 0, 10 (cumulative below) over 3 shares.
        const std::vector<uint64_t> prefix{5, 6, 7, 8, 9, 10, 10, 20};
        const auto b = neardup::mpi::splitByPrefix(prefix.data(), prefix.size(), 3);
        QCOMPARE(b.size(), std::size_t{4});
        QCOMPARE(b.front(), std::size_t{0});
        QCOMPARE(b.back(), prefix.size());
        for (std::size_t r = 0; r + 1 < b.size(); ++r)
            QVERIFY(b[r] <= b[r + 1]);
        // The heavy last item is a share of its own; the light ones share the rest.
        QCOMPARE(b[2], std::size_t{7});
        // More shares than items: some empty, none lost, all in order.
        const std::vector<uint64_t> two{3, 4};
        const auto c = neardup::mpi::splitByPrefix(two.data(), two.size(), 5);
        QCOMPARE(c.back(), std::size_t{2});
        std::size_t covered = 0;
        for (std::size_t r = 0; r + 1 < c.size(); ++r)
            covered += c[r + 1] - c[r];
        QCOMPARE(covered, std::size_t{2});
        // No items at all, and one share.
        QCOMPARE(neardup::mpi::splitByPrefix(nullptr, 0, 3),
                 (std::vector<std::size_t>{0, 0, 0, 0}));
        QCOMPARE(neardup::mpi::splitByPrefix(prefix.data(), prefix.size(), 1),
                 (std::vector<std::size_t>{0, prefix.size()}));
    }

    void splitEvenlyCoversEverything() {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100}})
            for (int parts : {1, 2, 3, 8}) {
                const auto b = neardup::mpi::splitEvenly(n, parts);
                QCOMPARE(b.size(), static_cast<std::size_t>(parts) + 1);
                QCOMPARE(b.front(), std::size_t{0});
                QCOMPARE(b.back(), n);
                for (std::size_t r = 0; r + 1 < b.size(); ++r) {
                    QVERIFY(b[r] <= b[r + 1]);
                    QVERIFY(b[r + 1] - b[r] <= n / static_cast<std::size_t>(parts) + 1);
                }
            }
    }

    void launchInfoReadsTheLauncher() {
        for (const char* v : {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE",
                              "PMI_RANK", "PMIX_RANK", "SLURM_NTASKS"})
            qunsetenv(v);
        QVERIFY(!neardup::mpi::launchInfo().underLauncher);
        qputenv("PMI_SIZE", "4");
        qputenv("PMI_RANK", "3");
        auto info = neardup::mpi::launchInfo();
        QVERIFY(info.underLauncher);
        QCOMPARE(info.size, 4);
        QCOMPARE(info.rank, 3);
        qunsetenv("PMI_SIZE");
        qunsetenv("PMI_RANK");
        qputenv("PMIX_RANK", "0");
        info = neardup::mpi::launchInfo();
        QVERIFY(info.underLauncher);
        QCOMPARE(info.size, 0);  // unknown without Slurm's task count
        qunsetenv("PMIX_RANK");
    }

    void infoSaysWhetherMpiIsCompiledIn() {
        const Result r =
            execute(cli(), {QStringLiteral("info")}, QProcessEnvironment::systemEnvironment());
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(NEARDUP_HAVE_MPI ? QStringLiteral("mpi: compiled in")
                                                 : QStringLiteral("mpi: not compiled in")),
                 qPrintable(r.out));
    }

    // With MPI: a rank that cannot build its backend fails the run, named. Without MPI: a job
    // of several ranks is refused.
    void startFailuresAreReported() {
#if NEARDUP_HAVE_MPI
        if (mpirun_.isEmpty()) QSKIP("mpirun not found");
        QProcessEnvironment env = mpiEnvironment();
        env.insert(QStringLiteral("NEARDUP_MPI_TEST_FAIL"), QStringLiteral("1:start:throw"));
        const Result r = mpirun(2, runArgs(QStringLiteral("nostart")), env);
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains(QStringLiteral("rank 1 (")) &&
                     r.err.contains(QStringLiteral("could not start its backend")),
                 qPrintable(r.err));
        QCOMPARE(sqlRows(d(QStringLiteral("nostart.ndw")),
                         "SELECT status, error LIKE 'rank 1 (%' FROM runs"),
                 QStringLiteral("failed|1\n"));
#else
        // What mpirun -np 2 sets for rank 0.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("OMPI_COMM_WORLD_SIZE"), QStringLiteral("2"));
        env.insert(QStringLiteral("OMPI_COMM_WORLD_RANK"), QStringLiteral("0"));
        const Result r = execute(cli(), runArgs(QStringLiteral("refused")), env);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("MPI support is not compiled in")),
                 qPrintable(r.err));
#endif
        QVERIFY(!QFile::exists(d(QStringLiteral("nostart/kept.txt"))));
        QVERIFY(!QFile::exists(d(QStringLiteral("refused/kept.txt"))));
    }

    void ranksGiveIdenticalResults_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<bool>("chunks");  // chunks read on every rank (the default)
        QTest::newRow("1 rank") << 1 << QStringList() << true;
        QTest::newRow("2 ranks") << 2 << QStringList() << true;
        QTest::newRow("3 ranks") << 3 << QStringList() << true;
        // Out of core: signatures and band keys spilled, buckets compared pass by pass.
        QTest::newRow("3 ranks, spilled")
            << 3 << QStringList{QStringLiteral("--memory-budget"), QStringLiteral("1M")} << true;
        // Only the hashing spread: rank 0 reads every chunk.
        QTest::newRow("3 ranks, rank 0 reads") << 3 << QStringList() << false;
    }

    void ranksGiveIdenticalResults() {
        if (!canLaunch()) QSKIP("MPI not compiled in or mpirun not found");
        QFETCH(int, ranks);
        QFETCH(QStringList, extra);
        QFETCH(bool, chunks);
        const QString name = QStringLiteral("np%1%2%3")
                                 .arg(ranks)
                                 .arg(extra.isEmpty() ? QString() : QStringLiteral("s"))
                                 .arg(chunks ? QString() : QStringLiteral("r"));
        QProcessEnvironment env = mpiEnvironment();
        if (!chunks) env.insert(QStringLiteral("NEARDUP_MPI_CHUNKS"), QStringLiteral("0"));
        const Result r = mpirun(ranks,
                                runArgs(name, extra) << QStringLiteral("--summary-json")
                                                     << d(name + QStringLiteral(".json")),
                                env);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QCOMPARE(r.err.contains(QStringLiteral("out of core")), !extra.isEmpty());
        for (const mpitest::ListOutput& output : kOutputs) {
            const char* out = output.file;
            const QByteArray mine = readFile(d(name + QLatin1Char('/') + QLatin1String(out)));
            QVERIFY2(!mine.isEmpty(), out);
            QVERIFY2(mine == readFile(d(QStringLiteral("single/") + QLatin1String(out))), out);
        }
        const QString single = projectResults(d(QStringLiteral("single.ndw")));
        QVERIFY(single.count(QLatin1Char('\n')) > 100);
        QCOMPARE(projectResults(d(name + QStringLiteral(".ndw"))), single);
        // Rank 0 reports every rank; the project names the job as the backend.
        for (int rank = 0; rank < ranks; ++rank)
            QVERIFY2(r.err.contains(QStringLiteral("rank %1 on ").arg(rank)), qPrintable(r.err));
        QVERIFY(sqlRows(d(name + QStringLiteral(".ndw")), "SELECT backend FROM runs")
                    .startsWith(QStringLiteral("mpi (%1 rank").arg(ranks)));
        QCOMPARE(datasetContents(d(name + QStringLiteral(".ndw"))),
                 datasetContents(d(QStringLiteral("single.ndw"))));
        // Who read the chunks: every other rank (the first chunks go to their free slots, in
        // rank order; the corpus is two chunks or more), rank 0 only when every slot was busy.
        // Without chunk reading, every rank signs a share.
        const QString readers = sqlRows(d(name + QStringLiteral(".ndw")),
                                        "SELECT group_concat(worker) FROM (SELECT worker FROM "
                                        "worker_phases WHERE phase = 'signatures' AND items > 0 "
                                        "ORDER BY worker)");
        QStringList expected;
        for (int rank = 1; rank < ranks; ++rank)
            expected << QString::number(rank);
        if (ranks == 1 || !chunks || readers.startsWith(QLatin1Char('0')))
            expected.prepend(QStringLiteral("0"));
        QCOMPARE(readers, expected.join(QLatin1Char(',')) + QLatin1Char('\n'));
    }

    // Bad lines of every kind next to a gzip-compressed file, over three ranks: the same
    // documents, rejection counts, first lines and samples (with their details) as one process.
    void badLinesAndGzipGiveIdenticalAccounting() {
        if (!canLaunch()) QSKIP("MPI not compiled in or mpirun not found");
        const QString in = d(QStringLiteral("mixed-in"));
        QVERIFY(QDir().mkpath(in));
        const Result gz = execute(
            QStringLiteral("sh"),
            {QStringLiteral("-c"),
             QStringLiteral("gzip -c '%1' > '%2'")
                 .arg(d(QStringLiteral("corpus.jsonl")), in + QStringLiteral("/a.jsonl.gz"))},
            QProcessEnvironment::systemEnvironment());
        QCOMPARE(gz.code, 0);
        const QList<QByteArray> lines = readFile(d(QStringLiteral("corpus.jsonl"))).split('\n');
        const QByteArray bad[] = {"{\"id\":\"x\",\"text\":",    // malformed
                                  "[1, 2, 3]",                  // not an object
                                  "{\"id\":\"y\"}",             // no text
                                  "{\"id\":\"z\",\"text\":7}",  // text not a string
                                  "{\"id\":[1],\"text\":\"an id that is a list\"}",
                                  "   ",  // blank
                                  "{\"id\":\"c\",\"text\":\"bad \xff\xfe utf-8\"}"};
        QByteArray mixed;
        int k = 0;
        for (int i = 0; i < lines.size(); ++i) {
            if (lines[i].isEmpty()) continue;
            mixed += (i % 53 == 7 ? bad[k++ % 7] : lines[i]) + '\n';
        }
        QFile b(in + QStringLiteral("/b.jsonl"));
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write(mixed);
        b.close();
        auto args = [&](const QString& name) {
            QDir(dir_.path()).mkpath(name);
            return QStringList{QStringLiteral("run"),
                               in,
                               QStringLiteral("-p"),
                               d(name + QStringLiteral(".ndw")),
                               QStringLiteral("-j"),
                               QStringLiteral("1"),
                               QStringLiteral("--backend"),
                               QStringLiteral("cpu"),
                               QStringLiteral("-q"),
                               QStringLiteral("--out-removed"),
                               d(name + QStringLiteral("/removed.txt")),
                               QStringLiteral("--out-jsonl"),
                               d(name + QStringLiteral("/dedup.jsonl"))};
        };
        const Result single = execute(cli(), args(QStringLiteral("mixed1")),
                                      QProcessEnvironment::systemEnvironment());
        QVERIFY2(single.code == 0, qPrintable(single.err));
        const Result r = mpirun(3, args(QStringLiteral("mixed3")));
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        for (const char* out : {"removed.txt", "dedup.jsonl"}) {
            const QByteArray mine = readFile(d(QStringLiteral("mixed3/") + QLatin1String(out)));
            QVERIFY2(!mine.isEmpty(), out);
            QVERIFY2(mine == readFile(d(QStringLiteral("mixed1/") + QLatin1String(out))), out);
        }
        const QString one = datasetContents(d(QStringLiteral("mixed1.ndw")));
        QCOMPARE(datasetContents(d(QStringLiteral("mixed3.ndw"))), one);
        // Every kind of bad line was seen, with its detail.
        const QString reasons = sqlRows(d(QStringLiteral("mixed3.ndw")),
                                        "SELECT reason, count FROM dataset_rejections ORDER BY "
                                        "ordinal");
        for (const char* reason :
             {"malformed_json", "not_an_object", "missing_text", "text_not_string", "invalid_id"})
            QVERIFY2(reasons.contains(QLatin1String(reason)), qPrintable(reasons));
        QCOMPARE(sqlRows(d(QStringLiteral("mixed3.ndw")),
                         "SELECT COUNT(*) > 30, MIN(length(detail)) > 0 FROM rejection_samples"),
                 QStringLiteral("1|1\n"));
        QCOMPARE(projectResults(d(QStringLiteral("mixed3.ndw"))),
                 projectResults(d(QStringLiteral("mixed1.ndw"))));
    }

    // Ranks with nothing to do (FED's merge hangs there): two documents over three ranks.
    // A run against a reference (the one-process run's deduplicated output, so that every
    // document of the corpus has its copy or its kept near-duplicate there): the same outputs
    // and project over two ranks as in one process, and nothing left to keep but the documents
    // too short to compare (fewer characters than a shingle, never candidates).
    void againstAReferenceGivesIdenticalResults() {
        if (!canLaunch()) QSKIP("MPI not compiled in or mpirun not found");
        const QStringList reference{QStringLiteral("--reference"),
                                    d(QStringLiteral("single/dedup.jsonl"))};
        const Result one = execute(cli(), runArgs(QStringLiteral("ref1"), reference),
                                   QProcessEnvironment::systemEnvironment());
        QVERIFY2(one.code == 0, qPrintable(one.err));
        const Result two = mpirun(2, runArgs(QStringLiteral("ref2"), reference));
        QVERIFY2(two.code == 0, qPrintable(two.err + two.out));
        for (const mpitest::ListOutput& output : kOutputs)
            QVERIFY2(readFile(d(QStringLiteral("ref2/") + QLatin1String(output.file))) ==
                         readFile(d(QStringLiteral("ref1/") + QLatin1String(output.file))),
                     output.file);
        QCOMPARE(projectResults(d(QStringLiteral("ref2.ndw"))),
                 projectResults(d(QStringLiteral("ref1.ndw"))));
        const QString shortNew =
            sqlRows(d(QStringLiteral("ref1.ndw")),
                    "SELECT count(*) FROM documents d JOIN runs r ON r.dataset_id = d.dataset_id "
                    "WHERE r.id = 1 AND d.doc_index >= r.reference_documents AND d.chars < 5");
        const qsizetype kept = readFile(d(QStringLiteral("ref1/kept.txt"))).count('\n');
        QCOMPARE(QString::number(kept) + QLatin1Char('\n'), shortNew);
        QCOMPARE(kept + readFile(d(QStringLiteral("ref1/removed.txt"))).count('\n'),
                 readFile(d(QStringLiteral("corpus.jsonl"))).count('\n'));
    }

    void moreRanksThanDocuments() {
        if (!canLaunch()) QSKIP("MPI not compiled in or mpirun not found");
        QFile tiny(d(QStringLiteral("tiny.jsonl")));
        QVERIFY(tiny.open(QIODevice::WriteOnly));
        tiny.write(
            "{\"id\":\"a\",\"text\":\"the quick brown fox jumps over the lazy dog\"}\n"
            "{\"id\":\"b\",\"text\":\"the quick brown fox jumps over the lazy dog\"}\n");
        tiny.close();
        auto args = [&](const QString& name) {
            QDir(dir_.path()).mkpath(name);
            return QStringList{QStringLiteral("run"),
                               tiny.fileName(),
                               QStringLiteral("-p"),
                               d(name + QStringLiteral(".ndw")),
                               QStringLiteral("-j"),
                               QStringLiteral("1"),
                               QStringLiteral("-q"),
                               QStringLiteral("--out-removed"),
                               d(name + QStringLiteral("/removed.txt"))};
        };
        const Result single =
            execute(cli(), args(QStringLiteral("tiny1")), QProcessEnvironment::systemEnvironment());
        QCOMPARE(single.code, 0);
        const Result r = mpirun(3, args(QStringLiteral("tiny3")));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.ms < 30000, qPrintable(QString::number(r.ms)));
        QCOMPARE(readFile(d(QStringLiteral("tiny3/removed.txt"))), QByteArray("b\n"));
        QCOMPARE(readFile(d(QStringLiteral("tiny1/removed.txt"))), QByteArray("b\n"));
    }

    void perRankTimingsAreStored() {
        if (!canLaunch()) QSKIP("MPI not compiled in or mpirun not found");
        const QString db = d(QStringLiteral("np3.ndw"));
        // One row per rank and phase; ranks 1 and 2 read chunks (documents and input bytes),
        // and the counts add up.
        QCOMPARE(sqlRows(db,
                         "SELECT group_concat(worker) FROM (SELECT DISTINCT worker FROM "
                         "worker_phases ORDER BY worker)"),
                 QStringLiteral("0,1,2\n"));
        QCOMPARE(sqlRows(db,
                         "SELECT COUNT(*) FROM worker_phases WHERE phase = 'signatures' AND "
                         "items > 0 AND bytes > 0 AND worker > 0 AND label LIKE 'rank %'"),
                 QStringLiteral("2\n"));
        QCOMPARE(sqlRows(db, "SELECT SUM(items) FROM worker_phases WHERE phase = 'signatures'"),
                 sqlRows(db, "SELECT documents FROM runs"));
        QCOMPARE(sqlRows(db, "SELECT SUM(bytes) FROM worker_phases WHERE phase = 'signatures'"),
                 sqlRows(db, "SELECT input_bytes FROM datasets"));
        // With only the hashing spread, every rank signs a share.
        QCOMPARE(sqlRows(d(QStringLiteral("np3r.ndw")),
                         "SELECT COUNT(*) FROM worker_phases WHERE phase = 'signatures' AND "
                         "items > 0"),
                 QStringLiteral("3\n"));
        QCOMPARE(sqlRows(db, "SELECT SUM(items) FROM worker_phases WHERE phase = 'compare'"),
                 sqlRows(db, "SELECT candidate_pairs FROM runs"));
    }

    void failingRankStopsTheJob_data() {
        QTest::addColumn<QString>("phase");
        QTest::newRow("reading") << QStringLiteral("signatures");
        QTest::newRow("compare") << QStringLiteral("compare");
    }

    void failingRankStopsTheJob() {
        if (!canLaunch()) QSKIP("MPI not compiled in or mpirun not found");
        QFETCH(QString, phase);
        QProcessEnvironment env = mpiEnvironment();
        env.insert(QStringLiteral("NEARDUP_MPI_TEST_FAIL"),
                   QStringLiteral("2:%1:throw").arg(phase));
        const QString name = QStringLiteral("failed-") + phase;
        const Result r = mpirun(3, runArgs(name), env);
        QVERIFY(r.code != 0);
        QVERIFY2(r.ms < 30000, qPrintable(QString::number(r.ms)));
        QVERIFY2(r.err.contains(QStringLiteral("rank 2 (")) &&
                     r.err.contains(QStringLiteral("injected failure")),
                 qPrintable(r.err));
        const QString db = d(name + QStringLiteral(".ndw"));
        QCOMPARE(sqlRows(db, "PRAGMA integrity_check"), QStringLiteral("ok\n"));
        QCOMPARE(sqlRows(db, "SELECT status, error LIKE '%rank 2 (%injected failure%' FROM runs"),
                 QStringLiteral("failed|1\n"));
        QVERIFY(!QFile::exists(d(name + QStringLiteral("/kept.txt"))));
    }

    void killedRankStopsTheJob_data() {
        QTest::addColumn<QString>("how");
        QTest::newRow("reading") << QStringLiteral("2:signatures:kill");
        QTest::newRow("compare") << QStringLiteral("1:compare:kill");
    }

    void killedRankStopsTheJob() {
        if (!canLaunch()) QSKIP("MPI not compiled in or mpirun not found");
        QFETCH(QString, how);
        QProcessEnvironment env = mpiEnvironment();
        env.insert(QStringLiteral("NEARDUP_MPI_TEST_FAIL"), how);
        const QString name = QStringLiteral("killed-") + how.section(QLatin1Char(':'), 1, 1);
        const Result r = mpirun(3, runArgs(name), env);
        QVERIFY(r.code != 0);
        QVERIFY2(r.ms < 30000, qPrintable(QString::number(r.ms)));
        // mpirun names the rank and the signal.
        QVERIFY2(r.err.contains(QStringLiteral("rank ") + how.left(1)), qPrintable(r.err));
        // mpirun then stops rank 0 (SIGTERM, SIGKILL a second later): the run is marked
        // interrupted by rank 0 itself, or, when it had no time to, by the stale-run recovery
        // the next time the project is opened to be written (a run, export, the workbench).
        // Either way the project is intact (opening it also rolls back a transaction the kill
        // cut short: its journal is "hot").
        const QString db = d(name + QStringLiteral(".ndw"));
        // The launcher may return while rank 0 is still being stopped: its run lock is then
        // still held, and a lock held is a live run that the recovery leaves alone (under load,
        // rank 0 killed while reading had no row yet, and the first reopening found none).
        // The project is reopened until the run is marked, as the next run, export or
        // workbench session after the process ended would find it.
        QElapsedTimer waited;
        waited.start();
        QString status;
        for (;;) {
            try {
                neardup::ProjectStore reopened(db.toStdString());
                reopened.recoverStaleRuns();
                status = sqlRows(db, "SELECT status FROM runs");
                if (status == QStringLiteral("interrupted\n")) break;
                QVERIFY2(waited.elapsed() < 10000, qPrintable(QStringLiteral("runs: ") + status));
            } catch (const neardup::StoreError& e) {
                QVERIFY2(waited.elapsed() < 10000, e.what());
            }
            QTest::qWait(200);
        }
        QCOMPARE(sqlRows(db, "PRAGMA integrity_check"), QStringLiteral("ok\n"));
        QCOMPARE(status, QStringLiteral("interrupted\n"));
        QVERIFY(!QFile::exists(d(name + QStringLiteral("/kept.txt"))));
    }
};

QTEST_GUILESS_MAIN(TestMpi)
#include "test_mpi.moc"
