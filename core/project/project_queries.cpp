// The workbench's read-only queries (project_queries.h): opening, runs, datasets, documents,
// decisions and bucket statistics.
#include "project_queries.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string_view>

#include "clustering.h"
#include "dataset_rows.h"
#include "decision_rows.h"
#include "project_schema.h"
#include "run_rows.h"
#include "sqlite_handle.h"

namespace neardup {

ProjectQueries::ProjectQueries(const std::string& path) : path_(path) {
    try {
        schema::refuseLinkedCompanions(path);
        db_ = std::make_unique<sql::Database>(path, sql::OpenMode::ReadOnly);
        schema::open(*db_, path, schema::Access::Read);
    } catch (const StoreError& e) {
        throw QueryError("cannot open " + path + ": " + e.what());
    }
    // A pipeline may be committing a run from another connection; wait for it.
    db_->setBusyTimeout(5000);
    try {
        auto s = db_->prepare("SELECT value FROM meta WHERE key = 'format'");
        if (!s.step() || s.string(0) != "neardup-project")
            throw QueryError(path + " is not a NearDup project");
        // The summary lives in this connection's temp schema, so it never touches the file.
        db_->exec("PRAGMA temp_store = MEMORY");
        db_->exec(
            "CREATE TEMP TABLE cluster_summary (run_id INTEGER, cluster INTEGER, size INTEGER,"
            " representative INTEGER, rep_id TEXT, pairs INTEGER, min_est REAL, mean_est REAL,"
            " min_exact REAL, mean_exact REAL, decision INTEGER NOT NULL DEFAULT 0,"
            // The component's diameter (NULL: not stored, or unknown) and its flags, set by
            // storeDiameters; a row replaced after a decision starts without them.
            " diameter REAL, farthest INTEGER, chain INTEGER NOT NULL DEFAULT 0,"
            " large INTEGER NOT NULL DEFAULT 0,"
            " PRIMARY KEY (run_id, cluster)) WITHOUT ROWID");
        // The audited clustering of runs whose dataset has decisions, in the stored layout.
        db_->exec(
            "CREATE TEMP TABLE adj_clusters (run_id INTEGER, cluster INTEGER,"
            " representative INTEGER, size INTEGER, keep_all INTEGER, decision INTEGER,"
            " PRIMARY KEY (run_id, cluster)) WITHOUT ROWID");
        db_->exec(
            "CREATE TEMP TABLE touched (run_id INTEGER, cluster INTEGER,"
            " PRIMARY KEY (run_id, cluster)) WITHOUT ROWID");
        db_->exec(
            "CREATE TEMP TABLE adj_members (run_id INTEGER, doc_index INTEGER, cluster INTEGER,"
            " removed_for INTEGER, PRIMARY KEY (run_id, doc_index)) WITHOUT ROWID");
        db_->exec("CREATE INDEX temp.adj_members_by_cluster ON adj_members (run_id, cluster)");
        db_->exec("CREATE TEMP TABLE filter_docs (doc_index INTEGER PRIMARY KEY)");
        for (const char* col :
             {"size", "rep_id", "min_est", "mean_est", "min_exact", "decision", "diameter"}) {
            const std::string sql = std::string("CREATE INDEX temp.cluster_summary_by_") + col +
                                    " ON cluster_summary (run_id, " + col + ", cluster)";
            db_->exec(sql);
        }
    } catch (const std::exception& e) {
        db_.reset();
        throw QueryError(std::string("cannot read ") + path + ": " + e.what());
    }
}

ProjectQueries::~ProjectQueries() = default;

void ProjectQueries::interrupt() {
    db_->interrupt();
}

std::vector<int64_t> ProjectQueries::runIds() {
    std::vector<int64_t> ids;
    auto s = db_->prepare("SELECT id FROM runs ORDER BY id");
    while (s.step())
        ids.push_back(s.int64(0));
    return ids;
}

RunInfo ProjectQueries::runInfo(int64_t runId) {
    auto s = db_->prepare(store_rows::selectRunSql("WHERE id = ?1"));
    s.bind(1, runId);
    if (!s.step()) throw QueryError("no run " + std::to_string(runId) + " in the project");
    const RunRow row = store_rows::readRun(s);
    const RunResult& run = row.run;
    RunInfo r;
    static_cast<RunCounts&>(r) = run.counts;
    r.runId = runId;
    r.datasetId = run.datasetId;
    r.status = run.status;
    r.params = run.params;
    r.resolvedBuckets = run.resolvedBuckets;
    return r;
}

DatasetSource ProjectQueries::datasetSource(int64_t datasetId) {
    DatasetSource d;
    d.datasetId = datasetId;
    DatasetRecord rec;
    const std::optional<uint64_t> documents = store_rows::readDataset(*db_, datasetId, rec);
    if (!documents) throw QueryError("no dataset " + std::to_string(datasetId) + " in the project");
    d.reader = rec.reader;
    d.documents = *documents;
    // The files with their pins (input_pin.h): content pins from schema version 6, legacy sums
    // in versions 3 to 5, none before.
    const int64_t version = db_->queryInt("PRAGMA user_version");
    auto s = db_->prepare(std::string("SELECT ") +
                          (version >= 6   ? store_rows::kFileColumns
                           : version >= 3 ? store_rows::kSumPinnedFileColumns
                                          : store_rows::kUnpinnedFileColumns) +
                          " FROM dataset_files WHERE dataset_id = ?1 ORDER BY file_index");
    s.bind(1, datasetId);
    while (s.step())
        d.files.push_back(store_rows::readFile(s, path_));
    if (version >= 6 && !d.files.empty()) {
        const PinKey key = store_rows::projectPinKey(*db_);
        for (InputFile& f : d.files)
            f.pinKey = key;
    }
    return d;
}

DocumentLocation ProjectQueries::documentLocation(int64_t datasetId, uint32_t docIndex) {
    auto s = db_->prepare(
        "SELECT file_index, line, offset, length FROM documents"
        " WHERE dataset_id = ?1 AND doc_index = ?2");
    s.bind(1, store_rows::documentsDatasetOf(*db_, datasetId, docIndex)).bind(2, int64_t{docIndex});
    if (!s.step()) throw QueryError("no document " + std::to_string(docIndex) + " in the dataset");
    return {s.u32(0), s.u64(1), s.u64(2), s.u32(3)};
}

std::string ProjectQueries::documentId(int64_t datasetId, uint32_t docIndex) {
    auto s = db_->prepare("SELECT doc_id FROM documents WHERE dataset_id = ?1 AND doc_index = ?2");
    s.bind(1, store_rows::documentsDatasetOf(*db_, datasetId, docIndex)).bind(2, int64_t{docIndex});
    return s.step() ? s.string(0) : std::string();
}

std::vector<Decision> ProjectQueries::decisions(int64_t datasetId) {
    try {
        return store_rows::loadDecisions(*db_, datasetId);
    } catch (const std::exception& e) {
        throw QueryError(e.what());
    }
}

std::vector<BandRow> ProjectQueries::bandStats(int64_t runId) {
    auto s = db_->prepare(
        "SELECT band, buckets, multi_buckets, mean_size, stddev_size, max_size, comparisons,"
        " outlier_count FROM band_stats WHERE run_id = ?1 ORDER BY band");
    s.bind(1, runId);
    std::vector<BandRow> rows;
    while (s.step())
        rows.push_back({s.i32(0), s.u64(1), s.u64(2), s.realOrNaN(3), s.realOrNaN(4), s.u64(5),
                        s.u64(6), s.u64(7)});
    return rows;
}

std::vector<HistogramBin> ProjectQueries::histogram(int64_t runId, int band) {
    auto s = db_->prepare(
        band >= 0 ? "SELECT bin, size_min, size_max, count FROM band_histogram"
                    " WHERE run_id = ?1 AND band = ?2 ORDER BY bin"
                  : "SELECT bin, min(size_min), max(size_max), sum(count) FROM band_histogram"
                    " WHERE run_id = ?1 GROUP BY bin ORDER BY bin");
    s.bind(1, runId);
    if (band >= 0) s.bind(2, int64_t{band});
    std::vector<HistogramBin> bins;
    while (s.step())
        bins.push_back({s.i32(0), s.u64(1), s.u64(2), s.u64(3)});
    return bins;
}

std::vector<OutlierRow> ProjectQueries::outliers(int64_t runId, int band) {
    auto s = db_->prepare(
        "SELECT o.band, o.key, o.size, o.comparisons,"
        " o.comparisons * 1.0 / nullif((SELECT sum(comparisons) FROM band_stats"
        "   WHERE run_id = ?1), 0)"
        " FROM outlier_buckets o WHERE o.run_id = ?1 AND (?2 < 0 OR o.band = ?2)"
        " ORDER BY o.size DESC, o.band, o.rank");
    s.bind(1, runId).bind(2, int64_t{band});
    std::vector<OutlierRow> rows;
    while (s.step()) {
        const double share = s.realOrNaN(4);
        rows.push_back({s.i32(0), s.u64(1), s.u64(2), s.u64(3), std::isnan(share) ? 0.0 : share});
    }
    return rows;
}

SizeMoments ProjectQueries::bucketSizeMoments(int64_t runId, int band) {
    // Pooled over bands: E[x] and E[x^2] weighted by each band's bucket count.
    auto s = db_->prepare(
        "SELECT sum(buckets), sum(buckets * mean_size),"
        " sum(buckets * (stddev_size * stddev_size + mean_size * mean_size))"
        " FROM band_stats WHERE run_id = ?1 AND (?2 < 0 OR band = ?2)");
    s.bind(1, runId).bind(2, int64_t{band});
    SizeMoments m;
    if (!s.step() || s.isNull(0) || s.int64(0) == 0) return m;
    m.buckets = s.u64(0);
    const auto n = static_cast<double>(m.buckets);
    m.mean = s.realOrNaN(1) / n;
    const double second = s.realOrNaN(2) / n;
    m.stddev = std::sqrt(std::max(0.0, second - m.mean * m.mean));
    return m;
}

std::optional<StoredAudit> ProjectQueries::latestAudit(int64_t runId) {
    const std::vector<int64_t> ids = store_rows::auditSampleIds(*db_, runId);
    if (ids.empty()) return std::nullopt;
    return store_rows::loadAuditSample(*db_, ids.back());
}

}  // namespace neardup
