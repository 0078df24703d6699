// The project file: schema, round trips of datasets, runs and signatures, reuse lookups,
// transactions, and refusal of files that are not projects.
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>

#include "project_schema.h"
#include "project_store.h"
#include "sqlite_handle.h"

using namespace neardup;
namespace fs = std::filesystem;

#define COMPARE_STR(actual, expected) \
    QCOMPARE(QString::fromStdString(actual), QString::fromStdString(expected))

namespace {

// Takes a project back to before schema version 3 (no pins in dataset_files).
constexpr const char* kDropPinColumns =
    "ALTER TABLE dataset_files DROP COLUMN ctime_ns;"
    "ALTER TABLE dataset_files DROP COLUMN device;"
    "ALTER TABLE dataset_files DROP COLUMN inode;"
    "ALTER TABLE dataset_files DROP COLUMN content_bytes;"
    "ALTER TABLE dataset_files DROP COLUMN fingerprint;";

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<InputFile> makeFiles() {
    InputFile a;
    a.path = "/data/corpus/part-0001.jsonl";
    a.size = 1234567890123;  // room for every synthetic document offset below
    a.mtimeNs = 1700000000123456789;
    InputFile b;
    b.path = "/data/corpus/part-0002.jsonl.zst";
    b.size = 42;
    b.mtimeNs = -5;  // before 1970: must survive the signed column
    b.compression = InputFile::Compression::Zstd;
    InputFile c;
    c.path = "/data/corpus/päärt-3.jsonl.gz";
    c.size = 0;
    c.mtimeNs = 1;
    c.compression = InputFile::Compression::Gzip;
    return {a, b, c};
}

ReaderOptions makeReader() {
    ReaderOptions r;
    r.textField = "body.text";
    r.idField = "meta.id";
    r.keepField = "score";
    return r;
}

std::string docId(std::size_t i) {
    if (i % 7 == 3) return {};
    if (i % 5 == 1) return "文書-" + std::to_string(i) + "-é\"\\";
    return "doc-" + std::to_string(i);
}

DocumentTable makeDocs(std::size_t n) {
    DocumentTable docs;
    docs.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double keep = i % 3 == 0 ? kNaN : static_cast<double>(i) * 0.25 - 3.0;
        docs.append(static_cast<uint32_t>(i % 3), i + 1, i * 1000 + (i % 11),
                    static_cast<uint32_t>(100 + i % 97), static_cast<uint32_t>(90 + i % 13), keep,
                    docId(i));
    }
    return docs;
}

DatasetRecord makeDataset() {
    DatasetRecord d;
    d.files = makeFiles();
    d.reader = makeReader();
    d.linesRead = 1234;
    d.blankLines = 7;
    d.inputBytes = 987654321;
    d.rejections = {{"malformed_json", 3, "/data/corpus/part-0001.jsonl", 17},
                    {"missing_text", 1, "/data/corpus/part-0002.jsonl.zst", 2}};
    Rejection r1;
    r1.reason = RejectReason::MalformedJson;
    r1.file = 0;
    r1.line = 17;
    r1.detail = "TAPE_ERROR: unexpected ']'";
    Rejection r2;
    r2.reason = RejectReason::MissingText;
    r2.file = 1;
    r2.line = 2;
    r2.detail = "";
    d.rejectionSamples = {r1, r2};
    return d;
}

// Turns a project of the current schema into what schema version 2 wrote: no rule, no chained
// count, no removed_for, the old document_status view.
constexpr const char* kDowngradeToV2 = R"sql(
DROP VIEW document_status;
ALTER TABLE cluster_members DROP COLUMN removed_for;
ALTER TABLE cluster_members DROP COLUMN copy_of;
ALTER TABLE runs DROP COLUMN decide;
ALTER TABLE runs DROP COLUMN chained_removals;
CREATE VIEW document_status AS
SELECT r.id AS run_id,
       d.doc_index AS doc_index,
       d.doc_id AS doc_id,
       CASE WHEN m.cluster IS NULL OR c.representative = d.doc_index THEN 'kept'
            ELSE 'removed' END AS status,
       m.cluster AS cluster
FROM runs r
JOIN documents d ON d.dataset_id = r.dataset_id
LEFT JOIN cluster_members m ON m.run_id = r.id AND m.doc_index = d.doc_index
LEFT JOIN clusters c ON c.run_id = m.run_id AND c.cluster = m.cluster;
PRAGMA user_version = 2;
UPDATE meta SET value = '2' WHERE key = 'schema_version';
)sql";

