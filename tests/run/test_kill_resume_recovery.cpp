// What is left when processes die, found and cleaned on the next open: dead runs' locks and
// temporaries (live ones are kept), an end recorded once, and the parameters a run lock records.
// A sidecar that is a link or another user's is refused and left untouched; links planted in a
// real sidecar under this program's names are never followed; a run is resumed by one process at
// a time. (Interrupted saves and read checkpoints: test_kill_resume_checkpoint.cpp.)
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/types.h>
#include <unistd.h>

#include <QTest>

#include <fstream>

#include "kill_resume_fixture.h"
#include "run_record_file.h"
#include "sidecar.h"

namespace {

// A dead run lock as a killed `neardup run` leaves it (pid 999999), for run `runId` (0: killed
// before its row).
std::string deadLock(int64_t runId) {
    return R"({"format":1,"pid":999999,"run":)" + std::to_string(runId) +
           R"(,"started_at":"2026-01-05T00:00:00.000Z","inputs":["/nowhere/a.jsonl"],)"
           R"("on_error":"skip","chunk_bytes":4194304,"memory_budget":1048576,"work_dir":"",)"
           R"("params":)" +
           neardup::toJson(neardup::RunParams{}) + "}";
}

// A project with one dataset and a run still marked running; returns the run's id.
int64_t projectWithRunningRun(const std::string& project) {
    neardup::ProjectStore store(project);
    neardup::DatasetRecord dataset;
    dataset.linesRead = 1;
    neardup::DocumentTable docs;
    docs.append(0, 1, 0, 10, 10, 0.0, "a");
    neardup::RunResult run;
    run.datasetId = store.saveDataset(dataset, docs);
    run.startedAt = "2026-01-05T00:00:00.000Z";
    run.backend = "cpu";
    return store.beginRun(run);
}

// Every file under `dir` (links not followed) with its content or link target: what must not
// change.
QStringList snapshot(const std::string& dir) {
    QStringList out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string rel = fs::relative(it->path(), dir).string();
        if (it->is_symlink(ec))
            out << q(rel + " -> " + fs::read_symlink(it->path(), ec).string());
        else if (it->is_regular_file(ec))
            out << q(rel + " = " + readFile(it->path().string()));
        else
            out << q(rel + "/");
    }
    out.sort();
    return out;
}

// The folder the hostile tester's link points to: leftovers of every kind under this program's
// names, and a dead lock so that the recovery has a killed run to deal with.
void fillLikeASidecar(const std::string& dir, int64_t runId) {
    fs::create_directories(dir + "/backup.tmp.1");
    std::ofstream(dir + "/backup.tmp.1/inner") << "inner";
    fs::create_directories(dir + "/work-7-data");
    std::ofstream(dir + "/work-7-data/spill") << "spill";
    std::ofstream(dir + "/notes.tmp.42") << "notes";
    std::ofstream(dir + "/.report.html.tmp-999") << "report";
    std::ofstream(dir + "/signatures-old.bin") << "sig";
    std::ofstream(dir + "/checkpoint-notes.txt") << "ckpt";
    std::ofstream(dir + "/run-3.resume") << "resume";
    std::ofstream(dir + "/run-" + std::to_string(runId) + ".lock") << deadLock(runId);
}

}  // namespace

