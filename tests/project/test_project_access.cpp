// The project's data-access layer: opening modes (read-write, read-only) and refusals of files
// that are not projects, reads without side effects and stale-run recovery as an explicit call,
// the one decoder of a run's row shared by the store and the workbench's queries, and the
// statement, transaction and savepoint wrapper every file of core/project goes through.
#include <QCryptographicHash>
#include <QFile>

#include "project_queries.h"
#include "project_store_fixtures.h"
#include "row_inserter.h"
#include "stopped_runs.h"

using namespace neardup;
using namespace storefixtures;

namespace {

QByteArray fileHash(const std::string& path) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

std::string statusOf(const std::string& project, int64_t runId) {
    sql::Database db(project, sql::OpenMode::ReadOnly);
    auto st = db.prepare("SELECT status FROM runs WHERE id = ?1");
    st.bind(1, runId);
    return st.step() ? st.string(0) : std::string();
}

}  // namespace

class TestProjectAccess : public QObject {
    Q_OBJECT

  private:
    QTemporaryDir tmp_;
    std::string file(const char* name) const {
        return QDir(tmp_.path()).filePath(QString::fromUtf8(name)).toStdString();
    }

    // A project holding one dataset of 20 documents and one finished run; returns the run.
    RunResult makeProject(const std::string& path) {
        ProjectStore store(path);
        const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
        RunResult run = makeRun(datasetId, 20);
        run.params.signature.sketch = SketchKind::Oph;
        run.runId = store.beginRun(run);
        store.finishRun(run);
        return run;
    }

  private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void refusesForeignFiles() {
        const std::string text = file("notes.txt");
        writeBytes(text, "This is not a database, just some notes that are long enough.\n");
        QVERIFY_THROWS_EXCEPTION(StoreError, ProjectStore store(text));
        QCOMPARE(readBytes(text),
                 std::string("This is not a database, just some notes that are long enough.\n"));

        const std::string other = file("other.sqlite");
        {
            sql::Database db(other, true);
            db.exec("CREATE TABLE t(x)");
        }
        QVERIFY_THROWS_EXCEPTION(StoreError, ProjectStore store(other));
        {
            sql::Database db(other, false);
            QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema"), int64_t{1});
        }

        const std::string newer = file("newer.ndw");
        { ProjectStore store(newer); }
        {
            sql::Database db(newer, false);
            db.exec("PRAGMA user_version = " + std::to_string(schema::kVersion + 1));
        }
        try {
            ProjectStore store(newer);
            QFAIL("a project of a newer schema was opened");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("newer") != std::string::npos, e.what());
        }

        QVERIFY_THROWS_EXCEPTION(StoreError, ProjectStore store(file("missing/dir/p.ndw")));

