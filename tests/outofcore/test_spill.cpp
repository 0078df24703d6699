// Out-of-core runs: identical results with and without spilling, the project recording the
// spill, signatures cached from and streamed beyond the budget, spill files removed however the
// run ends, and the command line's --memory-budget. (The comparison's work on large buckets:
// test_spill_compare.cpp.)
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine_fixture.h"
#include "memory_budget.h"
#include "pipeline.h"
#include "run_compare.h"
#include "sqlite_handle.h"
#include "test_outputs.h"
#include "test_support.h"

using namespace neardup;
using testsupport::readFile;

namespace {

constexpr uint64_t kUnlimited = uint64_t{1} << 40;

// Entries of a directory (names), empty when it does not exist.
std::vector<std::string> listDir(const std::string& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        names.push_back(e.path().filename().string());
    return names;
}

struct Watcher : PipelineObserver {
    std::vector<std::string> messages;
    std::string workParent;              // listed when spilling starts
    std::vector<std::string> duringRun;  // what workParent held then
    std::string cancelAtPhase;
    std::atomic<bool>* cancel = nullptr;
    void info(const std::string& m) override {
        messages.push_back(m);
        if (m.find("spilling") != std::string::npos && !workParent.empty()) {
            duringRun.clear();  // work directories only: <project>.d also holds run locks
            for (const auto& name : listDir(workParent))
                if (name.rfind("work-", 0) == 0) duringRun.push_back(name);
        }
    }
    void phaseStarted(const std::string& phase) override {
        if (cancel && phase == cancelAtPhase) cancel->store(true);
    }
    bool said(const std::string& part) const {
        for (const auto& m : messages)
            if (m.find(part) != std::string::npos) return true;
        return false;
    }
    std::size_t partitions() const {
        for (const auto& m : messages)
            if (m.rfind("out-of-core comparison: up to ", 0) == 0)
                return std::stoul(m.substr(std::string("out-of-core comparison: up to ").size()));
        return 0;
    }
    // From the same message: the documents of components larger than a pass, or -1 if absent.
    long long largeComponentDocuments() const {
        const std::string marker = " documents in components larger than a pass";
        for (const auto& m : messages) {
            const auto at = m.find(marker);
            if (m.rfind("out-of-core comparison: ", 0) != 0 || at == std::string::npos) continue;
            const auto from = m.rfind(", ", at);
            return std::stoll(m.substr(from + 2, at - from - 2));
        }
        return -1;
    }
};

}  // namespace