class TestKillResumeRecovery : public KillResumeFixture {
    Q_OBJECT

  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void recoveryFindsDeadLocksOnly() {
        // Deterministic: lock files written by hand. One dead (no process holds it) for a run
        // that never got a row, one dead for a running row, one held by this process (live).
        const std::string project = path("locks.ndw");
        const std::string sidecar = project + ".d";
        int64_t deadRow = 0, liveRow = 0;
        {
            neardup::ProjectStore store(project);
            neardup::DatasetRecord dataset;
            dataset.linesRead = 1;
            neardup::DocumentTable docs;
            docs.append(0, 1, 0, 10, 10, 0.0, "a");
            const int64_t datasetId = store.saveDataset(dataset, docs);
            neardup::RunResult run;
            run.datasetId = datasetId;
            run.startedAt = "2026-01-01T00:00:00.000Z";
            run.backend = "cpu";
            deadRow = store.beginRun(run);
            liveRow = store.beginRun(run);
        }
        const std::string pending =
            R"({"format":1,"pid":999999,"run":0,"started_at":"2026-01-02T00:00:00.000Z",)"
            R"("inputs":["/nowhere/a.jsonl"],"on_error":"fail","chunk_bytes":4194304,)"
            R"("memory_budget":1048576,"work_dir":"","params":)" +
            neardup::toJson([] {
                neardup::RunParams p;
                p.lsh.bands = 8;
                p.signature.seed = 77;
                return p;
            }()) +
            "}";
        fs::create_directories(sidecar);
        std::ofstream(sidecar + "/run-pending-999999-0.lock") << pending;
        std::ofstream(sidecar + "/run-" + std::to_string(deadRow) + ".lock") << pending;
        std::string mine = pending;  // the live lock is this process's
        mine.replace(mine.find("999999"), 6, std::to_string(::getpid()));
        std::ofstream(sidecar + "/run-" + std::to_string(liveRow) + ".lock") << mine;
        const int live =
            ::open((sidecar + "/run-" + std::to_string(liveRow) + ".lock").c_str(), O_RDWR);
        QVERIFY(live >= 0);
        QCOMPARE(::flock(live, LOCK_EX | LOCK_NB), 0);
        // Leftovers of dead processes, and a signature cache no row refers to.
        // (The temporaries as older versions named them, and as AtomicFile names them.)
        std::ofstream(sidecar + "/signatures-9-0123456789abcdef.bin.tmp.999999") << "x";
        std::ofstream(sidecar + "/.signatures-9-0123456789abcdef.bin.tmp-999999") << "x";
        std::ofstream(sidecar + "/.rejections-9.bin.tmp-999999") << "x";
        std::ofstream(sidecar + "/.run-4243.resume.tmp-999999") << "x";
        fs::create_directories(sidecar + "/work-999999-abcdef");
        std::ofstream(sidecar + "/work-999999-abcdef/spill") << "x";
        std::ofstream(sidecar + "/signatures-42-0123456789abcdef.bin") << "x";
        std::ofstream(sidecar + "/run-4242.resume") << pending;  // no such run
        {
            neardup::ProjectStore store(project);
            store.recoverStaleRuns();  // as every opening to write does (run, export, GUI)
            const auto runs = store.listRuns();
            QCOMPARE(runs.size(), std::size_t{3});
            QCOMPARE(runs[0].status, std::string("interrupted"));  // its lock was free
            QCOMPARE(runs[1].status, std::string("running"));      // its lock is held
            QCOMPARE(runs[2].status, std::string("interrupted"));  // killed before its row
            QCOMPARE(runs[2].startedAt, std::string("2026-01-02T00:00:00.000Z"));
            const neardup::RunResult added = store.loadRun(runs[2].runId);
            QCOMPARE(added.error, std::string(neardup::kStaleRunError));
            QCOMPARE(added.params.lsh.bands, 8);
            QCOMPARE(added.params.signature.seed, uint64_t{77});
            // The latest unfinished run, with the execution options of its record.
            const auto rec = neardup::findResumable(store);
            QVERIFY(rec.has_value());
            QCOMPARE(rec->runId, runs[2].runId);
            QCOMPARE(rec->inputs, std::vector<std::string>{"/nowhere/a.jsonl"});
            QVERIFY(rec->params.reader.onError == neardup::OnError::Fail);
            QCOMPARE(rec->params.memoryBudget, uint64_t{1048576});
            QCOMPARE(rec->params.lsh.bands, 8);
        }
        // Dead processes' temporaries and records of missing runs are gone; the unreferenced
        // signature cache stays while a run is live (it may be about to record it).
        QStringList expected{QStringLiteral("run-%1.lock").arg(liveRow),
                             QStringLiteral("run-%1.resume").arg(deadRow),
                             QStringLiteral("run-%1.resume").arg(liveRow + 1),
                             QStringLiteral("signatures-42-0123456789abcdef.bin"),
                             QStringLiteral("sweep.lock")};
        expected.sort();
        QCOMPARE(matching(sidecar, ".*"), expected);
        // Once the live process ends, its run is found too, and the cache is removed.
        ::close(live);
        neardup::ProjectStore store(project);
        store.recoverStaleRuns();  // as every opening to write does (run, export, GUI)
        QCOMPARE(store.loadRun(liveRow).status, std::string("interrupted"));
        expected = QStringList{QStringLiteral("run-%1.resume").arg(deadRow),
                               QStringLiteral("run-%1.resume").arg(liveRow),
                               QStringLiteral("run-%1.resume").arg(liveRow + 1),
                               QStringLiteral("sweep.lock")};
        expected.sort();
        QCOMPARE(matching(sidecar, ".*"), expected);
    }