// Every field set to something other than its default.
RunParams makeParams() {
    RunParams p;
    p.reader = makeReader();
    p.reader.chunkBytes = 123456;
    p.signature.normalize.nfc = false;
    p.signature.normalize.collapseWhitespace = false;
    p.signature.shingle = ShingleKind::Word;
    p.signature.ngram = 3;
    p.signature.hashes = 64;
    p.signature.family = HashFamily::Rolling;
    p.signature.seed = 0xFEDCBA9876543210ull;  // above 2^63
    p.lsh.bands = 8;
    p.lsh.rows = 8;
    p.lsh.scheme = BandKeyScheme::Sum;
    p.lsh.bucketMode = BucketMode::Fixed;
    p.lsh.buckets = 977;
    p.compare.threshold = 0.75;
    p.compare.storeFloor = 0.55;
    p.compare.verify = VerifyMode::Exact;
    p.keep = KeepPolicy::MaxField;
    p.decide = DecideRule::Components;
    p.threads = 3;
    p.backend = "cpu";
    return p;
}

// A finished run over `documents` documents: clusters {1, 4, 9} (kept 4) and {2, 3} (kept 2).
RunResult makeRun(int64_t datasetId, std::size_t documents) {
    RunResult r;
    r.datasetId = datasetId;
    r.params = makeParams();
    r.backend = "cpu (3 threads)";
    r.threads = 3;
    r.startedAt = "2024-05-01T10:00:00.000Z";
    r.finishedAt = "2024-05-01T10:00:02.345Z";
    r.status = "ok";
    r.error = "";
    r.resolvedBuckets = 977;
    r.signaturesReused = true;
    r.pairsReused = false;
    r.counts = {1234, 7, 4, static_cast<uint64_t>(documents),     2, 987654321, 50,
                4,    3, 2, static_cast<uint64_t>(documents) - 3, 3};
    r.phases = {{"read", 0.5, 20, 987654321, false},
                {"signatures", 0.0, 20, 0, true},
                {"compare", 1.25, 50, 0, false}};
    r.rejections = makeDataset().rejections;
    BandStats b0;
    b0.band = 0;
    b0.buckets = 15;
    b0.multiBuckets = 3;
    b0.meanSize = 1.3333333333333333;
    b0.stddevSize = 0.47140452079103168;
    b0.maxSize = 3;
    b0.comparisons = 5;
    b0.histogram = {12, 3, 0, 0};
    b0.outlierCount = 1;
    b0.outliers = {{0xFFFFFFFFFFFFFFF0ull, 3, 3}};
    BandStats b1;
    b1.band = 1;
    b1.buckets = 20;
    b1.histogram = {20};
    r.bands = {b0, b1};
    r.pairs = {{1, 4, 60, -1.0f}, {1, 9, 52, 0.8125f}, {2, 3, 64, 1.0f}, {4, 9, 40, -1.0f}};
    r.clusterOf.assign(documents, RunResult::kNoCluster);
    r.clusterOf[1] = r.clusterOf[4] = r.clusterOf[9] = 0;
    r.clusterOf[2] = r.clusterOf[3] = 1;
    r.representative = {4, 2};
    // Components rule: 1 and 9 removed for 4 (1-4: 60 of 64 hashes, a duplicate at 0.75; 4-9:
    // 40 of 64, not one: 9 is chained), 3 for 2 (exact 1.0).
    r.removedFor.assign(documents, RunResult::kNoDocument);
    r.removedFor[1] = r.removedFor[9] = 4;
    r.removedFor[3] = 2;
    r.counts.chainedRemovals = 1;
    return r;
}

