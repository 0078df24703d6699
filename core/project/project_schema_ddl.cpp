// The schema's DDL, version by version, and the two ways it is laid down: a new project gets
// every version's step in order, an older one the steps after its version (project_schema_ddl.h).
#include "project_schema_ddl.h"

#include <string>

#include "content_pin.h"
#include "project_schema.h"
#include "project_store.h"

namespace neardup::schema {

namespace {

// Version 1. Unsigned 64-bit quantities (seed, bucket counts, band keys) are stored bit-cast
// into SQLite's signed INTEGER; every other count stays far below 2^63.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta(
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE datasets(
    id          INTEGER PRIMARY KEY,
    created_at  TEXT NOT NULL,
    reader_json TEXT NOT NULL,
    lines_read  INTEGER NOT NULL,
    blank_lines INTEGER NOT NULL,
    input_bytes INTEGER NOT NULL,
    documents   INTEGER NOT NULL
);

CREATE TABLE dataset_files(
    dataset_id  INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    file_index  INTEGER NOT NULL,
    path        TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    compression TEXT NOT NULL,
    PRIMARY KEY(dataset_id, file_index)
) WITHOUT ROWID;

CREATE TABLE documents(
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    doc_index  INTEGER NOT NULL,
    file_index INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    offset     INTEGER NOT NULL,
    length     INTEGER NOT NULL,
    chars      INTEGER NOT NULL,
    doc_id     TEXT NOT NULL,
    keep_value REAL,
    PRIMARY KEY(dataset_id, doc_index)
) WITHOUT ROWID;
CREATE INDEX documents_by_doc_id ON documents(dataset_id, doc_id);

CREATE TABLE dataset_rejections(
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    ordinal    INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    count      INTEGER NOT NULL,
    first_file TEXT NOT NULL,
    first_line INTEGER NOT NULL,
    PRIMARY KEY(dataset_id, ordinal)
) WITHOUT ROWID;

CREATE TABLE rejection_samples(
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    ordinal    INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    file_index INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    detail     TEXT NOT NULL,
    PRIMARY KEY(dataset_id, ordinal)
) WITHOUT ROWID;

CREATE TABLE signature_caches(
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    cache_key  TEXT NOT NULL,
    path       TEXT,
    documents  INTEGER NOT NULL,
    hashes     INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY(dataset_id, cache_key)
) WITHOUT ROWID;

CREATE TABLE signature_blobs(
    dataset_id INTEGER NOT NULL,
    cache_key  TEXT NOT NULL,
    data       BLOB NOT NULL,
    PRIMARY KEY(dataset_id, cache_key),
    FOREIGN KEY(dataset_id, cache_key) REFERENCES signature_caches(dataset_id, cache_key)
        ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE runs(
    id                  INTEGER PRIMARY KEY,
    dataset_id          INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    started_at          TEXT NOT NULL,
    finished_at         TEXT,
    status              TEXT NOT NULL,
    error               TEXT NOT NULL DEFAULT '',
    backend             TEXT NOT NULL,
    threads             INTEGER NOT NULL,
    params_json         TEXT NOT NULL,
    signature_key       TEXT NOT NULL,
    text_field          TEXT NOT NULL,
    id_field            TEXT NOT NULL,
    keep_field          TEXT NOT NULL,
    chunk_bytes         INTEGER NOT NULL,
    nfc                 INTEGER NOT NULL,
    lowercase           INTEGER NOT NULL,
    collapse_whitespace INTEGER NOT NULL,
    trim                INTEGER NOT NULL,
    shingle             TEXT NOT NULL,
    ngram               INTEGER NOT NULL,
    hashes              INTEGER NOT NULL,
    hash_family         TEXT NOT NULL,
    sketch              TEXT NOT NULL DEFAULT 'classic',
    seed                INTEGER NOT NULL,
    bands               INTEGER NOT NULL,
    rows                INTEGER NOT NULL,
    bucket_key          TEXT NOT NULL,
    buckets             TEXT NOT NULL,
    lsh_buckets         INTEGER NOT NULL,
    resolved_buckets    INTEGER NOT NULL,
    threshold           REAL NOT NULL,
    store_floor         REAL NOT NULL,
    verify              INTEGER NOT NULL,
    keep_policy         TEXT NOT NULL,
    requested_threads   INTEGER NOT NULL,
    requested_backend   TEXT NOT NULL,
    signatures_reused   INTEGER NOT NULL,
    pairs_reused        INTEGER NOT NULL,
    lines_read          INTEGER NOT NULL,
    blank_lines         INTEGER NOT NULL,
    rejected            INTEGER NOT NULL,
    documents           INTEGER NOT NULL,
    short_documents     INTEGER NOT NULL,
    input_bytes         INTEGER NOT NULL,
    candidate_pairs     INTEGER NOT NULL,
    stored_pairs        INTEGER NOT NULL,
    duplicate_pairs     INTEGER NOT NULL,
    clusters            INTEGER NOT NULL,
    kept                INTEGER NOT NULL,
    removed             INTEGER NOT NULL,
    memory_budget       INTEGER NOT NULL DEFAULT 0,
    spilled             INTEGER NOT NULL DEFAULT 0,
    spill_bytes         INTEGER NOT NULL DEFAULT 0,
    peak_rss_bytes      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_dataset ON runs(dataset_id, status);

CREATE TABLE run_phases(
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    phase   TEXT NOT NULL,
    seconds REAL NOT NULL,
    items   INTEGER NOT NULL,
    bytes   INTEGER NOT NULL,
    reused  INTEGER NOT NULL,
    PRIMARY KEY(run_id, ordinal)
) WITHOUT ROWID;

CREATE TABLE band_stats(
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    band          INTEGER NOT NULL,
    buckets       INTEGER NOT NULL,
    multi_buckets INTEGER NOT NULL,
    mean_size     REAL NOT NULL,
    stddev_size   REAL NOT NULL,
    max_size      INTEGER NOT NULL,
    comparisons   INTEGER NOT NULL,
    outlier_count INTEGER NOT NULL,
    PRIMARY KEY(run_id, band)
) WITHOUT ROWID;

CREATE TABLE band_histogram(
    run_id   INTEGER NOT NULL,
    band     INTEGER NOT NULL,
    bin      INTEGER NOT NULL,
    size_min INTEGER NOT NULL,
    size_max INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY(run_id, band, bin),
    FOREIGN KEY(run_id, band) REFERENCES band_stats(run_id, band) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE outlier_buckets(
    run_id      INTEGER NOT NULL,
    band        INTEGER NOT NULL,
    rank        INTEGER NOT NULL,
    key         INTEGER NOT NULL,
    size        INTEGER NOT NULL,
    comparisons INTEGER NOT NULL,
    PRIMARY KEY(run_id, band, rank),
    FOREIGN KEY(run_id, band) REFERENCES band_stats(run_id, band) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE pairs(
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    a       INTEGER NOT NULL,
    b       INTEGER NOT NULL,
    matches INTEGER NOT NULL,
    exact   REAL,
    PRIMARY KEY(run_id, a, b)
) WITHOUT ROWID;

CREATE TABLE clusters(
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    cluster        INTEGER NOT NULL,
    representative INTEGER NOT NULL,
    size           INTEGER NOT NULL,
    PRIMARY KEY(run_id, cluster)
) WITHOUT ROWID;

-- Key columns come first in every WITHOUT ROWID table: SQLite 3.40's integrity_check falsely
-- reports "NULL value" in a NOT NULL column declared before a key column.
CREATE TABLE cluster_members(
    run_id    INTEGER NOT NULL,
    doc_index INTEGER NOT NULL,
    cluster   INTEGER NOT NULL,
    PRIMARY KEY(run_id, doc_index),
    FOREIGN KEY(run_id, cluster) REFERENCES clusters(run_id, cluster) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX cluster_members_by_cluster ON cluster_members(run_id, cluster);

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

CREATE VIEW run_phase_throughput AS
SELECT run_id, ordinal, phase, seconds, items, bytes, reused,
       CASE WHEN seconds > 0 THEN items / seconds END AS items_per_second,
       CASE WHEN seconds > 0 THEN bytes / seconds / 1e6 END AS mb_per_second
FROM run_phases;
)sql";

// Version 2 adds what a person decides while auditing clusters, and per-worker phase timings
// (GPUs, CPU workers, MPI ranks) that show load imbalance.
constexpr const char* kSchemaV2 = R"sql(
-- Audit decisions belong to the dataset, so they apply to every run over it, whatever its
-- parameters: not_duplicate(doc_a, doc_b) never joins that pair (doc_a < doc_b);
-- keep_instead(doc_a) makes doc_a the representative of the cluster holding it;
-- keep_all(doc_a) keeps every member of the cluster holding doc_a. doc_b is NULL except for
-- not_duplicate. Later decisions about the same documents win (higher id).
CREATE TABLE decisions(
    id         INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK(kind IN ('not_duplicate', 'keep_instead', 'keep_all')),
    doc_a      INTEGER NOT NULL,
    doc_b      INTEGER,
    created_at TEXT NOT NULL
);
CREATE INDEX decisions_by_dataset ON decisions(dataset_id, kind);

-- Time each worker (a GPU, a CPU worker, an MPI rank) spent in each phase of a run.
CREATE TABLE worker_phases(
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    worker  INTEGER NOT NULL,
    phase   TEXT NOT NULL,
    label   TEXT NOT NULL,
    seconds REAL NOT NULL,
    items   INTEGER NOT NULL,
    bytes   INTEGER NOT NULL,
    PRIMARY KEY(run_id, worker, phase)
) WITHOUT ROWID;
)sql";

// Version 3 pins each input (core/io/input_pin.h): its identity when it was listed (change time,
// device, inode) and the fingerprint of its content computed while it was read. NULL in rows
// of older projects: their files are checked by size and modification time only.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE dataset_files ADD COLUMN ctime_ns INTEGER;
ALTER TABLE dataset_files ADD COLUMN device INTEGER;
ALTER TABLE dataset_files ADD COLUMN inode INTEGER;
ALTER TABLE dataset_files ADD COLUMN content_bytes INTEGER;
ALTER TABLE dataset_files ADD COLUMN fingerprint INTEGER;
)sql";

// Version 4 records how removals were decided (core/lsh/clustering.h): the rule of each run, the
// removals the components rule makes without a witness, and for each removed cluster member
// the kept document it is removed for. A project made before stored component runs: their
// members are removed for their cluster's representative, and their chained removals are
// counted from the stored pairs.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE runs ADD COLUMN decide TEXT NOT NULL DEFAULT 'components';
ALTER TABLE runs ADD COLUMN chained_removals INTEGER NOT NULL DEFAULT 0;
-- The kept document the member is removed for; NULL when the member is kept. Under the witness
-- rule, its witness: a member it forms a duplicate pair with. Under the components rule, the
-- cluster's representative (a witness only when the two form a duplicate pair).
ALTER TABLE cluster_members ADD COLUMN removed_for INTEGER;
-- For a member whose signature equals another member's (the comparison stores such copies'
-- pairs with the group's first document only), that first document, whose pairs it shares.
ALTER TABLE cluster_members ADD COLUMN copy_of INTEGER;
UPDATE cluster_members SET removed_for = (
    SELECT c.representative FROM clusters c
    WHERE c.run_id = cluster_members.run_id AND c.cluster = cluster_members.cluster)
WHERE doc_index != (
    SELECT c.representative FROM clusters c
    WHERE c.run_id = cluster_members.run_id AND c.cluster = cluster_members.cluster);
UPDATE runs SET chained_removals = (
    SELECT count(*) FROM cluster_members m
    WHERE m.run_id = runs.id AND m.removed_for IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM pairs p
        WHERE p.run_id = m.run_id AND p.a = min(m.doc_index, m.removed_for)
          AND p.b = max(m.doc_index, m.removed_for)
          AND CASE WHEN p.exact IS NOT NULL THEN p.exact >= runs.threshold - 1e-6
                   ELSE p.matches >= runs.threshold * runs.hashes - 1e-9 END));

DROP VIEW document_status;
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

// Version 5 adds the review workflow: the "confirmed_duplicate" verdict among the decisions (a
// CHECK constraint cannot be altered: the table is rebuilt with its rows and ids), and the
// sampled audits of runs (core/audit/audit_sample.h): the pairs drawn, stratified by estimated
// Jaccard over [threshold, 1], each stratum's share of the run's duplicate pairs, and the
// verdict given on each pair.
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE decisions_v5(
    id         INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK(kind IN ('not_duplicate', 'keep_instead', 'keep_all',
                                            'confirmed_duplicate')),
    doc_a      INTEGER NOT NULL,
    doc_b      INTEGER,
    created_at TEXT NOT NULL
);
INSERT INTO decisions_v5(id, dataset_id, kind, doc_a, doc_b, created_at)
    SELECT id, dataset_id, kind, doc_a, doc_b, created_at FROM decisions;
DROP TABLE decisions;
ALTER TABLE decisions_v5 RENAME TO decisions;
CREATE INDEX decisions_by_dataset ON decisions(dataset_id, kind);

-- A sampled audit of a run: `requested` pairs drawn with `seed` among the run's duplicate pairs
-- at `threshold`, in `strata` strata of estimated Jaccard of equal width over [threshold, 1].
CREATE TABLE audit_samples(
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    seed       INTEGER NOT NULL,
    threshold  REAL NOT NULL,
    strata     INTEGER NOT NULL,
    requested  INTEGER NOT NULL
);
CREATE INDEX audit_samples_by_run ON audit_samples(run_id);

-- Each stratum's bounds and how many of the run's duplicate pairs fall in it (its weight).
CREATE TABLE audit_strata(
    sample_id INTEGER NOT NULL REFERENCES audit_samples(id) ON DELETE CASCADE,
    stratum   INTEGER NOT NULL,
    low       REAL NOT NULL,
    high      REAL NOT NULL,
    pairs     INTEGER NOT NULL,
    PRIMARY KEY(sample_id, stratum)
) WITHOUT ROWID;

-- The pairs drawn, in the order they are presented; verdict NULL until given.
CREATE TABLE audit_pairs(
    sample_id  INTEGER NOT NULL REFERENCES audit_samples(id) ON DELETE CASCADE,
    ordinal    INTEGER NOT NULL,
    stratum    INTEGER NOT NULL,
    doc_a      INTEGER NOT NULL,
    doc_b      INTEGER NOT NULL,
    estimated  REAL NOT NULL,
    verdict    TEXT CHECK(verdict IN ('duplicate', 'not_duplicate', 'unsure')),
    decided_at TEXT,
    PRIMARY KEY(sample_id, ordinal)
) WITHOUT ROWID;
)sql";

// Version 6 pins each input's content with a keyed tag (core/io/content_pin.h): 16 bytes under
// the project's key, meta 'pin_key' (64 hex digits, made when the project is created or
// upgraded). Rows of older versions keep their 64-bit fingerprint and no pin.
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE dataset_files ADD COLUMN pin BLOB;
)sql";

// Version 7 deduplicates against a reference (`neardup run --reference`): a dataset's first
// reference_files files are the reference, whose documents are never removed nor written; a
// run counts the reference's documents and the removals a reference document witnessed, and
// document_status names a reference document's status 'reference' (the first
// reference_documents of the run's documents).
constexpr const char* kSchemaV7 = R"sql(
ALTER TABLE datasets ADD COLUMN reference_files INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN reference_documents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN removed_by_reference INTEGER NOT NULL DEFAULT 0;
)sql";

