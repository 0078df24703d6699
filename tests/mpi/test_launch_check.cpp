// Launched as cluster users launch it: copies of `neardup run` that srun starts side by side
// without MPI (no --mpi, MpiDefault=none), or that an MPI launcher starts in a build without MPI,
// are refused on every task with exit 2 and a line saying how to launch the job, before any of
// them opens the project; a batch script's or an salloc shell's single process (the
// allocation's SLURM_NTASKS set, no step) runs as usual. The decision is checked as a function
// of the environment, as Slurm 22.05 sets it (srun, sbatch, salloc, mpirun inside an
// allocation), and once through the CLI with the environment faked.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <string>

#include "mpi_job.h"
#include "test_support.h"

namespace {

using neardup::mpi::checkJobSize;
using neardup::mpi::checkLaunch;
using neardup::mpi::LaunchCheck;
using neardup::mpi::LaunchInfo;
using Env = std::map<std::string, std::string>;
using Action = LaunchCheck::Action;

LaunchInfo infoOf(const Env& env) {
    return neardup::mpi::launchInfo([&env](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    });
}

// What srun -n 3 sets in task 1 of step 0 (and SLURM_NTASKS, which srun sets to the step's).
const Env kSrunTask1{
    {"SLURM_JOB_ID", "7"},         {"SLURM_STEP_ID", "0"}, {"SLURM_STEPID", "0"},
    {"SLURM_STEP_NUM_TASKS", "3"}, {"SLURM_NTASKS", "3"},  {"SLURM_NPROCS", "3"},
    {"SLURM_PROCID", "1"},         {"SLURM_LOCALID", "1"}, {"SLURM_STEP_TASKS_PER_NODE", "3"}};
// A batch script of a job with 3 tasks, and an salloc shell: no step, one process.
const Env kBatch{{"SLURM_JOB_ID", "7"},
                 {"SLURM_NTASKS", "3"},
                 {"SLURM_NPROCS", "3"},
                 {"SLURM_PROCID", "0"},
                 {"SLURM_LOCALID", "0"}};
const Env kSalloc{{"SLURM_JOB_ID", "7"}, {"SLURM_NTASKS", "3"}};

Env with(Env env, const Env& more) {
    for (const auto& [k, v] : more)
        env[k] = v;
    return env;
}

}  // namespace