    // A process that recorded its own end (interrupted by the launcher's SIGTERM) and was
    // killed before its lock was renamed after the row: recovery finds that row by its start
    // time and adds no second one.
    void recoveryDoesNotDuplicateARecordedEnd() {
        const std::string project = path("recorded-end.ndw");
        const std::string sidecar = project + ".d";
        int64_t row = 0;
        {
            neardup::ProjectStore store(project);
            neardup::DatasetRecord dataset;
            dataset.linesRead = 1;
            neardup::DocumentTable docs;
            docs.append(0, 1, 0, 10, 10, 0.0, "a");
            neardup::RunResult run;
            run.datasetId = store.saveDataset(dataset, docs);
            run.startedAt = "2026-01-03T00:00:00.000Z";
            run.backend = "cpu";
            row = store.beginRun(run);
            store.markRun(row, "interrupted", "cancelled by the user");
        }
        const std::string pending =
            R"({"format":1,"pid":999999,"run":0,"started_at":"2026-01-03T00:00:00.000Z",)"
            R"("inputs":["/nowhere/a.jsonl"],"on_error":"skip","chunk_bytes":4194304,)"
            R"("memory_budget":1048576,"work_dir":"","params":)" +
            neardup::toJson(neardup::RunParams{}) + "}";
        fs::create_directories(sidecar);
        std::ofstream(sidecar + "/run-pending-999999-0.lock") << pending;
        neardup::ProjectStore store(project);
        store.recoverStaleRuns();  // as every opening to write does (run, export, GUI)
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), std::size_t{1});
        QCOMPARE(runs[0].runId, row);
        QCOMPARE(store.loadRun(row).error, std::string("cancelled by the user"));
        QVERIFY(matching(sidecar, R"(run-pending-.*)").isEmpty());
    }

    // The hostile tester's case: "P.ndw.d" is a link to someone's folder holding names this
    // program sweeps. The recovery is refused (saying why), deletes nothing, and the run stays
    // as it was; export says the sidecar is a link and writes nothing.
    void symlinkedSidecarIsRefused() {
        const std::string project = path("evil.ndw");
        const std::string target = path("evil-target");
        std::ofstream(path("evil.jsonl")) << R"({"id":"a","text":"one two three four five"})"
                                          << "\n"
                                          << R"({"id":"b","text":"one two three four five"})"
                                          << "\n";
        QCOMPARE(runToEnd({QStringLiteral("run"), q(path("evil.jsonl")), QStringLiteral("-p"),
                           q(project), QStringLiteral("-q")}),
                 0);
        fs::remove_all(project + ".d");
        const int64_t killed = projectWithRunningRun(project);
        fillLikeASidecar(target, killed);
        QCOMPARE(::symlink(target.c_str(), (project + ".d").c_str()), 0);
        const QStringList before = snapshot(target);
        QVERIFY(before.size() >= 10);
        {
            neardup::ProjectStore store(project);
            bool refused = false;
            try {
                store.recoverStaleRuns();
            } catch (const neardup::SidecarRefused& e) {
                refused = std::string(e.what()).find("symbolic link") != std::string::npos;
            }
            QVERIFY(refused);
            neardup::recoverStaleRuns(store);  // the quiet form touches nothing either
            QVERIFY_THROWS_EXCEPTION(neardup::SidecarRefused, neardup::findResumable(store));
            QVERIFY(store.writeProblem().find("symbolic link") != std::string::npos);
            QCOMPARE(store.loadRun(killed).status, std::string("running"));
        }
        QString err;
        QCOMPARE(runToEnd({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                           QStringLiteral("--run"), QStringLiteral("1"),
                           QStringLiteral("--out-jsonl"), q(path("evil-out.jsonl"))},
                          &err),
                 1);
        QVERIFY2(err.contains(QStringLiteral("symbolic link")), qPrintable(err));
        QVERIFY(!fs::exists(path("evil-out.jsonl")));
        QCOMPARE(runToEnd({QStringLiteral("run"), q(path("evil.jsonl")), QStringLiteral("-p"),
                           q(project), QStringLiteral("-q")},
                          &err),
                 1);
        QVERIFY2(err.contains(QStringLiteral("symbolic link")), qPrintable(err));
        QCOMPARE(runToEnd({QStringLiteral("run"), QStringLiteral("--resume"), QStringLiteral("-p"),
                           q(project)},
                          &err),
                 1);
        QVERIFY2(err.contains(QStringLiteral("symbolic link")), qPrintable(err));
        QCOMPARE(snapshot(target), before);
        QVERIFY(fs::is_symlink(project + ".d"));
    }

    // A sidecar owned by another user is refused the same way (needs root to give it away).
    void sidecarOfAnotherUserIsRefused() {
        if (::geteuid() != 0) QSKIP("needs root, to give a folder to another user");
        const std::string project = path("theirs.ndw");
        const int64_t killed = projectWithRunningRun(project);
        fs::create_directories(project + ".d");
        std::ofstream(project + ".d/run-" + std::to_string(killed) + ".lock") << deadLock(killed);
        std::ofstream(project + ".d/.out.tmp-999999") << "x";
        const uid_t other = 54321;  // no such account is needed to own a folder
        QCOMPARE(::chown((project + ".d").c_str(), other, other), 0);
        const QStringList before = snapshot(project + ".d");
        neardup::ProjectStore store(project);
        bool refused = false;
        try {
            store.recoverStaleRuns();
        } catch (const neardup::SidecarRefused& e) {
            refused = std::string(e.what()).find("another user (uid 54321)") != std::string::npos;
        }
        QVERIFY(refused);
        QVERIFY_THROWS_EXCEPTION(neardup::SidecarRefused, neardup::Sidecar::open(project, true));
        QCOMPARE(store.loadRun(killed).status, std::string("running"));
        QCOMPARE(snapshot(project + ".d"), before);
        // Not a folder at all.
        const std::string file = path("file.ndw");
        projectWithRunningRun(file);
        std::ofstream(file + ".d") << "not a folder";
        QVERIFY_THROWS_EXCEPTION(neardup::SidecarRefused, neardup::Sidecar::open(file, true));
    }

    // A real sidecar holding links under the names the recovery sweeps (a temporary of a dead
    // process, a spill folder, an orphan cache, a checkpoint, a resume record of no run, a
    // dead lock): what they point to is never touched, and the dead run is still recovered.
    void linksInTheSidecarAreNotFollowed() {
        const std::string project = path("links.ndw");
        const std::string sidecar = project + ".d";
        const std::string outside = path("links-outside");
        const int64_t killed = projectWithRunningRun(project);
        fs::create_directories(sidecar);
        fs::create_directories(outside + "/folder");
        std::ofstream(outside + "/folder/precious") << "folder's";
        std::ofstream(outside + "/victim") << "victim's";
        std::ofstream(outside + "/lock") << deadLock(7);
        std::ofstream(sidecar + "/run-" + std::to_string(killed) + ".lock") << deadLock(killed);
        const std::string victim = outside + "/victim";
        for (const char* name : {".out.jsonl.tmp-999999", "x.tmp.999999", "signatures-1-00.bin",
                                 "checkpoint-0000000000000000.bin", "run-4242.resume"})
            QCOMPARE(::symlink(victim.c_str(), (sidecar + "/" + name).c_str()), 0);
        QCOMPARE(::symlink((outside + "/folder").c_str(), (sidecar + "/work-999999-x").c_str()), 0);
        QCOMPARE(::symlink((outside + "/lock").c_str(), (sidecar + "/run-7.lock").c_str()), 0);
        const QStringList before = snapshot(outside);
        {
            neardup::ProjectStore store(project);
            store.recoverStaleRuns();
            QCOMPARE(store.loadRun(killed).status, std::string("interrupted"));
        }
        QCOMPARE(snapshot(outside), before);
        QVERIFY(fs::is_regular_file(sidecar + "/run-" + std::to_string(killed) + ".resume"));
    }

    // One resume per run: while a process holds the run, a second claim (in this process or in
    // another, `neardup run --resume`) is refused naming the holder's pid; once the holder is
    // gone, the run can be resumed again.
    void aRunIsResumedOnce() {
        const std::string project = path("once.ndw");
        const int64_t killed = projectWithRunningRun(project);
        fs::create_directories(project + ".d");
        std::ofstream(project + ".d/run-" + std::to_string(killed) + ".lock") << deadLock(killed);
        neardup::ProjectStore store(project);
        const auto rec = neardup::findResumable(store);
        QVERIFY(rec.has_value());
        QCOMPARE(rec->runId, killed);
        const std::string pid = std::to_string(::getpid());
        {
            const neardup::ResumeClaim first(store, killed);
            bool refused = false;
            try {
                const neardup::ResumeClaim second(store, killed);
            } catch (const neardup::StoreError& e) {
                refused = std::string(e.what()).find("being resumed by process " + pid) !=
                          std::string::npos;
            }
            QVERIFY(refused);
            QString err;
            QCOMPARE(runToEnd({QStringLiteral("run"), QStringLiteral("--resume"),
                               QStringLiteral("-p"), q(project)},
                              &err),
                     1);
            QVERIFY2(err.contains(q("being resumed by process " + pid)), qPrintable(err));
            // The refused process left the claim and the record as they were.
            QVERIFY(fs::exists(project + ".d/run-" + std::to_string(killed) + ".resuming"));
            QVERIFY(fs::exists(project + ".d/run-" + std::to_string(killed) + ".resume"));
        }
        QVERIFY(!fs::exists(project + ".d/run-" + std::to_string(killed) + ".resuming"));
        { const neardup::ResumeClaim again(store, killed); }
        // A resume that finished took the record with it: nothing left to claim.
        neardup::forgetResumable(store, killed);
        QVERIFY_THROWS_EXCEPTION(neardup::StoreError, neardup::ResumeClaim(store, killed));
    }

    void lockRecordsParameters() {
        neardup::RunParams p;
        p.reader.textField = "meta.body";
        p.reader.idField = "uid";
        p.signature.normalize.nfc = false;
        p.signature.normalize.trim = false;
        p.signature.shingle = neardup::ShingleKind::Word;
        p.signature.ngram = 3;
        p.signature.hashes = 96;
        p.signature.family = neardup::HashFamily::Rolling;
        p.signature.sketch = neardup::SketchKind::Oph;
        p.signature.seed = 123456789012345ull;
        p.lsh.bands = 12;
        p.lsh.rows = 8;
        p.lsh.scheme = neardup::BandKeyScheme::Sum;
        p.lsh.bucketMode = neardup::BucketMode::Fixed;
        p.lsh.buckets = 999;
        p.compare.threshold = 0.73;
        p.compare.storeFloor = 0.41;
        p.compare.verify = neardup::VerifyMode::Exact;
        p.keep = neardup::KeepPolicy::MaxField;
        p.reader.keepField = "score";
        p.threads = 3;
        p.backend = "cpu";
        neardup::RunParams back;
        QVERIFY(neardup::paramsFromJson(neardup::toJson(p), back));
        QCOMPARE(neardup::toJson(back), neardup::toJson(p));
        QCOMPARE(back.reader.keepField, std::string("score"));
        QVERIFY(!neardup::paramsFromJson("{\"text_field\": 1}", back));
        QVERIFY(!neardup::paramsFromJson("not json", back));
    }
};

QTEST_GUILESS_MAIN(TestKillResumeRecovery)
#include "test_kill_resume_recovery.moc"