// document_status from version 7 on (kDocumentStatus: its columns, then a version's FROM).
constexpr const char* kDocumentStatus = R"sql(
DROP VIEW document_status;
CREATE VIEW document_status AS
SELECT r.id AS run_id,
       d.doc_index AS doc_index,
       d.doc_id AS doc_id,
       CASE WHEN d.doc_index < r.reference_documents THEN 'reference'
            WHEN m.removed_for IS NULL THEN 'kept'
            ELSE 'removed' END AS status,
       m.cluster AS cluster,
       m.removed_for AS removed_for
)sql";
constexpr const char* kDocumentStatusFromV7 = R"sql(
FROM runs r
JOIN documents d ON d.dataset_id = r.dataset_id
LEFT JOIN cluster_members m ON m.run_id = r.id AND m.doc_index = d.doc_index;
)sql";

// Version 8 lets a dataset share its first documents with the dataset of its reference: a run
// against a reference signed before stores only its inputs' document rows, and the first
// base_documents documents are base_dataset's rows of the same doc_index (a project grows with
// the new data, not with a copy of the reference per run); its signature cache may leave the
// shared rows to the base's cache under the same key (shared_rows: a hole in its file). No FOREIGN
// KEY on base_dataset: an older version's test rebuilds drop the column, which SQLite refuses for a
// key column; the store checks the base when it loads a dataset. document_status reads a shared
// document from its base (an IN over the two datasets, not an OR of two ranges: a join on doc_index
// then stays a primary-key look-up).
constexpr const char* kSchemaV8 = R"sql(
ALTER TABLE datasets ADD COLUMN base_dataset INTEGER;
ALTER TABLE datasets ADD COLUMN base_documents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE signature_caches ADD COLUMN shared_rows INTEGER NOT NULL DEFAULT 0;
)sql";
constexpr const char* kDocumentStatusFromV8 = R"sql(
FROM runs r
JOIN datasets ds ON ds.id = r.dataset_id
JOIN documents d ON d.dataset_id IN (r.dataset_id, ds.base_dataset)
                AND (d.doc_index >= ds.base_documents) = (d.dataset_id = r.dataset_id)
