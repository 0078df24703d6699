// The project file: schema, round trips of datasets, runs and signatures, reuse lookups, bulk
// throughput. Opening modes, transactions and refusals are in test_project_access.cpp.
#include "project_store_fixtures.h"

using namespace neardup;
using namespace storefixtures;

class TestProjectStore : public QObject {
    Q_OBJECT

  private:
    QTemporaryDir tmp_;
    std::string file(const char* name) const {
        return QDir(tmp_.path()).filePath(QString::fromUtf8(name)).toStdString();
    }

  private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void createsProjectWithSchema() {
        const std::string path = file("schema.ndw");
        { ProjectStore store(path); }
        sql::Database db(path, false);
        QCOMPARE(db.queryInt("PRAGMA application_id"), int64_t{schema::kApplicationId});
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
        auto mode = db.prepare("PRAGMA journal_mode");
        QVERIFY(mode.step());
        COMPARE_STR(mode.string(0), std::string("delete"));
        auto meta = db.prepare("SELECT value FROM meta WHERE key = 'format'");
        QVERIFY(meta.step());
        COMPARE_STR(meta.string(0), std::string("neardup-project"));
    }

    void datasetRoundTrip_data() {
        QTest::addColumn<bool>("memory");
        QTest::newRow("file") << false;
        QTest::newRow("memory") << true;
    }