class TestLaunchCheck : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    // The CLI with exactly these launcher variables: every Slurm, Open MPI and PMI variable of
    // the test's own environment removed first (the suite may itself run inside a job).
    testsupport::CliResult runWith(const Env& launcher, const QStringList& args) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString& key : env.keys())
            if (key.startsWith(QStringLiteral("SLURM_")) ||
                key.startsWith(QStringLiteral("OMPI_")) || key.startsWith(QStringLiteral("PMI")))
                env.remove(key);
        for (const auto& [k, v] : launcher)
            env.insert(testsupport::q(k), testsupport::q(v));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(testsupport::cliPath(), args);
        if (!p.waitForFinished(60000)) {
            p.kill();
            p.waitForFinished();
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        testsupport::writeFile(path("in.jsonl").toStdString(),
                               "{\"id\":\"a\",\"text\":\"the quick brown fox jumps over it\"}\n"
                               "{\"id\":\"b\",\"text\":\"the quick brown fox jumps over it\"}\n"
                               "{\"id\":\"c\",\"text\":\"something else entirely, unrelated\"}\n");
    }

    void outsideAnyLauncherRunsAlone() {
        for (const bool mpi : {true, false}) {
            QCOMPARE(checkLaunch(infoOf({}), mpi).action, Action::Single);
            QCOMPARE(checkLaunch(infoOf(kBatch), mpi).action, Action::Single);
            QCOMPARE(checkLaunch(infoOf(kSalloc), mpi).action, Action::Single);
            // srun -n 1, in a batch script or an salloc shell.
            const Env one =
                with(kSrunTask1,
                     {{"SLURM_STEP_NUM_TASKS", "1"}, {"SLURM_NTASKS", "1"}, {"SLURM_PROCID", "0"}});
            QCOMPARE(checkLaunch(infoOf(one), mpi).action, Action::Single);
        }
        // The step counts only with a step id that is a number: the batch script's and the
        // extern and interactive steps' ids are words or 0xfffffffa and up.
        for (const char* special : {"batch", "extern", "interactive", "4294967291", "4294967290"}) {
            const Env env =
                with(kSrunTask1, {{"SLURM_STEP_ID", special}, {"SLURM_STEPID", special}});
            QCOMPARE(infoOf(env).stepTasks, 0);
            QCOMPARE(checkLaunch(infoOf(env), true).action, Action::Single);
        }
    }

    void srunWithoutMpiIsRefusedOnEveryTask() {
        for (const char* task : {"0", "1", "2"}) {
            const LaunchInfo info = infoOf(with(kSrunTask1, {{"SLURM_PROCID", task}}));
            QVERIFY(!info.underLauncher);
            QCOMPARE(info.stepTasks, 3);
            const LaunchCheck c = checkLaunch(info, true);
            QCOMPARE(c.action, Action::Refuse);
            QVERIFY2(c.message.find(std::string("task ") + task + " of 3") != std::string::npos,
                     c.message.c_str());
            QVERIFY2(c.message.find("srun --mpi=pmix") != std::string::npos, c.message.c_str());
            QVERIFY2(c.message.find("mpirun") != std::string::npos, c.message.c_str());
            QVERIFY(c.message.find('\n') == std::string::npos);
            const LaunchCheck without = checkLaunch(info, false);
            QCOMPARE(without.action, Action::Refuse);
            QVERIFY2(without.message.find("not compiled in") != std::string::npos,
                     without.message.c_str());
        }
        // Older Slurm sets only SLURM_STEPID.
        Env old = kSrunTask1;
        old.erase("SLURM_STEP_ID");
        QCOMPARE(checkLaunch(infoOf(old), true).action, Action::Refuse);
    }

    void mpiLaunchersStartAJob() {
        // srun --mpi=pmix: PMIx's rank, the step's size.
        const LaunchInfo pmix = infoOf(with(kSrunTask1, {{"PMIX_RANK", "1"}}));
        QVERIFY(pmix.underLauncher);
        QCOMPARE(pmix.rank, 1);
        QCOMPARE(pmix.size, 3);
        QCOMPARE(checkLaunch(pmix, true).action, Action::StartJob);
        QCOMPARE(checkLaunch(pmix, false).action, Action::Refuse);
        // PMIx outside a Slurm step: the size is unknown (not the allocation's SLURM_NTASKS).
        QCOMPARE(infoOf(with(kBatch, {{"PMIX_RANK", "0"}})).size, 0);
        // mpirun inside a batch script: its ranks keep the allocation's variables; on several
        // nodes they inherit the step of the daemons mpirun started through srun, one per node.
        const Env ompi{{"OMPI_COMM_WORLD_SIZE", "3"}, {"OMPI_COMM_WORLD_RANK", "2"}};
        for (const Env& base : {kBatch, with(kSrunTask1, {{"SLURM_STEP_NUM_TASKS", "2"}})}) {
            const LaunchInfo info = infoOf(with(base, ompi));
            QCOMPARE(info.size, 3);
            QCOMPARE(info.rank, 2);
            QCOMPARE(checkLaunch(info, true).action, Action::StartJob);
            const LaunchCheck without = checkLaunch(info, false);
            QCOMPARE(without.action, Action::Refuse);
            QVERIFY2(without.message.find("rank 2 of 3") != std::string::npos,
                     without.message.c_str());
        }
        // One rank without MPI compiled in: an ordinary run.
        const Env single{{"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_RANK", "0"}};
        QCOMPARE(checkLaunch(infoOf(single), false).action, Action::Single);
    }

    void aJobOfOneWhereTheLauncherStartedSeveralIsRefused() {
        const LaunchInfo pmix = infoOf(with(kSrunTask1, {{"PMIX_RANK", "1"}}));
        const std::string refused = checkJobSize(pmix, 1);
        QVERIFY2(refused.find("srun --mpi=pmix") != std::string::npos, refused.c_str());
        QVERIFY(checkJobSize(pmix, 3).empty());
        QVERIFY(checkJobSize(infoOf(with(kBatch, {{"PMIX_RANK", "0"}})), 1).empty());
        QVERIFY(
            checkJobSize(infoOf({{"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_RANK", "0"}}), 1)
                .empty());
    }

    void theCliRefusesBeforeOpeningTheProject() {
        const Env task1{
            {"SLURM_STEP_NUM_TASKS", "3"}, {"SLURM_PROCID", "1"}, {"SLURM_STEPID", "0"}};
        const testsupport::CliResult r =
            runWith(task1, {QStringLiteral("run"), path("in.jsonl"), QStringLiteral("-p"),
                            path("refused.ndw"), QStringLiteral("--out-kept"), path("kept.txt")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("srun --mpi=pmix")), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY(!QFile::exists(path("refused.ndw")));
        QVERIFY(!QFile::exists(path("refused.ndw.d")));
        QVERIFY(!QFile::exists(path("kept.txt")));
    }

    void theCliRunsInABatchScript() {
        const testsupport::CliResult r =
            runWith(kBatch, {QStringLiteral("run"), path("in.jsonl"), QStringLiteral("-p"),
                             path("batch.ndw"), QStringLiteral("-q"), QStringLiteral("--out-kept"),
                             path("batch-kept.txt")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(testsupport::readFile(path("batch-kept.txt").toStdString()),
                 std::string("a\nc\n"));
    }
};

QTEST_GUILESS_MAIN(TestLaunchCheck)
#include "test_launch_check.moc"