class TestSpill : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_;
    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

    RunResult runOnce(const std::string& project, const RunParams& params,
                      const ExportOptions& out = {}, PipelineObserver* observer = nullptr,
                      const std::atomic<bool>* cancel = nullptr) {
        ProjectStore store(project);
        auto backend = makeCpuBackend(params.threads);
        Pipeline pipeline(store, *backend, observer, cancel);
        return pipeline.run({corpus_}, params, out);
    }

    ExportOptions outputs(const std::string& prefix) const {
        return testsupport::documentOutputs(dir_.path().toStdString(), prefix);
    }

    // The signature cache file of `project`'s only cache.
    std::string cacheFileOf(const std::string& project) {
        const ProjectStore store(path(project), ProjectStore::Mode::ReadOnly);
        const std::vector<std::string> names = store.signatureCacheFiles();
        if (names.size() != 1) return {};
        return testsupport::readFile(path(project) + ".d/" + names[0]);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        testsupport::writeGeneratedCorpus(corpus_,
                                          {.documents = 3000, .seed = 17, .meanChars = 300});
        std::ofstream out(corpus_, std::ios::binary | std::ios::app);
        // Large buckets: 300 exact copies of one text and 150 near copies of another, each
        // with one word replaced, so a bucket outgrows any pass of a tiny budget.
        std::string base;
        for (int w = 0; w < 60; ++w)
            base += "word" + std::to_string(w * 7919 % 1000) + " ";
        for (int i = 0; i < 300; ++i)
            out << "{\"id\": \"copy-" << i << "\", \"text\": \"" << base << "\"}\n";
        for (int i = 0; i < 150; ++i) {
            std::string text = "near " + base;
            text.replace(text.find("word"), 4, "w" + std::to_string(i));
            out << "{\"id\": \"near-" << i << "\", \"text\": \"" << text << "\"}\n";
        }
    }

    // The same pairs, scores, clusters, bucket statistics and output files whether signatures
    // stay in memory or spill (one partition, or several with passes smaller than a bucket).
    void identicalWithAndWithoutSpill_data() {
        QTest::addColumn<QString>("budget");
        QTest::addColumn<int>("scheme");
        QTest::addColumn<int>("verify");
        QTest::newRow("1M hash exact") << QStringLiteral("1M") << 0 << 1;
        QTest::newRow("320K hash exact") << QStringLiteral("320K") << 0 << 1;
        QTest::newRow("320K sum auto") << QStringLiteral("320K") << 1 << 0;
        QTest::newRow("1M verify exact") << QStringLiteral("1M") << 0 << 2;
    }
    void identicalWithAndWithoutSpill() {
        QFETCH(QString, budget);
        QFETCH(int, scheme);
        QFETCH(int, verify);
        RunParams params;
        params.threads = 2;
        params.lsh.scheme = scheme ? BandKeyScheme::Sum : BandKeyScheme::Hash;
        params.lsh.bucketMode = scheme ? BucketMode::Auto : BucketMode::Exact;
        params.compare.verify = static_cast<VerifyMode>(verify);
        const std::string tag = QTest::currentDataTag();
        params.memoryBudget = kUnlimited;
        const RunResult inMemory =
            runOnce(path("mem " + tag + ".ndw"), params, outputs("mem " + tag));
        QVERIFY(!inMemory.spilled);
        QCOMPARE(inMemory.spillBytes, uint64_t{0});
        params.memoryBudget = *parseByteSize(budget.toStdString());
        Watcher watcher;
        const RunResult spilled =
            runOnce(path("spill " + tag + ".ndw"), params, outputs("spill " + tag), &watcher);
        QVERIFY(spilled.spilled);
        // Signatures and keys at least: 4 H + 8 b bytes a document.
        QVERIFY(spilled.spillBytes >= spilled.counts.documents * (4 * 128 + 8 * 16));
        QVERIFY(inMemory.counts.removed > 300);
        // A spilled run's result holds only the pairs that can change it when the stored pairs
        // exceed the budget (core/run/pairs_aside.h); the project has them all.
        RunResult spilledAll = spilled;
        spilledAll.pairs = ProjectStore(path("spill " + tag + ".ndw")).loadPairs(spilled.runId);
        testsupport::compareRuns(inMemory, spilledAll);
        for (const char* ext : {".jsonl", ".kept", ".removed", ".clusters"})
            QCOMPARE(readFile(path("spill " + tag + ext)), readFile(path("mem " + tag + ext)));
        if (budget == QStringLiteral("320K")) QVERIFY(watcher.partitions() > 1);
        // These budgets' passes hold the small components but not the 450 copies and near
        // copies, whose component is compared band by band: both ways are checked here.
        QVERIFY(watcher.largeComponentDocuments() >= 450);
    }

    void projectRecordsTheSpill() {
        RunParams params;
        params.memoryBudget = uint64_t{1} << 20;
        ExportOptions out;
        out.summaryJson = path("record.json");
        const RunResult r = runOnce(path("record.ndw"), params, out);
        ProjectStore store(path("record.ndw"));
        const RunResult loaded = store.loadRun(r.runId);
        QVERIFY(loaded.spilled);
        QCOMPARE(loaded.spillBytes, r.spillBytes);
        QVERIFY(loaded.spillBytes > 0);
        QCOMPARE(loaded.memoryBudget, uint64_t{1} << 20);
        QVERIFY(loaded.peakRssBytes > 0);
        const std::string summary = readFile(out.summaryJson);
        QVERIFY(summary.find("\"spilled\": true") != std::string::npos);
        QVERIFY(summary.find("\"spill_bytes\": " + std::to_string(r.spillBytes)) !=
                std::string::npos);
        QVERIFY(summary.find("\"memory_budget\": 1048576") != std::string::npos);
        // A run that fits records that it did not spill.
        params.memoryBudget = kUnlimited;
        const RunResult fits = runOnce(path("record.ndw"), params);
        QVERIFY(!store.loadRun(fits.runId).spilled);
    }

    // A signature cache that would not fit is streamed from its file (tests/run/test_reband.cpp
    // compares such a run with one that reads), and results stay the same.
    void cachedSignaturesBeyondTheBudgetAreStreamed() {
        RunParams params;
        params.memoryBudget = kUnlimited;
        // A store floor above the next run's threshold: its pairs cannot be reused there.
        params.compare.threshold = 0.9;
        params.compare.storeFloor = 0.9;
        const RunResult first = runOnce(path("cache.ndw"), params);
        QVERIFY(!first.signaturesReused);
        params.compare.threshold = 0.8;
        params.compare.storeFloor = 0.5;
        params.memoryBudget = uint64_t{1} << 20;
        Watcher watcher;
        const RunResult second = runOnce(path("cache.ndw"), params, {}, &watcher);
        QVERIFY(second.signaturesReused);
        QVERIFY(second.spilled);
        QVERIFY(watcher.said("streaming them from its cache"));
        params.memoryBudget = kUnlimited;
        const RunResult third = runOnce(path("cache.ndw"), params);
        QVERIFY(third.signaturesReused);
        QVERIFY(third.pairsReused);
        QCOMPARE(third.clusterOf, second.clusterOf);
    }

    // A run that spills caches its signatures in the project: its rows' spill file, laid out as
    // the cache, becomes the cache without a copy. The very bytes a run in memory caches, which
    // a later run that fits them reuses, with the same results.
    void spilledRunCachesItsSignatures() {
        RunParams params;
        params.threads = 2;
        params.memoryBudget = kUnlimited;
        const RunResult inMemory = runOnce(path("cached-mem.ndw"), params);
        QVERIFY(!inMemory.spilled);
        params.memoryBudget = uint64_t{1} << 20;
        Watcher watcher;
        const RunResult spilled = runOnce(path("cached-spill.ndw"), params, {}, &watcher);
        QVERIFY(spilled.spilled);
        QVERIFY(watcher.said("the rows' spill file became the cache, without a copy"));
        const std::string memoryCache = cacheFileOf("cached-mem.ndw");
        QVERIFY(memoryCache.size() > 3450 * 128 * 4);
        QVERIFY(memoryCache == cacheFileOf("cached-spill.ndw"));
        // Nothing but the cache and the run's lock was left beside the project.
        for (const auto& name : listDir(path("cached-spill.ndw.d")))
            QVERIFY2(name.rfind("signatures-", 0) == 0 || name == "sweep.lock", name.c_str());

        params.memoryBudget = kUnlimited;
        const RunResult again = runOnce(path("cached-spill.ndw"), params);
        QVERIFY(again.signaturesReused);
        QCOMPARE(again.clusterOf, spilled.clusterOf);
        QCOMPARE(again.removedFor, inMemory.removedFor);
    }

    // Spill files on another file system than the project's cannot be named as its cache:
    // the rows are copied into it, the same bytes.
    void spilledRowsCopiedAcrossFileSystems() {
        const std::string shm = "/dev/shm";
        struct stat a {
        }, b{};
        if (::stat(shm.c_str(), &a) != 0 || ::stat(dir_.path().toStdString().c_str(), &b) != 0 ||
            a.st_dev == b.st_dev)
            QSKIP("no second file system beside the test's directory");
        const QTemporaryDir work(QString::fromStdString(shm + "/neardup-test-XXXXXX"));
        if (!work.isValid()) QSKIP("no second file system writable beside the test's directory");
        RunParams params;
        params.threads = 2;
        params.memoryBudget = kUnlimited;
        runOnce(path("across-mem.ndw"), params);
        params.memoryBudget = uint64_t{1} << 20;
        params.workDir = work.path().toStdString();
        Watcher watcher;
        QVERIFY(runOnce(path("across-spill.ndw"), params, {}, &watcher).spilled);
        QVERIFY(!watcher.said("without a copy"));
        QVERIFY(!cacheFileOf("across-mem.ndw").empty());
        QVERIFY(cacheFileOf("across-mem.ndw") == cacheFileOf("across-spill.ndw"));
        QVERIFY(listDir(params.workDir).empty());
    }

    void spillFilesRemovedAfterSuccess() {
        RunParams params;
        params.memoryBudget = uint64_t{1} << 20;
        params.workDir = path("work-ok");
        Watcher watcher;
        watcher.workParent = params.workDir;
        runOnce(path("ok.ndw"), params, {}, &watcher);
        QCOMPARE(watcher.duringRun.size(), std::size_t{1});  // the run's own directory
        QVERIFY(watcher.duringRun[0].rfind("work-", 0) == 0);
        QVERIFY(listDir(params.workDir).empty());
    }

    void spillFilesGoNextToTheProjectByDefault() {
        RunParams params;
        params.memoryBudget = uint64_t{1} << 20;
        Watcher watcher;
        watcher.workParent = path("beside.ndw.d");
        runOnce(path("beside.ndw"), params, {}, &watcher);
        QCOMPARE(watcher.duringRun.size(), std::size_t{1});
        for (const auto& name : listDir(watcher.workParent))
            QVERIFY2(name.rfind("work-", 0) != 0, name.c_str());
    }

    void spillFilesRemovedAfterFailure() {
        RunParams params;
        params.memoryBudget = uint64_t{1} << 20;
        params.workDir = path("work-fail");
        ExportOptions out;
        out.kept = path("fail-kept.txt");
        {
            // The run's final commit fails (as on a full disk), after the comparison. (Outputs
            // are checked before any work, so a bad output path no longer gets this far.)
            ProjectStore store(path("fail.ndw"));  // creates the schema
        }
        Watcher watcher;
        watcher.workParent = params.workDir;
        {
            // The run row's last update fails, for this run only.
            const testsupport::FailingSql failing("UPDATE runs SET dataset_id");
            QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                     runOnce(path("fail.ndw"), params, out, &watcher));
        }
        QVERIFY(!std::filesystem::exists(out.kept));  // renamed into place only after the commit
        QCOMPARE(watcher.duringRun.size(), std::size_t{1});
        QVERIFY(listDir(params.workDir).empty());
        ProjectStore store(path("fail.ndw"));
        QCOMPARE(store.listRuns().back().status, std::string("failed"));
    }

    void spillFilesRemovedAfterCancellation() {
        RunParams params;
        params.memoryBudget = uint64_t{1} << 20;
        params.workDir = path("work-cancel");
        std::atomic<bool> cancel{false};
        Watcher watcher;
        watcher.workParent = params.workDir;
        watcher.cancel = &cancel;
        watcher.cancelAtPhase = "compare";
        QVERIFY_THROWS_EXCEPTION(Cancelled,
                                 runOnce(path("cancel.ndw"), params, {}, &watcher, &cancel));
        QCOMPARE(watcher.duringRun.size(), std::size_t{1});
        QVERIFY(listDir(params.workDir).empty());
        ProjectStore store(path("cancel.ndw"));
        QCOMPARE(store.listRuns().back().status, std::string("interrupted"));
    }

    void commandLine() {
        const auto run = [&](const QStringList& extra) {
            QStringList args = {QStringLiteral("run"), QString::fromStdString(corpus_),
                                QStringLiteral("-p"), QString::fromStdString(path("cli.ndw"))};
            args += extra;
            const testsupport::CliResult r =
                testsupport::neardup(args, testsupport::CliOptions().withTimeout(60000));
            return std::make_pair(r.code, r.out + r.err);
        };
        const auto [rc, out] =
            run({QStringLiteral("--memory-budget"), QStringLiteral("1M"),
                 QStringLiteral("--summary-json"), QString::fromStdString(path("cli.json"))});
        QCOMPARE(rc, 0);
        QVERIFY2(out.contains(QStringLiteral("out of core")), qPrintable(out));
        QVERIFY(readFile(path("cli.json")).find("\"spilled\": true") != std::string::npos);
        const auto [badRc, badOut] =
            run({QStringLiteral("--memory-budget"), QStringLiteral("lots")});
        QCOMPARE(badRc, 2);
        QVERIFY(badOut.contains(QStringLiteral("--memory-budget")));
    }
};

QTEST_GUILESS_MAIN(TestSpill)
#include "test_spill.moc"