bool sameDouble(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

void checkDocs(const DocumentTable& expected, const DocumentTable& actual) {
    QCOMPARE(actual.size(), expected.size());
    QVERIFY(actual.file == expected.file);
    QVERIFY(actual.line == expected.line);
    QVERIFY(actual.offset == expected.offset);
    QVERIFY(actual.length == expected.length);
    QVERIFY(actual.chars == expected.chars);
    QVERIFY(actual.idArena == expected.idArena);
    QVERIFY(actual.idEnd == expected.idEnd);
    for (std::size_t i = 0; i < expected.size(); ++i)
        QVERIFY2(sameDouble(actual.keepValue[i], expected.keepValue[i]),
                 qPrintable(QStringLiteral("keep value of document %1").arg(i)));
}

void checkDataset(const DatasetRecord& expected, const DatasetRecord& actual) {
    QCOMPARE(actual.files.size(), expected.files.size());
    for (std::size_t i = 0; i < expected.files.size(); ++i) {
        COMPARE_STR(actual.files[i].path, expected.files[i].path);
        QCOMPARE(actual.files[i].size, expected.files[i].size);
        QCOMPARE(actual.files[i].mtimeNs, expected.files[i].mtimeNs);
        QVERIFY(actual.files[i].compression == expected.files[i].compression);
    }
    COMPARE_STR(actual.reader.textField, expected.reader.textField);
    COMPARE_STR(actual.reader.idField, expected.reader.idField);
    COMPARE_STR(actual.reader.keepField, expected.reader.keepField);
    QCOMPARE(actual.linesRead, expected.linesRead);
    QCOMPARE(actual.blankLines, expected.blankLines);
    QCOMPARE(actual.inputBytes, expected.inputBytes);
    QCOMPARE(actual.rejections.size(), expected.rejections.size());
    for (std::size_t i = 0; i < expected.rejections.size(); ++i) {
        COMPARE_STR(actual.rejections[i].reason, expected.rejections[i].reason);
        QCOMPARE(actual.rejections[i].count, expected.rejections[i].count);
        COMPARE_STR(actual.rejections[i].firstFile, expected.rejections[i].firstFile);
        QCOMPARE(actual.rejections[i].firstLine, expected.rejections[i].firstLine);
    }
    QCOMPARE(actual.rejectionSamples.size(), expected.rejectionSamples.size());
    for (std::size_t i = 0; i < expected.rejectionSamples.size(); ++i) {
        QVERIFY(actual.rejectionSamples[i].reason == expected.rejectionSamples[i].reason);
        QCOMPARE(actual.rejectionSamples[i].file, expected.rejectionSamples[i].file);
        QCOMPARE(actual.rejectionSamples[i].line, expected.rejectionSamples[i].line);
        COMPARE_STR(actual.rejectionSamples[i].detail, expected.rejectionSamples[i].detail);
    }
}

void checkParams(const RunParams& e, const RunParams& a) {
    QCOMPARE(a.decide, e.decide);
    COMPARE_STR(a.reader.textField, e.reader.textField);
    COMPARE_STR(a.reader.idField, e.reader.idField);
    COMPARE_STR(a.reader.keepField, e.reader.keepField);
    QCOMPARE(a.reader.chunkBytes, e.reader.chunkBytes);
    QCOMPARE(a.signature.normalize.nfc, e.signature.normalize.nfc);
    QCOMPARE(a.signature.normalize.lowercase, e.signature.normalize.lowercase);
    QCOMPARE(a.signature.normalize.collapseWhitespace, e.signature.normalize.collapseWhitespace);
    QCOMPARE(a.signature.normalize.trim, e.signature.normalize.trim);
    QVERIFY(a.signature.shingle == e.signature.shingle);
    QCOMPARE(a.signature.ngram, e.signature.ngram);
    QCOMPARE(a.signature.hashes, e.signature.hashes);
    QVERIFY(a.signature.family == e.signature.family);
    QCOMPARE(a.signature.seed, e.signature.seed);
    QCOMPARE(a.lsh.bands, e.lsh.bands);
    QCOMPARE(a.lsh.rows, e.lsh.rows);
    QVERIFY(a.lsh.scheme == e.lsh.scheme);
    QVERIFY(a.lsh.bucketMode == e.lsh.bucketMode);
    QCOMPARE(a.lsh.buckets, e.lsh.buckets);
    QVERIFY(a.compare.threshold == e.compare.threshold);
    QVERIFY(a.compare.storeFloor == e.compare.storeFloor);
    QCOMPARE(a.compare.verify, e.compare.verify);
    QVERIFY(a.keep == e.keep);
    QCOMPARE(a.threads, e.threads);
    COMPARE_STR(a.backend, e.backend);
    COMPARE_STR(toJson(a), toJson(e));
}

void checkRun(const RunResult& e, const RunResult& a) {
    QCOMPARE(a.runId, e.runId);
    QCOMPARE(a.datasetId, e.datasetId);
    checkParams(e.params, a.params);
    if (QTest::currentTestFailed()) return;
    COMPARE_STR(a.backend, e.backend);
    QCOMPARE(a.threads, e.threads);
    COMPARE_STR(a.startedAt, e.startedAt);
    COMPARE_STR(a.finishedAt, e.finishedAt);
    COMPARE_STR(a.status, e.status);
    COMPARE_STR(a.error, e.error);
    QCOMPARE(a.resolvedBuckets, e.resolvedBuckets);
    QCOMPARE(a.signaturesReused, e.signaturesReused);
    QCOMPARE(a.pairsReused, e.pairsReused);
    const uint64_t* ec = &e.counts.linesRead;
    const uint64_t* ac = &a.counts.linesRead;
    for (std::size_t i = 0; i < sizeof(RunCounts) / sizeof(uint64_t); ++i)
        QCOMPARE(ac[i], ec[i]);
    if (!e.removedFor.empty()) QCOMPARE(a.removedFor, e.removedFor);
    QCOMPARE(a.phases.size(), e.phases.size());
    for (std::size_t i = 0; i < e.phases.size(); ++i) {
        COMPARE_STR(a.phases[i].name, e.phases[i].name);
        QVERIFY(a.phases[i].seconds == e.phases[i].seconds);
        QCOMPARE(a.phases[i].items, e.phases[i].items);
        QCOMPARE(a.phases[i].bytes, e.phases[i].bytes);
        QCOMPARE(a.phases[i].reused, e.phases[i].reused);
    }
    QCOMPARE(a.rejections.size(), e.rejections.size());
    for (std::size_t i = 0; i < e.rejections.size(); ++i) {
        COMPARE_STR(a.rejections[i].reason, e.rejections[i].reason);
        QCOMPARE(a.rejections[i].count, e.rejections[i].count);
    }
    QCOMPARE(a.bands.size(), e.bands.size());
    for (std::size_t i = 0; i < e.bands.size(); ++i) {
        const BandStats& x = e.bands[i];
        const BandStats& y = a.bands[i];
        QCOMPARE(y.band, x.band);
        QCOMPARE(y.buckets, x.buckets);
        QCOMPARE(y.multiBuckets, x.multiBuckets);
        QVERIFY(y.meanSize == x.meanSize);
        QVERIFY(y.stddevSize == x.stddevSize);
        QCOMPARE(y.maxSize, x.maxSize);
        QCOMPARE(y.comparisons, x.comparisons);
        QVERIFY(y.histogram == x.histogram);
        QCOMPARE(y.outlierCount, x.outlierCount);
        QCOMPARE(y.outliers.size(), x.outliers.size());
        for (std::size_t k = 0; k < x.outliers.size(); ++k) {
            QCOMPARE(y.outliers[k].key, x.outliers[k].key);
            QCOMPARE(y.outliers[k].size, x.outliers[k].size);
            QCOMPARE(y.outliers[k].comparisons, x.outliers[k].comparisons);
        }
    }
    QCOMPARE(a.pairs.size(), e.pairs.size());
    for (std::size_t i = 0; i < e.pairs.size(); ++i) {
        QCOMPARE(a.pairs[i].a, e.pairs[i].a);
        QCOMPARE(a.pairs[i].b, e.pairs[i].b);
        QCOMPARE(a.pairs[i].matches, e.pairs[i].matches);
        QVERIFY(a.pairs[i].exact == e.pairs[i].exact);
    }
    QVERIFY(a.clusterOf == e.clusterOf);
    QVERIFY(a.representative == e.representative);
}

SignatureMatrix makeSignatures(std::size_t n, int hashes, uint32_t salt) {
    SignatureMatrix s;
    s.resize(n, hashes);
    for (std::size_t i = 0; i < s.values.size(); ++i)
        s.values[i] = static_cast<uint32_t>(i * 2654435761u) ^ salt;
    for (std::size_t i = 0; i < n; ++i) {
        s.digests[i] = (uint64_t{salt} << 32) ^ (i * 977);
        s.eligible[i] = (i + salt) % 3 != 0 ? 1 : 0;
    }
    return s;
}

void writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string readBytes(const std::string& path) {
    std::string bytes(fs::file_size(path), '\0');
    std::ifstream f(path, std::ios::binary);
    f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return bytes;
}

int64_t countRows(sql::Database& db, const std::string& query) {
    return db.queryInt(query);
}

}  // namespace

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
            pinned.files[0].fingerprint = ~uint64_t{0};
            const DatasetRecord again =
                store.loadDataset(store.saveDataset(pinned, makeDocs(2)), nullptr);
            QCOMPARE(again.files[0].ctimeNs, int64_t{11});
            QCOMPARE(again.files[0].device, uint64_t{12});
            QCOMPARE(again.files[0].inode, uint64_t{13});
            QVERIFY(again.files[0].fingerprinted);
            QCOMPARE(again.files[0].contentBytes, uint64_t{14});
            QCOMPARE(again.files[0].fingerprint, ~uint64_t{0});
            QVERIFY(!again.files[1].fingerprinted);
        }
        sql::Database db(path, false);
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
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
        QCOMPARE(store.findReusablePairs(datasetId, q, 977).value(), base.runId);

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
            // The message carries SQLite's reason and the statement.
            QVERIFY2(std::string(e.what()).find("UNIQUE") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("INSERT INTO pairs") != std::string::npos,
                     e.what());
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
