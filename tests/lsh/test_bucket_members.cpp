// Bucket members (core/bucket_members): band keys recomputed from the cached signatures put
// exactly as many documents in every stored outlier bucket as the run counted, for both band
// key schemes, exact keys and a fixed bucket count K, and for a run that reused pairs.
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <map>

#include "bucket_members.h"
#include "engine_fixture.h"
#include "pipeline.h"
#include "project_queries.h"
#include "project_store.h"

using namespace neardup;

class TestBucketMembers : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string project_, corpus_;

    std::string path(const char* name) const {
        return dir_.filePath(QLatin1String(name)).toStdString();
    }

    // Every stored outlier bucket of the run lists as many members as its stored size, the
    // members share its key, and the band statistics match the recomputed keys.
    void checkRun(const std::string& project, int64_t runId) {
        ProjectStore store(project);
        auto backend = makeCpuBackend(2);
        BandKeyTable table;
        QVERIFY2(table.load(store, runId, *backend), table.why().c_str());
        ProjectQueries q(project);
        const RunInfo info = q.runInfo(runId);
        QCOMPARE(table.bands(), info.params.lsh.bands);
        QCOMPARE(uint64_t(table.documents()), info.documents);
        const auto outliers = q.outliers(runId, -1);
        QVERIFY(!outliers.empty());
        for (const OutlierRow& o : outliers) {
            const std::vector<uint32_t> m = table.members(o.band, o.key);
            QCOMPARE(uint64_t(m.size()), o.size);
            for (const uint32_t d : m)
                QCOMPARE(table.key(d, o.band), o.key);
        }
        // Bucket counts and the largest bucket of every band, from the keys alone.
        const auto bands = q.bandStats(runId);
        QCOMPARE(int(bands.size()), table.bands());
        for (const BandRow& b : bands) {
            std::map<uint64_t, uint64_t> sizes;
            for (std::size_t i = 0; i < table.documents(); ++i)
                if (table.eligible(i)) ++sizes[table.key(i, b.band)];
            uint64_t largest = 0;
            for (const auto& [key, size] : sizes)
                largest = std::max(largest, size);
            QCOMPARE(uint64_t(sizes.size()), b.buckets);
            QCOMPARE(largest, b.maxSize);
        }
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = path("buckets.ndw");
        corpus_ = path("corpus.jsonl");
        testsupport::writeGeneratedCorpus(
            corpus_, {.documents = 800, .seed = 5, .meanChars = 400, .duplicateFraction = 0.5});
    }

    void exactKeys() {
        RunParams params;
        params.compare.threshold = 0.7;
        QCOMPARE(testsupport::runEngine(project_, {corpus_}, params).runId, int64_t{1});
        checkRun(project_, 1);
    }

    void sumSchemeWithFixedK() {
        RunParams params;
        params.lsh.bands = 8;
        params.lsh.rows = 4;
        params.lsh.scheme = BandKeyScheme::Sum;
        params.lsh.bucketMode = BucketMode::Fixed;
        params.lsh.buckets = 61;  // few buckets: large, crowded ones
        const RunResult r = testsupport::runEngine(project_, {corpus_}, params);
        QVERIFY(r.signaturesReused);
        QCOMPARE(r.resolvedBuckets, uint64_t{61});
        checkRun(project_, r.runId);
    }

    void runThatReusedPairs() {
        RunParams params;
        params.compare.threshold = 0.85;
        const RunResult r = testsupport::runEngine(project_, {corpus_}, params);
        QVERIFY(r.pairsReused);
        checkRun(project_, r.runId);
    }

    void signaturesNotCached() {
        // A deleted sidecar: the table says why instead of listing nothing.
        const std::string copy = path("nocache.ndw");
        std::filesystem::copy_file(project_, copy);
        ProjectStore store(copy);
        auto backend = makeCpuBackend(1);
        BandKeyTable table;
        QVERIFY(!table.load(store, 1, *backend));
        QVERIFY2(table.why().find("cache") != std::string::npos, table.why().c_str());
        QVERIFY(table.members(0, 0).empty());
        // A run that spilled never cached its signatures.
        const std::string spilled = path("spilled.ndw");
        ProjectStore small(spilled);
        Pipeline pipeline(small, *backend);
        RunParams params;
        params.memoryBudget = uint64_t{1} << 20;
        const RunResult r = pipeline.run({corpus_}, params);
        QVERIFY(r.spilled);
        QVERIFY(!table.load(small, r.runId, *backend));
        QVERIFY2(table.why().find("spill") != std::string::npos, table.why().c_str());
        QVERIFY_THROWS_EXCEPTION(StoreError, table.load(small, 42, *backend));
    }
};

QTEST_GUILESS_MAIN(TestBucketMembers)
#include "test_bucket_members.moc"
