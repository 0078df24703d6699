// Out-of-core runs: identical results with and without spilling, spill files removed however
// the run ends, the project recording the spill, and the comparison's work on large buckets
// (counted, not timed).
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "bucket_compare.h"
#include "corpus_generator.h"
#include "hash_math.h"
#include "lsh_buckets.h"
#include "memory_budget.h"
#include "pipeline.h"
#include "run_compare.h"
#include "spill_compare.h"
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

// Signatures of n identical (or distinct, when `distinct`) documents, as the pipeline fills them.
SignatureMatrix matrixOf(std::size_t n, int hashes, bool distinct, uint64_t seed) {
    SignatureMatrix m;
    m.resize(n, hashes);
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> common(static_cast<std::size_t>(hashes));
    for (auto& v : common)
        v = static_cast<uint32_t>(rng());
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < hashes; ++k)
            m.row(i)[k] = distinct ? static_cast<uint32_t>(rng()) : common[std::size_t(k)];
        m.digests[i] = hashmath::signatureDigest(m.row(i), hashes);
        m.eligible[i] = 1;
    }
    return m;
}

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
        GeneratorOptions gen;
        gen.documents = 3000;
        gen.seed = 17;
        gen.meanChars = 300;
        GroundTruth truth;
        std::ofstream out(corpus_, std::ios::binary);
        generateCorpus(gen, out, truth);
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

    // A signature cache that would not fit is streamed from its file (tests/test_reband.cpp
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

    // 100,000 exact copies in one bucket cost 99,999 decisions (joins to the group's leader),
    // not 5 billion comparisons; in a later band they cost none. Counted, not timed.
    void hundredThousandCopiesStayCheap() {
        const std::size_t n = 100000;
        const SignatureMatrix sigs = matrixOf(n, 64, false, 3);
        LshParams lsh;
        lsh.bands = 8;
        lsh.rows = 8;
        std::vector<uint64_t> keys(n * 8);
        auto backend = makeCpuBackend(2);
        backend->computeBandKeys(sigs, lsh, 0, keys.data());
        BucketBatch batch;
        for (uint32_t i = 0; i < n; ++i)
            batch.members.push_back(i);
        batch.bucketBegin = {0, n};
        const CompareRequest req{&sigs, keys.data(), lsh.bands, 32};
        std::vector<ScoredPair> pairs;
        QCOMPARE(backend->compareBuckets(batch, req, pairs), uint64_t{n - 1});
        QCOMPARE(pairs.size(), n - 1);
        for (const ScoredPair& p : pairs) {
            QCOMPARE(p.a, 0u);
            QCOMPARE(p.matches, 64u);
        }
        batch.band = 1;
        pairs.clear();
        QCOMPARE(backend->compareBuckets(batch, req, pairs), uint64_t{0});
        QVERIFY(pairs.empty());
    }

    // The same out of core: the bucket is far larger than a pass, yet costs n - 1 decisions.
    void hundredThousandCopiesOutOfCore() {
        const std::size_t n = 100000;
        const int hashes = 16;
        SignatureMatrix sigs = matrixOf(n, hashes, false, 4);
        // Three distinct documents among the copies: leaders compared with each other.
        for (const std::size_t d : {std::size_t{10}, std::size_t{5000}, std::size_t{99999}}) {
            for (int k = 8; k < hashes; ++k)
                sigs.row(d)[k] = static_cast<uint32_t>(d * 31 + std::size_t(k));
            sigs.digests[d] = hashmath::signatureDigest(sigs.row(d), hashes);
        }
        LshParams lsh;
        lsh.bands = 1;
        lsh.rows = 8;  // the first 8 values: every document shares band 0's bucket
        auto backend = makeCpuBackend(2);
        std::vector<uint64_t> keys(n);
        backend->computeBandKeys(sigs, lsh, 0, keys.data());
        WorkDir work(path("copies-work"));
        SignatureSpill spill(work, hashes, lsh.bands);
        spill.append(sigs.values.data(), keys.data(), n);
        SpilledComparison compare(*backend, work, spill, sigs.digests, sigs.eligible, lsh, 0, 8, 2);
        std::vector<BandStats> bands;
        std::vector<ScoredPair> pairs;
        const uint64_t decided = compare.run(
            64 << 10, bands, pairs, [](uint64_t, uint64_t) {}, [] {});
        QCOMPARE(bands.size(), std::size_t{1});
        const BandStats& stats = bands[0];
        // n - 3 copies joined to their leader, then 4 leaders: 6 pairs.
        QCOMPARE(decided, uint64_t{n - 4 + 6});
        QCOMPARE(stats.maxSize, uint64_t{n});
        QCOMPARE(pairs.size(), std::size_t{n - 4 + 6});
        // In memory, the same.
        BucketBatch batch;
        for (uint32_t i = 0; i < n; ++i)
            batch.members.push_back(i);
        batch.bucketBegin = {0, n};
        std::vector<ScoredPair> direct;
        const CompareRequest req{&sigs, keys.data(), lsh.bands, 8};
        QCOMPARE(backend->compareBuckets(batch, req, direct), decided);
        std::sort(pairs.begin(), pairs.end());
        std::sort(direct.begin(), direct.end());
        testsupport::comparePairs(pairs, direct);
    }

    // Out of core, whole components of documents that share buckets are compared in every band
    // from one read of their rows: each candidate's row is read once, not once per band, and the
    // pairs, decisions and bucket statistics are those of the in-memory comparison. Components
    // larger than a pass (here 3,000 copies) go band by band, with the same results.
    void componentsReadOnceAndMatchInMemory_data() {
        QTest::addColumn<bool>("largeComponent");
        QTest::addColumn<bool>("planted");
        QTest::newRow("small components") << false << true;
        QTest::newRow("and one larger than a pass") << true << true;
        QTest::newRow("no bucket shared") << false << false;
    }
    void componentsReadOnceAndMatchInMemory() {
        QFETCH(bool, largeComponent);
        QFETCH(bool, planted);
        const std::size_t n = 20000;
        const int hashes = 32;
        LshParams lsh;
        lsh.bands = 4;
        lsh.rows = 8;
        SignatureMatrix sigs = matrixOf(n, hashes, true, 5);
        std::mt19937_64 rng(9);
        auto plant = [&](std::size_t from, std::size_t to, unsigned bandMask) {
            for (int t = 0; t < lsh.bands; ++t)
                if (bandMask >> t & 1u)
                    std::copy_n(sigs.row(from) + t * lsh.rows, lsh.rows,
                                sigs.row(to) + t * lsh.rows);
            sigs.digests[to] = hashmath::signatureDigest(sigs.row(to), hashes);
        };
        // Pairs sharing one to four bands (four: exact copies), far apart in the file, and chains
        // a - b - c whose links share different bands, so a component's buckets differ by band.
        for (std::size_t k = 0; planted && k < 1500; ++k) {
            const std::size_t a = rng() % 6000, b = 6000 + rng() % 6000;
            plant(a, b, 1u + static_cast<unsigned>(rng() % 15));
        }
        for (std::size_t k = 0; planted && k < 300; ++k) {
            const std::size_t a = 12000 + 3 * k, b = a + 1, c = a + 2;
            plant(a, b, 1u);
            plant(b, c, 2u | 4u);
        }
        if (largeComponent)
            for (std::size_t d = 16000; d < 19000; ++d)
                plant(15999, d, 15u);
        sigs.eligible[7] = 0;  // a document shorter than a shingle takes no part

        auto backend = makeCpuBackend(2);
        std::vector<uint64_t> keys(n * static_cast<std::size_t>(lsh.bands));
        backend->computeBandKeys(sigs, lsh, 0, keys.data());
        // In memory, as BucketComparePhase::inMemory does it.
        std::vector<ScoredPair> direct;
        std::vector<BandStats> directStats;
        uint64_t directDecided = 0;
        std::vector<uint8_t> candidate(n, 0);
        {
            std::vector<BucketEntry> scratch;
            BucketBatch batch;
            const CompareRequest req{&sigs, keys.data(), lsh.bands, 8};
            for (int band = 0; band < lsh.bands; ++band) {
                BandStats stats;
                buildBuckets(keys.data(), n, lsh.bands, band, sigs.eligible, 2, scratch, batch,
                             stats);
                directStats.push_back(stats);
                for (const uint32_t m : batch.members)
                    candidate[m] = 1;
                directDecided += backend->compareBuckets(batch, req, direct);
            }
        }
        const auto candidates =
            static_cast<uint64_t>(std::count(candidate.begin(), candidate.end(), 1));

        WorkDir work(path(largeComponent ? "components-large" : "components"));
        SignatureSpill spill(work, hashes, lsh.bands);
        spill.append(sigs.values.data(), keys.data(), n);
        SpilledComparison compare(*backend, work, spill, sigs.digests, sigs.eligible, lsh, 0, 8, 2);
        std::vector<BandStats> stats;
        std::vector<ScoredPair> pairs;
        uint64_t lastDone = 0, total = 0;
        const uint64_t decided = compare.run(
            512 << 10, stats, pairs,
            [&](uint64_t done, uint64_t all) {
                QVERIFY(done >= lastDone);
                lastDone = done;
                total = all;
            },
            [] {});
        QCOMPARE(lastDone, total);

        // The budget holds a few components at a time; without shared buckets nothing is read.
        QCOMPARE(compare.passes() > 1, planted);
        QCOMPARE(candidates > 0, planted);
        QCOMPARE(compare.largeComponentDocuments(),
                 uint64_t{largeComponent ? 3001u : 0u});  // with 15999
        if (largeComponent)
            QVERIFY(spill.rowsRead() > candidates);  // the large component's rows, band by band
        else
            QCOMPARE(spill.rowsRead(), candidates);  // every band from one read of each row
        QCOMPARE(decided, directDecided);
        std::sort(pairs.begin(), pairs.end());
        std::sort(direct.begin(), direct.end());
        testsupport::comparePairs(pairs, direct);
        testsupport::compareBands(stats, directStats);
    }

    // Every counting kernel the CPU supports gives the same pairs and counts, for signature
    // lengths that are and are not multiples of the vector width.
    void kernelsAgree_data() {
        QTest::addColumn<int>("hashes");
        QTest::newRow("128") << 128;
        QTest::newRow("100") << 100;
        QTest::newRow("7") << 7;
    }
    void kernelsAgree() {
        QFETCH(int, hashes);
        const std::size_t n = 300;
        SignatureMatrix sigs = matrixOf(n, hashes, true, 9);
        // Related rows: copies of row i % 20 with a growing number of changed positions.
        std::mt19937 rng(5);
        for (std::size_t i = 20; i < n; ++i) {
            std::copy(sigs.row(i % 20), sigs.row(i % 20) + hashes, sigs.row(i));
            for (std::size_t c = 0; c < i % static_cast<std::size_t>(hashes); ++c)
                sigs.row(i)[rng() % static_cast<uint32_t>(hashes)] = rng();
            sigs.digests[i] = hashmath::signatureDigest(sigs.row(i), hashes);
        }
        std::vector<uint64_t> keys(n * 2);
        for (std::size_t i = 0; i < keys.size(); ++i)
            keys[i] = (i * 2654435761u) % 7;  // frequent earlier-band collisions
        std::vector<uint32_t> members(n);
        for (uint32_t i = 0; i < n; ++i)
            members[i] = i;
        const CompareRequest req{&sigs, keys.data(), 2, 1};
        std::vector<std::vector<ScoredPair>> results;
        std::vector<uint64_t> decided;
        for (const char* kernel : {"generic", "avx2", "avx512"}) {
            if (!selectCompareKernel(kernel)) continue;
            BucketScratch scratch;
            std::vector<ScoredPair> out;
            decided.push_back(compareBucket(members.data(), n, 1, req, scratch, out));
            std::sort(out.begin(), out.end());
            results.push_back(std::move(out));
            // The generic kernel is checked against a plain count.
            if (results.size() == 1)
                for (const ScoredPair& p : results[0])
                    QCOMPARE(static_cast<int>(p.matches),
                             countMatches(sigs.row(p.a), sigs.row(p.b), hashes));
        }
        QVERIFY(selectCompareKernel("auto"));
        QVERIFY(results.size() >= 1);
        QVERIFY(decided[0] > 1000 && decided[0] < n * (n - 1) / 2);  // the rule skipped some
        for (std::size_t k = 1; k < results.size(); ++k) {
            QCOMPARE(decided[k], decided[0]);
            QCOMPARE(results[k].size(), results[0].size());
            for (std::size_t i = 0; i < results[0].size(); ++i) {
                QCOMPARE(results[k][i].a, results[0][i].a);
                QCOMPARE(results[k][i].b, results[0][i].b);
                QCOMPARE(results[k][i].matches, results[0][i].matches);
            }
        }
    }

    // Statistics fed bucket by bucket in any order equal those of the whole band.
    void bandStatisticsDoNotDependOnOrder() {
        std::mt19937_64 rng(8);
        std::vector<uint64_t> keys;
        std::vector<uint8_t> eligible;
        for (int i = 0; i < 5000; ++i) {
            keys.push_back(rng() % (i < 4000 ? 1500 : 7));  // a few outsized buckets
            eligible.push_back(i % 13 != 0);
        }
        std::vector<BucketEntry> entries;
        BucketBatch batch;
        BandStats whole;
        buildBuckets(keys.data(), keys.size(), 1, 0, eligible, 2, entries, batch, whole);
        std::vector<std::pair<uint64_t, uint64_t>> buckets;  // (key, size)
        for (std::size_t i = 0; i < entries.size();) {
            std::size_t j = i;
            while (j < entries.size() && entries[j].first == entries[i].first)
                ++j;
            buckets.emplace_back(entries[i].first, j - i);
            i = j;
        }
        std::shuffle(buckets.begin(), buckets.end(), rng);
        BandStatsBuilder builder(0);
        for (const auto& [key, size] : buckets)
            builder.add(key, size);
        const BandStats shuffled = builder.finish();
        QVERIFY(whole.outlierCount > 0);
        testsupport::compareBands({shuffled}, {whole});
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