        // An empty file (e.g. from a save dialog) becomes a project.
        const std::string empty = file("empty.ndw");
        writeBytes(empty, "");
        ProjectStore store(empty);
        QVERIFY(store.listRuns().empty());
    }

    void failedTransactionsLeaveDataIntact() {
        const std::string path = file("tx.ndw");
        ProjectStore store(path);
        const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
        RunResult good = makeRun(datasetId, 20);
        good.runId = store.beginRun(good);
        store.finishRun(good);

        // Foreign key: a run on a dataset that does not exist.
        RunResult orphan = makeRun(datasetId + 41, 20);
        QVERIFY_THROWS_EXCEPTION(StoreError, store.beginRun(orphan));
        QCOMPARE(store.listRuns().size(), std::size_t{1});

        // A failure half-way through finishRun (duplicate pair key after phases, bands,
        // and some pairs are written) rolls everything back.
        RunResult broken = makeRun(datasetId, 20);
        broken.runId = store.beginRun(broken);
        broken.pairs.push_back(broken.pairs.back());
        try {
            store.finishRun(broken);
            QFAIL("finishRun accepted duplicate pairs");
        } catch (const StoreError& e) {
            // The message carries SQLite's reason and the project, never the statement.
            QVERIFY2(std::string(e.what()).find("UNIQUE") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("INSERT") == std::string::npos, e.what());
        }
        const RunResult after = store.loadRun(broken.runId);
        COMPARE_STR(after.status, std::string("running"));
        QVERIFY(after.phases.empty());
        QVERIFY(after.bands.empty());
        QVERIFY(after.pairs.empty());
        QVERIFY(after.representative.empty());

        // A cluster index out of range is refused too.
        RunResult badCluster = makeRun(datasetId, 20);
        badCluster.runId = broken.runId;
        badCluster.clusterOf[7] = 5;
        QVERIFY_THROWS_EXCEPTION(StoreError, store.finishRun(badCluster));
        // Finishing a run that does not exist.
        RunResult ghost = makeRun(datasetId, 20);
        ghost.runId = broken.runId + 100;
        QVERIFY_THROWS_EXCEPTION(StoreError, store.finishRun(ghost));

        // The store stays usable and the earlier data is untouched.
        checkRun(good, store.loadRun(good.runId));
        broken.pairs.pop_back();
        store.finishRun(broken);
        checkRun(broken, store.loadRun(broken.runId));
        DocumentTable docs;
        store.loadDataset(datasetId, &docs);
        checkDocs(makeDocs(20), docs);

        // Inconsistent document tables are refused before anything is written.
        DocumentTable ragged = makeDocs(5);
        ragged.chars.pop_back();
        QVERIFY_THROWS_EXCEPTION(StoreError, store.saveDataset(makeDataset(), ragged));
        QVERIFY(!store.findDataset({}, ReaderOptions{}).has_value());

        sql::Database db(path, false);
        QCOMPARE(db.queryInt("SELECT count(*) FROM datasets"), int64_t{1});
        auto check = db.prepare("PRAGMA integrity_check");
        QVERIFY(check.step());
        COMPARE_STR(check.string(0), std::string("ok"));
    }

    // A read-only store reads everything a writable one does and never changes a byte of the
    // file; its writes fail, and it neither creates, upgrades nor recovers.
    void readOnlyModeNeverWrites() {
        const std::string path = file("readonly.ndw");
        const RunResult run = makeProject(path);
        {
            ProjectStore writer(path);
            writer.recordDecision(run.datasetId, DecisionKind::KeepAll, 4);
        }
        const QByteArray before = fileHash(path);
        {
            const ProjectStore store(path, ProjectStore::Mode::ReadOnly);
            QCOMPARE(store.listRuns().size(), std::size_t{1});
            const RunResult loaded = store.loadRun(run.runId);
            checkParams(run.params, loaded.params);
            QVERIFY(loaded.decisionsApplied > 0);  // the keep_all decision, applied as loaded
            DocumentTable docs;
            store.loadDataset(run.datasetId, &docs);
            checkDocs(makeDocs(20), docs);
            QCOMPARE(store.decisions(run.datasetId).size(), std::size_t{1});
            QCOMPARE(store.loadPairs(run.runId).size(), run.pairs.size());
            QVERIFY(store.writeProblem().find("read-only") != std::string::npos);
        }
        {
            ProjectStore store(path, ProjectStore::Mode::ReadOnly);
            QVERIFY_THROWS_EXCEPTION(StoreError, store.beginRun(run));
            QVERIFY_THROWS_EXCEPTION(StoreError,
                                     store.recordDecision(run.datasetId, DecisionKind::KeepAll, 1));
            store.recoverStaleRuns();  // nothing to do, and nothing it may do
        }
        QCOMPARE(fileHash(path), before);

        // Nothing is created, and an older schema is not upgraded behind the reader's back.
        const std::string missing = file("missing.ndw");
        QVERIFY_THROWS_EXCEPTION(StoreError, ProjectStore(missing, ProjectStore::Mode::ReadOnly));
        QVERIFY(!fs::exists(missing));
        const std::string empty = file("empty-ro.ndw");
        writeBytes(empty, "");
        QVERIFY_THROWS_EXCEPTION(StoreError, ProjectStore(empty, ProjectStore::Mode::ReadOnly));
        QCOMPARE(fs::file_size(empty), std::uintmax_t{0});
        const std::string older = file("older.ndw");
        makeProject(older);
        {
            sql::Database db(older, false);
            db.exec("PRAGMA user_version = " + std::to_string(schema::kVersion - 1));
        }
        try {
            ProjectStore store(older, ProjectStore::Mode::ReadOnly);
            QFAIL("a read-only store opened a project that needs an upgrade");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("upgrade") != std::string::npos, e.what());
        }
    }

    // Reading a project has no side effect: a run whose process died stays "running" through
    // every read, and becomes "interrupted" (its dead lock gone) when recovery is asked for.
    void recoveryIsAnExplicitCall() {
        const std::string path = file("stale.ndw");
        const RunResult finished = makeProject(path);
        int64_t stale = 0;
        {
            ProjectStore store(path);
            RunResult run = makeRun(finished.datasetId, 20);
            stale = store.beginRun(run);
        }
        // The lock of a process that is gone: nobody holds its flock.
        fs::create_directories(path + ".d");
        const std::string lock = path + ".d/run-" + std::to_string(stale) + ".lock";
        writeBytes(lock, "{}");
        {
            ProjectStore store(path);
            QCOMPARE(store.listRuns().size(), std::size_t{2});
            COMPARE_STR(store.loadRun(stale).status, std::string("running"));
            COMPARE_STR(store.runRow(stale).run.status, std::string("running"));
            COMPARE_STR(store.runStates().back().status, std::string("running"));
        }
        COMPARE_STR(statusOf(path, stale), std::string("running"));
        QVERIFY(fs::exists(lock));
        {
            ProjectStore store(path);
            store.recoverStaleRuns();
            const RunResult recovered = store.loadRun(stale);
            COMPARE_STR(recovered.status, std::string("interrupted"));
            COMPARE_STR(recovered.error, std::string(kStaleRunError));
        }
        QVERIFY(!fs::exists(lock));
        COMPARE_STR(statusOf(path, finished.runId), std::string("ok"));
    }

    // One decoder of the runs row: the store, its row alone and the workbench's queries read
    // the same parameters (the sketch kind included) and counts.
    void oneRunDecoderForEveryReader() {
        const std::string path = file("decoder.ndw");
        const RunResult run = makeProject(path);
        const ProjectStore store(path, ProjectStore::Mode::ReadOnly);
        const RunRow row = store.runRow(run.runId);
        checkParams(run.params, row.run.params);
        QVERIFY(row.run.params.signature.sketch == SketchKind::Oph);
        COMPARE_STR(row.paramsJson, toJson(run.params));
        COMPARE_STR(row.signatureKey, signatureCacheKey(run.params.signature, run.params.reader));
        QCOMPARE(row.run.counts.removed, run.counts.removed);
        QVERIFY_THROWS_EXCEPTION(StoreError, store.runRow(run.runId + 5));

        ProjectQueries queries(path);
        const RunInfo info = queries.runInfo(run.runId);
        checkParams(run.params, info.params);
        QVERIFY(info.params.signature.sketch == SketchKind::Oph);
        QCOMPARE(info.resolvedBuckets, run.resolvedBuckets);
        QCOMPARE(info.documents, run.counts.documents);
        QCOMPARE(info.clusters, run.counts.clusters);
        QCOMPARE(info.kept, run.counts.kept);
        QCOMPARE(info.removed, run.counts.removed);
        QCOMPARE(info.chainedRemovals, run.counts.chainedRemovals);
        // The queries' files and reader come through the dataset tables' mappers too.
        const DatasetSource source = queries.datasetSource(run.datasetId);
        const DatasetRecord stored = store.loadDataset(run.datasetId, nullptr);
        QCOMPARE(source.documents, uint64_t{20});
        COMPARE_STR(source.reader.textField, stored.reader.textField);
        COMPARE_STR(source.reader.keepField, stored.reader.keepField);
        QCOMPARE(source.files.size(), stored.files.size());
        for (std::size_t i = 0; i < stored.files.size(); ++i) {
            COMPARE_STR(source.files[i].path, stored.files[i].path);
            QCOMPARE(source.files[i].fingerprint, stored.files[i].fingerprint);
            QCOMPARE(source.files[i].inode, stored.files[i].inode);
        }

        // A stored value this version does not know is refused by name, not guessed.
        {
            sql::Database db(path, false);
            db.exec("UPDATE runs SET hash_family = 'quantum'");
        }
        try {
            store.runRow(run.runId);
            QFAIL("an unknown hash family was decoded");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("quantum") != std::string::npos, e.what());
        }
    }

    // The wrapper: columns by name, a transaction or savepoint that is not committed rolls back
    // (also when an exception leaves its scope), a read transaction, copied text parameters.
    void statementsAndTransactions() {
        sql::Database db(":memory:", sql::OpenMode::Create);
        db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL)");
        {
            auto st = db.prepare("INSERT INTO t(name, score) VALUES(?1, ?2)");
            st.bindCopy(1, std::string("first")).bind(2, 0.5).run();
            st.bindCopy(1, std::string("second")).bindNull(2).run();
        }
        {
            auto st = db.prepare("SELECT name, score, id FROM t ORDER BY id");
            QVERIFY(st.step());
            const sql::Row row(st);
            COMPARE_STR(row.string("name"), std::string("first"));
            QCOMPARE(row.real("score"), 0.5);
            QCOMPARE(st.column("id"), 2);
            QVERIFY(!row.has("missing"));
            QVERIFY(row.isNull("missing"));
            QVERIFY_THROWS_EXCEPTION(StoreError, row.int64("missing"));
            QVERIFY(st.step());
            QVERIFY(row.isNull("score"));
            QVERIFY(std::isnan(st.realOrNaN(1)));
        }
        try {
            sql::Transaction tx(db);
            db.exec("DELETE FROM t");
            throw std::runtime_error("planted");
        } catch (const std::runtime_error&) {
        }
        QCOMPARE(db.queryInt("SELECT count(*) FROM t"), int64_t{2});
        {
            sql::Transaction tx(db);
            db.exec("DELETE FROM t WHERE id = 2");
            tx.commit();
        }
        QCOMPARE(db.queryInt("SELECT count(*) FROM t"), int64_t{1});
        {
            sql::Savepoint outer(db, "outer");
            db.exec("INSERT INTO t(name) VALUES('kept')");
            {
                sql::Savepoint inner(db, "inner");
                db.exec("INSERT INTO t(name) VALUES('dropped')");
            }
            outer.release();
        }
        QCOMPARE(db.queryInt("SELECT count(*) FROM t"), int64_t{2});
        {
            sql::Transaction snapshot(db, sql::Transaction::Kind::Read);
            QCOMPARE(db.queryInt("SELECT count(*) FROM t WHERE name = 'kept'"), int64_t{1});
            snapshot.commit();
        }
        // A COMMIT outside a transaction is an error, reported as one.
        QVERIFY_THROWS_EXCEPTION(StoreError, db.exec("COMMIT"));
        QVERIFY(db.hasTable("t"));
        QVERIFY(!db.hasTable("u"));
    }

    // Rows inserted many to a statement: every row once, in order, with its NULLs, for counts
    // below, at and around a statement's 256 rows, and none at all.
    void rowsManyToAStatement() {
        for (const int count : {0, 1, 255, 256, 257, 1000}) {
            sql::Database db(":memory:", sql::OpenMode::Create);
            db.exec("CREATE TABLE r(k INTEGER PRIMARY KEY, v REAL, name TEXT)");
            const std::vector<std::string> names{"one", "two", "three"};
            sql::RowInserter<int> rows(db, "INSERT INTO r(k, v, name)", 3,
                                       [&names](sql::Statement& st, int first, const int& k) {
                                           st.bind(first, int64_t{k});
                                           if (k % 3 == 0)
                                               st.bindNull(first + 1);
                                           else
                                               st.bind(first + 1, k * 0.5);
                                           st.bind(first + 2, std::string_view(names[k % 3]));
                                       });
            for (int k = 0; k < count; ++k)
                rows.add(k);
            rows.finish();
            QCOMPARE(db.queryInt("SELECT count(*) FROM r"), int64_t{count});
            auto st = db.prepare("SELECT k, v, name FROM r ORDER BY k");
            for (int k = 0; k < count; ++k) {
                QVERIFY(st.step());
                QCOMPARE(st.int64(0), int64_t{k});
                if (k % 3 == 0)
                    QVERIFY(std::isnan(st.realOrNaN(1)));
                else
                    QCOMPARE(st.realOrNaN(1), k * 0.5);
                const sql::Row row(st);
                COMPARE_STR(row.string("name"), names[static_cast<std::size_t>(k % 3)]);
            }
            QVERIFY(!st.step());
        }
    }
};

QTEST_GUILESS_MAIN(TestProjectAccess)
#include "test_project_access.moc"