LEFT JOIN cluster_members m ON m.run_id = r.id AND m.doc_index = d.doc_index;
)sql";

// A fresh content pin key in the meta table.
void addPinKey(sql::Database& db) {
    const PinKey key = newPinKey();
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (const uint8_t byte : key) {
        hex += kHex[byte >> 4];
        hex += kHex[byte & 15];
    }
    auto st = db.prepare("INSERT INTO meta(key, value) VALUES('pin_key', ?1)");
    st.bind(1, std::string_view(hex)).run();
}

}  // namespace

// Upgrades a project from schema `from` (< kVersion) to kVersion, inside the caller's
// transaction. One step per version.
void migrate(sql::Database& db, int from) {
    for (int v = from; v < kVersion; ++v) {
        switch (v) {
            case 1:
                db.exec(kSchemaV2);
                break;
            case 2:
                db.exec(kSchemaV3);
                break;
            case 3:
                db.exec(kSchemaV4);
                break;
            case 4:
                db.exec(kSchemaV5);
                break;
            case 5:
                db.exec(kSchemaV6);
                addPinKey(db);
                break;
            case 6:
                db.exec(kSchemaV7);
                db.exec(std::string(kDocumentStatus) + kDocumentStatusFromV7);
                break;
            case 7:
                db.exec(kSchemaV8);
                db.exec(std::string(kDocumentStatus) + kDocumentStatusFromV8);
                break;
            default:
                throw StoreError("no upgrade from schema version " + std::to_string(v));
        }
    }
    db.exec("UPDATE meta SET value = '" + std::to_string(kVersion) +
            "' WHERE key = 'schema_version'");
}

void create(sql::Database& db) {
    db.exec(kSchemaV1);
    db.exec(kSchemaV2);
    db.exec(kSchemaV3);
    db.exec(kSchemaV4);
    db.exec(kSchemaV5);
    db.exec(kSchemaV6);
    db.exec(kSchemaV7);
    db.exec(kSchemaV8);
    db.exec(std::string(kDocumentStatus) + kDocumentStatusFromV8);
    addPinKey(db);
    auto meta = db.prepare("INSERT INTO meta(key, value) VALUES(?1, ?2)");
    const std::string version = std::to_string(kVersion);
    meta.bind(1, std::string_view("format")).bind(2, std::string_view("neardup-project")).run();
    meta.bind(1, std::string_view("schema_version")).bind(2, std::string_view(version)).run();
    meta.bind(1, std::string_view("created_by"))
        .bind(2, std::string_view("NearDup " NEARDUP_VERSION))
        .run();
    db.exec(
        "INSERT INTO meta(key, value) VALUES('created_at', "
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    db.exec("PRAGMA user_version = " + std::to_string(kVersion));
}

}  // namespace neardup::schema
