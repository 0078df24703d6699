// Builders and checks shared by the project store's tests (test_project_store.cpp,
// test_project_upgrade.cpp): synthetic datasets, runs and signatures with every field set, and
// the SQL that takes a project back to older schema versions.
#pragma once

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

#define COMPARE_STR(actual, expected) \
    QCOMPARE(QString::fromStdString(actual), QString::fromStdString(expected))

namespace storefixtures {

using namespace neardup;
namespace fs = std::filesystem;

// Takes a project back to before schema version 3 (no pins in dataset_files).
inline constexpr const char* kDropPinColumns =
    "ALTER TABLE dataset_files DROP COLUMN ctime_ns;"
    "ALTER TABLE dataset_files DROP COLUMN device;"
    "ALTER TABLE dataset_files DROP COLUMN inode;"
    "ALTER TABLE dataset_files DROP COLUMN content_bytes;"
    "ALTER TABLE dataset_files DROP COLUMN fingerprint;";

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

inline std::vector<InputFile> makeFiles() {
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

inline ReaderOptions makeReader() {
    ReaderOptions r;
    r.textField = "body.text";
    r.idField = "meta.id";
    r.keepField = "score";
    return r;
}

inline std::string docId(std::size_t i) {
    if (i % 7 == 3) return {};
    if (i % 5 == 1) return "文書-" + std::to_string(i) + "-é\"\\";
    return "doc-" + std::to_string(i);
}

inline DocumentTable makeDocs(std::size_t n) {
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

inline DatasetRecord makeDataset() {
    DatasetRecord d;
    d.files = makeFiles();
    d.reader = makeReader();
    d.linesRead = 1234;
    d.blankLines = 7;
    d.inputBytes = 987654321;
    d.rejections = {{"malformed_json", 3, "/data/corpus/part-0001.jsonl", 17, {}},
                    {"missing_text", 1, "/data/corpus/part-0002.jsonl.zst", 2, {}}};
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

// Takes a project back to schema version 7: no shared documents, version 7's document_status
// view.
inline constexpr const char* kDropBaseColumns = R"sql(
DROP VIEW document_status;
ALTER TABLE datasets DROP COLUMN base_dataset;
ALTER TABLE datasets DROP COLUMN base_documents;
ALTER TABLE signature_caches DROP COLUMN shared_rows;
CREATE VIEW document_status AS
SELECT r.id AS run_id,
       d.doc_index AS doc_index,
       d.doc_id AS doc_id,
       CASE WHEN d.doc_index < r.reference_documents THEN 'reference'
            WHEN m.removed_for IS NULL THEN 'kept'
            ELSE 'removed' END AS status,
       m.cluster AS cluster,
       m.removed_for AS removed_for
FROM runs r
JOIN documents d ON d.dataset_id = r.dataset_id
LEFT JOIN cluster_members m ON m.run_id = r.id AND m.doc_index = d.doc_index;
)sql";

// Takes a project back to before schema version 7 (version 8's columns dropped too):
// no reference columns, version 4's document_status view.
inline constexpr const char* kDropReferenceColumns = R"sql(
DROP VIEW document_status;
ALTER TABLE datasets DROP COLUMN base_dataset;
ALTER TABLE datasets DROP COLUMN base_documents;
ALTER TABLE signature_caches DROP COLUMN shared_rows;
ALTER TABLE datasets DROP COLUMN reference_files;
ALTER TABLE runs DROP COLUMN reference_documents;
ALTER TABLE runs DROP COLUMN removed_by_reference;
CREATE VIEW document_status AS
SELECT r.id AS run_id,
       d.doc_index AS doc_index,
       d.doc_id AS doc_id,
       CASE WHEN m.removed_for IS NULL THEN 'kept' ELSE 'removed' END AS status,
       m.cluster AS cluster,
       m.removed_for AS removed_for
FROM runs r
JOIN documents d ON d.dataset_id = r.dataset_id
LEFT JOIN cluster_members m ON m.run_id = r.id AND m.doc_index = d.doc_index;
)sql";

// After kDropReferenceColumns, turns a project into what schema version 2 wrote: no content
// pins, no sampled audits, no rule, no chained count, no removed_for, the old document_status
// view.
inline constexpr const char* kDowngradeToV2 = R"sql(
ALTER TABLE dataset_files DROP COLUMN pin;
DELETE FROM meta WHERE key = 'pin_key';
DROP TABLE audit_pairs;
DROP TABLE audit_strata;
DROP TABLE audit_samples;
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
inline RunParams makeParams() {
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
inline RunResult makeRun(int64_t datasetId, std::size_t documents) {
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

inline bool sameDouble(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

inline void checkDocs(const DocumentTable& expected, const DocumentTable& actual) {
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

inline void checkDataset(const DatasetRecord& expected, const DatasetRecord& actual) {
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

inline void checkParams(const RunParams& e, const RunParams& a) {
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

inline void checkRun(const RunResult& e, const RunResult& a) {
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

inline SignatureMatrix makeSignatures(std::size_t n, int hashes, uint32_t salt) {
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

inline void writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string readBytes(const std::string& path) {
    std::string bytes(fs::file_size(path), '\0');
    std::ifstream f(path, std::ios::binary);
    f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return bytes;
}

inline int64_t countRows(sql::Database& db, const std::string& query) {
    return db.queryInt(query);
}

}  // namespace storefixtures
