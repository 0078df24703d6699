// Upgrades of older project files in place: version 1 (before decisions and worker timings),
// version 2 (before input pins and before witnesses), each keeping its data.
#include "project_store_fixtures.h"

using namespace neardup;
using namespace storefixtures;

class TestProjectUpgrade : public QObject {
    Q_OBJECT

  private:
    QTemporaryDir tmp_;
    std::string file(const char* name) const {
        return QDir(tmp_.path()).filePath(QString::fromUtf8(name)).toStdString();
    }

  private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    // A version-1 project (before decisions and worker timings) opens and is upgraded in
    // place, keeping its data.
    void upgradesVersionOneProject() {
        const std::string path = file("v1.ndw");
        int64_t datasetId = 0;
        {
            ProjectStore store(path);
            datasetId = store.saveDataset(makeDataset(), makeDocs(5));
        }
        {
            sql::Database db(path, false);
            db.exec(kDropReferenceColumns);
            db.exec(kDowngradeToV2);
            db.exec(
                "DROP TABLE decisions; DROP TABLE worker_phases; PRAGMA user_version = 1;"
                "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
            db.exec(kDropPinColumns);
        }
        { ProjectStore store(path); }
        sql::Database db(path, false);
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
        QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name IN "
                             "('decisions', 'worker_phases')"),
                 int64_t{2});
        auto meta = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
        QVERIFY(meta.step());
        COMPARE_STR(meta.string(0), std::to_string(schema::kVersion));
        QCOMPARE(db.queryInt("SELECT count(*) FROM documents WHERE dataset_id = " +
                             std::to_string(datasetId)),
                 int64_t{5});
        // The new tables enforce their constraints.
        QVERIFY_THROWS_EXCEPTION(StoreError,
                                 db.exec("INSERT INTO decisions(dataset_id, kind, doc_a, "
                                         "created_at) VALUES(" +
                                         std::to_string(datasetId) + ", 'maybe', 1, 'now')"));
    }

    // A version-2 project (before inputs were pinned) is upgraded in place: its files load
    // without pins (checked by size and modification time only), new datasets get them.
    void upgradesVersionTwoProjectPins() {
        const std::string path = file("v2-pins.ndw");
        int64_t datasetId = 0;
        {
            ProjectStore store(path);
            DatasetRecord dataset = makeDataset();
            dataset.files[0].device = 7;
            dataset.files[0].fingerprinted = true;
            datasetId = store.saveDataset(dataset, makeDocs(5));
        }
        {
            sql::Database db(path, false);
            db.exec(kDropReferenceColumns);
            db.exec(kDowngradeToV2);
            db.exec(kDropPinColumns);
        }
        {
            ProjectStore store(path);
            const DatasetRecord back = store.loadDataset(datasetId, nullptr);
            QCOMPARE(back.files.size(), std::size_t{3});
            QCOMPARE(back.files[0].device, uint64_t{0});
            QVERIFY(!back.files[0].fingerprinted);
            COMPARE_STR(back.files[0].path, makeFiles()[0].path);
            DatasetRecord pinned = makeDataset();
            pinned.files[0].ctimeNs = 11;
            pinned.files[0].device = 12;
            pinned.files[0].inode = 13;
            pinned.files[0].fingerprinted = true;
            pinned.files[0].contentBytes = 14;
            pinned.files[0].pin = PinTag{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
            const DatasetRecord again =
                store.loadDataset(store.saveDataset(pinned, makeDocs(2)), nullptr);
            QCOMPARE(again.files[0].ctimeNs, int64_t{11});
            QCOMPARE(again.files[0].device, uint64_t{12});
            QCOMPARE(again.files[0].inode, uint64_t{13});
            QVERIFY(again.files[0].fingerprinted);
            QVERIFY(!again.files[0].legacySum);
            QCOMPARE(again.files[0].contentBytes, uint64_t{14});
            QVERIFY(again.files[0].pin == pinned.files[0].pin);
            QVERIFY(again.files[0].pinKey == store.pinKey());
            QVERIFY(!again.files[1].fingerprinted);
        }
        sql::Database db(path, false);
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
    }

    // A version-5 project (64-bit position-weighted sums) is upgraded in place: its files keep
    // their sums, checked as before, the project gets a content pin key, new datasets get pins.
    void upgradesVersionFiveProjectKeepsItsSums() {
        const std::string path = file("v5-sums.ndw");
        int64_t datasetId = 0;
        {
            ProjectStore store(path);
            datasetId = store.saveDataset(makeDataset(), makeDocs(5));
        }
        {
            sql::Database db(path, false);
            db.exec(kDropReferenceColumns);
            db.exec(
                "ALTER TABLE dataset_files DROP COLUMN pin;"
                "DELETE FROM meta WHERE key = 'pin_key';"
                "UPDATE dataset_files SET content_bytes = 99, fingerprint = 1234 "
                "WHERE file_index = 0;"
                "PRAGMA user_version = 5;"
                "UPDATE meta SET value = '5' WHERE key = 'schema_version'");
        }
        ProjectStore store(path);
        const DatasetRecord back = store.loadDataset(datasetId, nullptr);
        QVERIFY(back.files[0].fingerprinted);
        QVERIFY(back.files[0].legacySum);
        QCOMPARE(back.files[0].fingerprint, uint64_t{1234});
        QCOMPARE(back.files[0].contentBytes, uint64_t{99});
        QVERIFY(!back.files[1].fingerprinted);
        const PinKey key = store.pinKey();
        QVERIFY(key != PinKey{});
        QVERIFY(back.files[0].pinKey == key);
        sql::Database db(path, false);
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
    }

    // A version-6 project (before references) opens and is upgraded in place: its datasets
    // have no reference, its runs count none, and a dataset of the same files found again is
    // the same dataset only without a reference.
    void upgradesVersionSixProject() {
        const std::string path = file("v6.ndw");
        int64_t datasetId = 0, runId = 0;
        const DatasetRecord dataset = makeDataset();
        {
            ProjectStore store(path);
            datasetId = store.saveDataset(dataset, makeDocs(20));
            RunResult run = makeRun(datasetId, 20);
            run.runId = runId = store.beginRun(run);
            store.finishRun(run);
        }
        {
            sql::Database db(path, false);
            db.exec(kDropReferenceColumns);
            db.exec(
                "PRAGMA user_version = 6; UPDATE meta SET value = '6' WHERE key = "
                "'schema_version'");
        }
        ProjectStore store(path);
        DocumentTable docs;
        QCOMPARE(store.loadDataset(datasetId, &docs).referenceFiles, 0u);
        QCOMPARE(docs.referenceDocuments, 0u);
        const RunResult run = store.loadRun(runId);
        QCOMPARE(run.counts.referenceDocuments, uint64_t{0});
        QCOMPARE(run.counts.removedByReference, uint64_t{0});
        QCOMPARE(store.findDataset(dataset.files, dataset.reader).value(), datasetId);
        QVERIFY(!store.findDataset(dataset.files, dataset.reader, 1).has_value());
        sql::Database db(path, false);
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
    }

    // A version-7 project (before datasets shared documents) opens and is upgraded in place:
    // its datasets share none and every document still reads from its own rows.
    void upgradesVersionSevenProject() {
        const std::string path = file("v7.ndw");
        int64_t datasetId = 0;
        const DocumentTable docs = makeDocs(20);
        {
            ProjectStore store(path);
            datasetId = store.saveDataset(makeDataset(), docs);
            RunResult run = makeRun(datasetId, 20);
            run.runId = store.beginRun(run);
            store.finishRun(run);
        }
        {
            sql::Database db(path, false);
            db.exec(kDropBaseColumns);
            db.exec(
                "PRAGMA user_version = 7; UPDATE meta SET value = '7' WHERE key = "
                "'schema_version'");
        }
        ProjectStore store(path);
        DocumentTable loaded;
        QVERIFY(!store.loadDataset(datasetId, &loaded).baseDataset.has_value());
        checkDocs(docs, loaded);
        sql::Database db(path, false);
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
        QCOMPARE(db.queryInt("SELECT count(*) FROM document_status"), int64_t{20});
        QCOMPARE(db.queryInt("SELECT count(*) FROM datasets WHERE base_dataset IS NOT NULL"),
                 int64_t{0});
    }

    // A version-2 project (before witnesses) with a run opens and is upgraded in place: its
    // runs were decided by components, so members are removed for their representative, and
    // the removals without a duplicate pair with it are counted as chained.
    void upgradesVersionTwoProjectWitness() {
        const std::string path = file("v2-witness.ndw");
        int64_t runId = 0;
        {
            ProjectStore store(path);
            const int64_t datasetId = store.saveDataset(makeDataset(), makeDocs(20));
            RunResult run = makeRun(datasetId, 20);
            run.params.decide = DecideRule::Witness;  // overwritten by the upgrade
            run.counts.chainedRemovals = 0;
            run.runId = runId = store.beginRun(run);
            store.finishRun(run);
        }
        {
            sql::Database db(path, false);
            db.exec(kDropReferenceColumns);
            db.exec(kDowngradeToV2);
            db.exec(kDropPinColumns);
            QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{2});
        }
        {
            ProjectStore store(path);
            const RunResult run = store.loadRun(runId);
            QCOMPARE(run.params.decide, DecideRule::Components);
            QCOMPARE(run.counts.chainedRemovals, uint64_t{1});
            std::vector<uint32_t> expected(20, RunResult::kNoDocument);
            expected[1] = expected[9] = 4;
            expected[3] = 2;
            QCOMPARE(run.removedFor, expected);
            QCOMPARE(run.counts.removed, uint64_t{3});
        }
        sql::Database db(path, false);
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
        QCOMPARE(db.queryInt("SELECT count(*) FROM document_status WHERE status = 'removed'"),
                 int64_t{3});
        QCOMPARE(db.queryInt("SELECT removed_for FROM document_status WHERE doc_index = 9"),
                 int64_t{4});
        auto check = db.prepare("PRAGMA integrity_check");
        QVERIFY(check.step());
        COMPARE_STR(check.string(0), std::string("ok"));
    }
};

QTEST_GUILESS_MAIN(TestProjectUpgrade)
#include "test_project_upgrade.moc"