    void datasetRoundTrip() {
        QFETCH(bool, memory);
        ProjectStore store(memory ? std::string(":memory:") : file("dataset.ndw"));
        const DatasetRecord dataset = makeDataset();
        const DocumentTable docs = makeDocs(40);
        const int64_t id = store.saveDataset(dataset, docs);
        QVERIFY(id > 0);

        DocumentTable loaded;
        loaded.append(9, 9, 9, 9, 9, 9.0, "stale");  // must be replaced, not appended to
        const DatasetRecord back = store.loadDataset(id, &loaded);
        QCOMPARE(back.id, id);
        checkDataset(dataset, back);
        checkDocs(docs, loaded);
        // Without a table only the record is read.
        checkDataset(dataset, store.loadDataset(id, nullptr));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.loadDataset(id + 100, nullptr));
    }

    void emptyDatasetRoundTrip() {
        ProjectStore store(":memory:");
        DatasetRecord dataset;
        const int64_t id = store.saveDataset(dataset, DocumentTable{});
        DocumentTable loaded = makeDocs(3);
        const DatasetRecord back = store.loadDataset(id, &loaded);
        QCOMPARE(loaded.size(), std::size_t{0});
        QVERIFY(back.files.empty());
        COMPARE_STR(back.reader.textField, std::string("text"));
    }

    void runRoundTrip_data() {
        QTest::addColumn<bool>("memory");
        QTest::newRow("file") << false;
        QTest::newRow("memory") << true;
    }

    void runRoundTrip() {
        QFETCH(bool, memory);
        ProjectStore store(memory ? std::string(":memory:") : file("run.ndw"));
        const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
        RunResult run = makeRun(datasetId, 20);
        run.runId = store.beginRun(run);
        QVERIFY(run.runId > 0);

        // Between begin and finish the run is visible as running, without results.
        const RunResult running = store.loadRun(run.runId);
        COMPARE_STR(running.status, std::string("running"));
        QVERIFY(running.pairs.empty());
        QCOMPARE(running.clusterOf.size(), std::size_t{20});
        checkParams(run.params, running.params);

        store.finishRun(run);
        checkRun(run, store.loadRun(run.runId));
        // Finishing again replaces the details instead of duplicating or failing.
        store.finishRun(run);
        checkRun(run, store.loadRun(run.runId));

        const auto pairs = store.loadPairs(run.runId);
        QCOMPARE(pairs.size(), run.pairs.size());
        QVERIFY_THROWS_EXCEPTION(StoreError, store.loadRun(run.runId + 1));
    }

    void runDefaultsRoundTrip() {
        // Default parameters: auto buckets with a resolved K, first policy, no keep field.
        ProjectStore store(":memory:");
        const int64_t datasetId = store.saveDataset(DatasetRecord{}, makeDocs(5));
        RunResult run;
        run.datasetId = datasetId;
        run.params.lsh.bucketMode = BucketMode::Auto;
        run.params.lsh.buckets = 4;
        run.resolvedBuckets = 4;
        run.startedAt = "2024-01-01T00:00:00.000Z";
        run.status = "failed";
        run.error = "out of memory";
        run.clusterOf.assign(5, RunResult::kNoCluster);
        run.runId = store.beginRun(run);
        store.finishRun(run);
        checkRun(run, store.loadRun(run.runId));
    }

    void listAndLatestRuns() {
        ProjectStore store(":memory:");
        QVERIFY(!store.latestRun().has_value());
        const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
        RunResult a = makeRun(datasetId, 20);
        a.runId = store.beginRun(a);
        store.finishRun(a);
        RunResult b = makeRun(datasetId, 20);
        b.phases.pop_back();
        b.runId = store.beginRun(b);
        store.finishRun(b);
        RunResult c = makeRun(datasetId, 20);
        c.runId = store.beginRun(c);
        store.markRun(c.runId, "interrupted", "cancelled by user");

        QCOMPARE(store.latestRun().value(), b.runId);
        QCOMPARE(store.latestRun("interrupted").value(), c.runId);
        QVERIFY(!store.latestRun("failed").has_value());
        QVERIFY_THROWS_EXCEPTION(StoreError, store.markRun(c.runId + 10, "failed", "x"));

        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), std::size_t{3});
        QCOMPARE(runs[0].runId, a.runId);
        QCOMPARE(runs[1].runId, b.runId);
        QCOMPARE(runs[2].runId, c.runId);
        QCOMPARE(runs[0].phases.size(), std::size_t{3});
        QCOMPARE(runs[1].phases.size(), std::size_t{2});
        QCOMPARE(runs[2].phases.size(), std::size_t{0});
        COMPARE_STR(runs[1].phases[1].name, std::string("signatures"));
        QVERIFY(runs[1].phases[1].reused);
        COMPARE_STR(runs[0].status, std::string("ok"));
        COMPARE_STR(runs[2].status, std::string("interrupted"));
        QVERIFY(!runs[2].finishedAt.empty());  // markRun stamps the end
        COMPARE_STR(runs[0].backend, std::string("cpu (3 threads)"));
        QCOMPARE(runs[0].threads, 3);
        QCOMPARE(runs[0].datasetId, datasetId);
        COMPARE_STR(runs[0].paramsJson, toJson(a.params));
        QCOMPARE(runs[0].counts.removed, uint64_t{3});
        COMPARE_STR(store.loadRun(c.runId).error, std::string("cancelled by user"));
    }

    void signaturesInSidecarFile() {
        const std::string path = file("sig.ndw");
        ProjectStore store(path);
        const int64_t id = store.saveDataset(makeDataset(), makeDocs(50));
        const std::string key = signatureCacheKey(SignatureParams{}, ReaderOptions{});
        SignatureMatrix out;
        QVERIFY(!store.loadSignatures(id, key, out));  // nothing saved yet

        const SignatureMatrix sig = makeSignatures(50, 16, 1);
        store.saveSignatures(id, key, sig);
        QVERIFY(store.loadSignatures(id, key, out));
        QCOMPARE(out.hashes, 16);
        QVERIFY(out.values == sig.values);
        QVERIFY(out.digests == sig.digests);
        QVERIFY(out.eligible == sig.eligible);
        QVERIFY(!store.loadSignatures(id, key + "x", out));
        QVERIFY(out.values.empty());
        QVERIFY(!store.loadSignatures(id + 1, key, out));

        // One file in "<project>.d/", no temporary left behind.
        std::vector<fs::path> entries;
        for (const auto& e : fs::directory_iterator(path + ".d"))
            entries.push_back(e.path());
        QCOMPARE(entries.size(), std::size_t{1});
        const std::string sidecar = entries[0].string();
        QVERIFY(entries[0].filename().string().starts_with("signatures-" + std::to_string(id)));
        QVERIFY(entries[0].filename().string().ends_with(".bin"));
        const std::string good = readBytes(sidecar);
        QCOMPARE(good.substr(0, 8), std::string("NDWSIG01"));
        QCOMPARE(good.size(), 28 + key.size() + 50 * 16 * 4 + 50 * 8 + 50);

        writeBytes(sidecar, good.substr(0, good.size() - 1));  // truncated
        QVERIFY(!store.loadSignatures(id, key, out));
        writeBytes(sidecar, good + "x");  // trailing garbage
        QVERIFY(!store.loadSignatures(id, key, out));
        std::string bad = good;
        bad[3] = 'X';  // magic
        writeBytes(sidecar, bad);
        QVERIFY(!store.loadSignatures(id, key, out));
        bad = good;
        bad[12] = 17;  // hashes
        writeBytes(sidecar, bad);
        QVERIFY(!store.loadSignatures(id, key, out));
        bad = good;
        bad[28] ^= 1;  // first byte of the cache key
        writeBytes(sidecar, bad);
        QVERIFY(!store.loadSignatures(id, key, out));
        writeBytes(sidecar, good.substr(0, 20));  // shorter than the header
        QVERIFY(!store.loadSignatures(id, key, out));
        fs::remove(sidecar);
        QVERIFY(!store.loadSignatures(id, key, out));
        writeBytes(sidecar, good);
        QVERIFY(store.loadSignatures(id, key, out));

        // Saving again replaces the file atomically.
        const SignatureMatrix other = makeSignatures(50, 16, 2);
        store.saveSignatures(id, key, other);
        QVERIFY(store.loadSignatures(id, key, out));
        QVERIFY(out.values == other.values);
        QVERIFY(out.eligible == other.eligible);

        // A second key lives beside the first; a wrong shape is refused before writing.
        SignatureParams p2;
        p2.hashes = 8;
        const std::string key2 = signatureCacheKey(p2, ReaderOptions{});
        store.saveSignatures(id, key2, makeSignatures(50, 8, 3));
        QVERIFY(store.loadSignatures(id, key2, out));
        QCOMPARE(out.hashes, 8);
        QVERIFY(store.loadSignatures(id, key, out));
        QCOMPARE(out.hashes, 16);
        QVERIFY_THROWS_EXCEPTION(StoreError,
                                 store.saveSignatures(id, key, makeSignatures(49, 16, 1)));
        SignatureMatrix ragged = makeSignatures(50, 16, 1);
        ragged.eligible.pop_back();
        QVERIFY_THROWS_EXCEPTION(StoreError, store.saveSignatures(id, key, ragged));
        QVERIFY_THROWS_EXCEPTION(StoreError,
                                 store.saveSignatures(id + 7, key, makeSignatures(50, 16, 1)));
        QVERIFY(store.loadSignatures(id, key, out));
        QVERIFY(out.values == other.values);
    }

    void signaturesInMemoryProject() {
        const fs::path cwd = fs::current_path();
        fs::current_path(tmp_.path().toStdString());
        {
            ProjectStore store(":memory:");
            const int64_t id = store.saveDataset(makeDataset(), makeDocs(30));
            const SignatureMatrix sig = makeSignatures(30, 32, 5);
            store.saveSignatures(id, "k", sig);
            SignatureMatrix out;
            QVERIFY(store.loadSignatures(id, "k", out));
            QVERIFY(out.values == sig.values);
            QVERIFY(out.digests == sig.digests);
            QVERIFY(out.eligible == sig.eligible);
            QVERIFY(!store.loadSignatures(id, "k2", out));
        }
        const bool sidecar = fs::exists(":memory:.d");
        fs::current_path(cwd);
        QVERIFY(!sidecar);
    }

    void findDataset() {
        ProjectStore store(":memory:");
        const DatasetRecord dataset = makeDataset();
        QVERIFY(!store.findDataset(dataset.files, dataset.reader).has_value());
        const int64_t first = store.saveDataset(dataset, makeDocs(10));
        QCOMPARE(store.findDataset(dataset.files, dataset.reader).value(), first);

        ReaderOptions reader = dataset.reader;
        reader.chunkBytes = 1;  // not part of the identity
        QCOMPARE(store.findDataset(dataset.files, reader).value(), first);

        auto files = dataset.files;
        files[1].size += 1;
        QVERIFY(!store.findDataset(files, dataset.reader).has_value());
        files = dataset.files;
        files[2].mtimeNs += 1;
        QVERIFY(!store.findDataset(files, dataset.reader).has_value());
        files = dataset.files;
        files[0].path += "x";
        QVERIFY(!store.findDataset(files, dataset.reader).has_value());
        files = dataset.files;
        std::swap(files[0], files[1]);
        QVERIFY(!store.findDataset(files, dataset.reader).has_value());
        files = dataset.files;
        files.pop_back();
        QVERIFY(!store.findDataset(files, dataset.reader).has_value());
        QVERIFY(!store.findDataset({}, dataset.reader).has_value());

        reader = dataset.reader;
        reader.textField = "text";
        QVERIFY(!store.findDataset(dataset.files, reader).has_value());
        reader = dataset.reader;
        reader.idField = "id";
        QVERIFY(!store.findDataset(dataset.files, reader).has_value());
        reader = dataset.reader;
        reader.keepField.clear();
        QVERIFY(!store.findDataset(dataset.files, reader).has_value());

        // The newest of equal datasets wins; different files make a separate dataset.
        const int64_t second = store.saveDataset(dataset, makeDocs(10));
        QCOMPARE(store.findDataset(dataset.files, dataset.reader).value(), second);
        DatasetRecord other = dataset;
        other.files[0].size = 1;
        const int64_t third = store.saveDataset(other, makeDocs(10));
        QCOMPARE(store.findDataset(other.files, other.reader).value(), third);
        QCOMPARE(store.findDataset(dataset.files, dataset.reader).value(), second);
    }

    void findReusablePairs() {
        ProjectStore store(":memory:");
        const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
        const int64_t otherDataset = store.saveDataset(makeDataset(), makeDocs(20));
        RunResult base = makeRun(datasetId, 20);  // floor 0.55, threshold 0.75, K 977
        const RunParams p = base.params;
        QVERIFY(!store.findReusablePairs(datasetId, p, 977).has_value());

        base.runId = store.beginRun(base);
        // Still running: not reusable.
        QVERIFY(!store.findReusablePairs(datasetId, p, 977).has_value());
        store.finishRun(base);
        QCOMPARE(store.findReusablePairs(datasetId, p, 977).value(), base.runId);

        RunParams q = p;
        q.compare.threshold = 0.9;  // above the floor: reusable
        QCOMPARE(store.findReusablePairs(datasetId, q, 977).value(), base.runId);
        q.compare.threshold = 0.55;  // equal to the floor: reusable
        QCOMPARE(store.findReusablePairs(datasetId, q, 977).value(), base.runId);
        q.compare.threshold = 0.5;  // below the floor: pairs were not kept
        QVERIFY(!store.findReusablePairs(datasetId, q, 977).has_value());
        q = p;
        q.keep = KeepPolicy::First;  // decisions after comparison do not matter
        q.threads = 1;
        q.compare.storeFloor = 0.1;
        // A lower floor: the pairs between it and 0.55 were not stored. Judged by their
        // estimates alone (no verification) they cannot reach 0.75, so the pairs serve...
        q.compare.verify = VerifyMode::None;
        QCOMPARE(store.findReusablePairs(datasetId, q, 977).value(), base.runId);
        // ...but exact verification judges every stored pair by its exact Jaccard, and
        // borderline verification those down to 0.75 - 3 sigma (0.59 with 64 hashes, below 0.55
        // only for a lower threshold): comparing again could find more.
        q.compare.verify = VerifyMode::Exact;
        QVERIFY(!store.findReusablePairs(datasetId, q, 977).has_value());
        q.compare.verify = VerifyMode::Borderline;
        QCOMPARE(store.findReusablePairs(datasetId, q, 977).value(), base.runId);
        q.compare.threshold = 0.6;  // its band reaches 0.41: below the stored 0.55
        QVERIFY(!store.findReusablePairs(datasetId, q, 977).has_value());

        QVERIFY(!store.findReusablePairs(datasetId, p, 978).has_value());
        QVERIFY(!store.findReusablePairs(otherDataset, p, 977).has_value());
        q = p;
        q.lsh.bands = 4;
        QVERIFY(!store.findReusablePairs(datasetId, q, 977).has_value());
        q = p;
        q.lsh.rows = 4;
        QVERIFY(!store.findReusablePairs(datasetId, q, 977).has_value());
        q = p;
        q.lsh.scheme = BandKeyScheme::Hash;
        QVERIFY(!store.findReusablePairs(datasetId, q, 977).has_value());
        // The verify mode does not matter: the pipeline verifies what a reused run lacks.
        q = p;
        q.compare.verify = VerifyMode::None;
        QVERIFY(store.findReusablePairs(datasetId, q, 977).has_value());
        q = p;
        q.signature.seed = 7;
        QVERIFY(!store.findReusablePairs(datasetId, q, 977).has_value());
        q = p;
        q.reader.textField = "text";
        QVERIFY(!store.findReusablePairs(datasetId, q, 977).has_value());

        // The newest matching ok run wins; failed runs never do.
        RunResult newer = makeRun(datasetId, 20);
        newer.runId = store.beginRun(newer);
        store.finishRun(newer);
        RunResult failed = makeRun(datasetId, 20);
        failed.status = "failed";
        failed.runId = store.beginRun(failed);
        store.finishRun(failed);
        QCOMPARE(store.findReusablePairs(datasetId, p, 977).value(), newer.runId);
        const auto pairs = store.loadPairs(newer.runId);
        QCOMPARE(pairs.size(), newer.pairs.size());
        QCOMPARE(pairs[1].exact, 0.8125f);
        QCOMPARE(pairs[0].exact, -1.0f);
    }

    void documentStatusViewAndIntegrity() {
        const std::string path = file("view.ndw");
        int64_t runId = 0;
        {
            ProjectStore store(path);
            const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
            RunResult run = makeRun(datasetId, 20);
            run.runId = runId = store.beginRun(run);
            store.finishRun(run);
        }
        QVERIFY(!fs::exists(path + "-wal"));
        QVERIFY(!fs::exists(path + "-journal"));

        sql::Database db(path, false);
        const std::string run = std::to_string(runId);
        QCOMPARE(countRows(db, "SELECT count(*) FROM document_status WHERE run_id = " + run +
                                   " AND status = 'kept'"),
                 int64_t{17});
        QCOMPARE(countRows(db, "SELECT count(*) FROM document_status WHERE run_id = " + run +
                                   " AND status = 'removed'"),
                 int64_t{3});
        auto removed = db.prepare(
            "SELECT group_concat(doc_index) FROM (SELECT doc_index FROM document_status "
            "WHERE run_id = ?1 AND status = 'removed' ORDER BY doc_index)");
        removed.bind(1, runId);
        QVERIFY(removed.step());
        COMPARE_STR(removed.string(0), std::string("1,3,9"));
        auto members = db.prepare(
            "SELECT c.cluster, c.representative, c.size, group_concat(m.doc_index) "
            "FROM clusters c JOIN cluster_members m USING (run_id, cluster) "
            "WHERE run_id = ?1 GROUP BY c.cluster ORDER BY c.cluster");
        members.bind(1, runId);
        QVERIFY(members.step());
        QCOMPARE(members.int64(1), int64_t{4});
        QCOMPARE(members.int64(2), int64_t{3});
        QVERIFY(members.step());
        QCOMPARE(members.int64(1), int64_t{2});
        QCOMPARE(members.int64(2), int64_t{2});
        QVERIFY(!members.step());
        // The documented hex form of an outlier key.
        auto key = db.prepare("SELECT printf('%016x', key) FROM outlier_buckets WHERE run_id = ?1");
        key.bind(1, runId);
        QVERIFY(key.step());
        COMPARE_STR(key.string(0), std::string("fffffffffffffff0"));
        auto phases = db.prepare(
            "SELECT items_per_second FROM run_phase_throughput WHERE run_id = ?1 ORDER BY "
            "ordinal");
        phases.bind(1, runId);
        QVERIFY(phases.step());
        QCOMPARE(phases.real(0), 40.0);
        QVERIFY(phases.step());
        QVERIFY(phases.isNull(0));  // zero seconds: no rate

        auto check = db.prepare("PRAGMA integrity_check");
        QVERIFY(check.step());
        COMPARE_STR(check.string(0), std::string("ok"));
        auto fk = db.prepare("PRAGMA foreign_key_check");
        QVERIFY(!fk.step());
    }

    // A run's details are written with SQLite's foreign-key checks off (the store checks its own
    // references): a rewrite with fewer bands and clusters must still take every child row of
    // the old details with it (cascades do not fire then), both ways of finishing must leave
    // the same rows, and the checks must be on again afterwards.
    void rewrittenDetailsLeaveNoOrphans_data() {
        QTest::addColumn<bool>("inTwoSteps");
        QTest::newRow("finishRun") << false;
        QTest::newRow("writeRunDetails + finishRun") << true;
    }

    void rewrittenDetailsLeaveNoOrphans() {
        QFETCH(bool, inTwoSteps);
        const std::string path = file(inTwoSteps ? "orphans-2.ndw" : "orphans-1.ndw");
        int64_t runId = 0;
        {
            ProjectStore store(path);
            const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
            RunResult run = makeRun(datasetId, 20);
            run.runId = runId = store.beginRun(run);
            if (inTwoSteps) store.writeRunDetails(run);
            store.finishRun(run);
            // Again with one band and one cluster: band 0's histogram and outlier rows and
            // cluster 1's members belong to nothing now and must be gone.
            RunResult smaller = run;
            smaller.bands = {run.bands[1]};
            smaller.pairs = {{1, 4, 60, -1.0f}, {4, 9, 40, -1.0f}};
            smaller.clusterOf[2] = smaller.clusterOf[3] = RunResult::kNoCluster;
            smaller.representative = {4};
            smaller.removedFor[3] = RunResult::kNoDocument;
            if (inTwoSteps) store.writeRunDetails(smaller);
            store.finishRun(smaller);
            // Details abandoned half-way leave the finished ones as they were.
            store.writeRunDetails(run);
            store.abandonRunDetails();
        }
        {  // read, then closed: an open reading statement would hold the project's lock
            sql::Database db(path, false);
            const std::string where = " WHERE run_id = " + std::to_string(runId);
            QCOMPARE(countRows(db, "SELECT count(*) FROM band_stats" + where), int64_t{1});
            QCOMPARE(countRows(db, "SELECT count(*) FROM band_histogram" + where + " AND band = 0"),
                     int64_t{0});
            QCOMPARE(countRows(db, "SELECT count(*) FROM outlier_buckets" + where), int64_t{0});
            QCOMPARE(countRows(db, "SELECT count(*) FROM pairs" + where), int64_t{2});
            QCOMPARE(countRows(db, "SELECT count(*) FROM clusters" + where), int64_t{1});
            auto members = db.prepare(
                "SELECT group_concat(doc_index) FROM (SELECT doc_index FROM cluster_members WHERE "
                "run_id = ?1 ORDER BY doc_index)");
            members.bind(1, runId);
            QVERIFY(members.step());
            COMPARE_STR(members.string(0), std::string("1,4,9"));
            auto fk = db.prepare("PRAGMA foreign_key_check");
            QVERIFY(!fk.step());
        }
        // The store's own connection checks foreign keys again once the details are written:
        // a decision about a dataset that does not exist is refused.
        for (const bool abandon : {false, true}) {
            ProjectStore store(path);
            RunResult again = store.loadRun(runId);
            store.writeRunDetails(again);
            if (abandon)
                store.abandonRunDetails();
            else
                store.finishRun(again);
            QVERIFY_THROWS_EXCEPTION(StoreError,
                                     store.recordDecision(987654, DecisionKind::KeepInstead, 1));
        }
    }

    void reopenKeepsEarlierRuns() {
        const std::string path = file("reopen.ndw");
        RunResult first;
        {
            ProjectStore store(path);
            const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
            first = makeRun(datasetId, 20);
            first.runId = store.beginRun(first);
            store.finishRun(first);
        }
        {
            ProjectStore store(path);
            QCOMPARE(store.listRuns().size(), std::size_t{1});
            checkRun(first, store.loadRun(first.runId));
            RunResult second = makeRun(first.datasetId, 20);
            second.runId = store.beginRun(second);
            store.finishRun(second);
        }
        ProjectStore store(path);
        QCOMPARE(store.listRuns().size(), std::size_t{2});
        checkRun(first, store.loadRun(first.runId));
        COMPARE_STR(store.path(), path);
    }

    // Throughput of the two large tables, printed for the record (a benchmark, not a timed
    // test). Wall time suffers on a shared machine, so the process CPU time is shown too.
    // NEARDUP_STORE_BENCH_ROWS sets the size (default 200000).
    void bulkThroughput() {
        std::size_t n = 200000;
        if (const char* env = std::getenv("NEARDUP_STORE_BENCH_ROWS")) n = std::stoull(env);
        const std::string path = file("bulk.ndw");
        ProjectStore store(path);
        const DocumentTable docs = makeDocs(n);
        RunResult run = makeRun(1, n);
        run.pairs.clear();
        run.pairs.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            const auto a = static_cast<uint32_t>(i / 2);
            const auto b = static_cast<uint32_t>(a + 1 + i % 2);
            run.pairs.push_back(
                {a, b, static_cast<uint32_t>(40 + i % 24), i % 4 == 0 ? 0.75f : -1.0f});
        }

        Stopwatch watch;
        const int64_t datasetId = store.saveDataset(makeDataset(), docs);
        report("documents saved", n, watch);
        DocumentTable loaded;
        store.loadDataset(datasetId, &loaded);
        report("documents loaded", n, watch);
        QCOMPARE(loaded.size(), n);
        QVERIFY(loaded.idArena == docs.idArena);

        run.datasetId = datasetId;
        run.runId = store.beginRun(run);
        watch.restart();
        store.finishRun(run);
        report("pairs saved", n, watch);
        const auto pairs = store.loadPairs(run.runId);
        report("pairs loaded", n, watch);
        QCOMPARE(pairs.size(), n);
        qInfo("project file: %.1f MB", static_cast<double>(fs::file_size(path)) / 1e6);
    }

  private:
    struct Stopwatch {
        QElapsedTimer wall;
        std::clock_t cpu = std::clock();
        Stopwatch() { wall.start(); }
        void restart() {
            wall.restart();
            cpu = std::clock();
        }
    };

    static void report(const char* what, std::size_t rows, Stopwatch& watch) {
        const double wall = static_cast<double>(watch.wall.nsecsElapsed()) / 1e9;
        const double cpu = static_cast<double>(std::clock() - watch.cpu) / CLOCKS_PER_SEC;
        const double n = static_cast<double>(rows);
        qInfo("%zu %s: %.2f s wall (%.0f rows/s), %.2f s cpu (%.0f rows/s)", rows, what, wall,
              n / wall, cpu, n / cpu);
        watch.restart();
    }
};

QTEST_GUILESS_MAIN(TestProjectStore)
#include "test_project_store.moc"
