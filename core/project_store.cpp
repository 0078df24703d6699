#include "project_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <string_view>

#include "decisions.h"
#include "project_schema.h"
#include "rejected_lines.h"
#include "run_lock.h"
#include "signature_file.h"
#include "sqlite_handle.h"
#include "store_rows.h"

namespace neardup {

namespace {

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

bool inMemory(const std::string& path) {
    return path.empty() || path == ":memory:";
}

}  // namespace

struct ProjectStore::Impl {
    std::string path;
    sql::Database db;

    std::function<void()> interruptCheck;

    explicit Impl(const std::string& p) : path(p), db(p, true) { schema::open(db, p); }

    std::string sidecarDir() const { return path + ".d"; }

    // The dataset's document count, checked against its last document row (one index lookup),
    // so that a damaged count cannot size an allocation.
    uint64_t datasetDocuments(int64_t datasetId) {
        auto st = db.prepare("SELECT documents FROM datasets WHERE id = ?1");
        st.bind(1, datasetId);
        if (!st.step()) throw StoreError("project store: no dataset " + std::to_string(datasetId));
        const uint64_t documents = st.u64(0);
        auto last = db.prepare(
            "SELECT doc_index FROM documents WHERE dataset_id = ?1 ORDER BY doc_index DESC "
            "LIMIT 1");
        last.bind(1, datasetId);
        const uint64_t rows = last.step() ? last.u64(0) + 1 : 0;
        if (rows != documents)
            throw StoreError("project store: dataset " + std::to_string(datasetId) +
                             " is damaged: it lists " + std::to_string(documents) +
                             " documents, its last is #" + std::to_string(rows));
        return documents;
    }

    std::vector<InputFile> loadFiles(int64_t datasetId) {
        auto st = db.prepare(std::string("SELECT ") + store_rows::kFileColumns +
                             " FROM dataset_files WHERE dataset_id = ?1 ORDER BY file_index");
        st.bind(1, datasetId);
        std::vector<InputFile> files;
        while (st.step())
            files.push_back(store_rows::readFile(st, path));
        return files;
    }

    std::vector<RejectionCount> loadRejections(int64_t datasetId) {
        auto st = db.prepare(
            "SELECT reason, count, first_file, first_line FROM dataset_rejections "
            "WHERE dataset_id = ?1 ORDER BY ordinal");
        st.bind(1, datasetId);
        std::vector<RejectionCount> out;
        while (st.step()) {
            RejectionCount r;
            r.reason = st.string(0);
            r.count = st.u64(1);
            r.firstFile = st.string(2);
            r.firstLine = st.u64(3);
            out.push_back(std::move(r));
        }
        return out;
    }

    void insertRunDetails(const RunResult& run);
};

ProjectStore::ProjectStore(const std::string& path) : impl_(std::make_unique<Impl>(path)) {
    recoverStaleRuns(*this);
}

ProjectStore::~ProjectStore() = default;

const std::string& ProjectStore::path() const {
    return impl_->path;
}

std::string ProjectStore::writeProblem() {
    const std::string& path = impl_->path;
    if (inMemory(path)) return {};
    if (::access(path.c_str(), W_OK) != 0)
        return "project '" + path + "' is not writable: " + std::strerror(errno);
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string dir = parent.empty() ? std::string(".") : parent.string();
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return "project '" + path + "' cannot be written: its folder '" + dir +
               "' is not writable (SQLite writes its journal there): " + std::strerror(errno);
    if (sqlite3_db_readonly(impl_->db.handle(), "main") == 1)
        return "project '" + path + "' is open read-only";
    return {};
}

sql::Database& ProjectStore::database() {
    return impl_->db;
}

// ---- Datasets ---------------------------------------------------------------------------

std::optional<int64_t> ProjectStore::findDataset(const std::vector<InputFile>& files,
                                                 const ReaderOptions& reader) {
    auto& db = impl_->db;
    auto candidates = db.prepare(
        "SELECT id FROM datasets d "
        "WHERE json_extract(reader_json, '$.text_field') = ?1 "
        "  AND json_extract(reader_json, '$.id_field') = ?2 "
        "  AND json_extract(reader_json, '$.keep_field') = ?3 "
        "  AND (SELECT count(*) FROM dataset_files f WHERE f.dataset_id = d.id) = ?4 "
        "ORDER BY id DESC");
    candidates.bind(1, std::string_view(reader.textField))
        .bind(2, std::string_view(reader.idField))
        .bind(3, std::string_view(reader.keepField))
        .bind(4, static_cast<int64_t>(files.size()));
    std::vector<int64_t> ids;
    while (candidates.step())
        ids.push_back(candidates.int64(0));
    for (int64_t id : ids) {
        const std::vector<InputFile> stored = impl_->loadFiles(id);
        bool same = stored.size() == files.size();
        // The same files as pinned: path, size, modification time, and (where the project
        // stores them) change time, device and inode.
        for (std::size_t i = 0; same && i < files.size(); ++i)
            same = stored[i].path == files[i].path && stored[i].size == files[i].size &&
                   stored[i].mtimeNs == files[i].mtimeNs &&
                   (stored[i].device == 0 ||
                    (stored[i].ctimeNs == files[i].ctimeNs && stored[i].device == files[i].device &&
                     stored[i].inode == files[i].inode));
        if (same) return id;
    }
    return std::nullopt;
}

int64_t ProjectStore::saveDataset(const DatasetRecord& dataset, const DocumentTable& docs) {
    const std::size_t n = docs.size();
    if (docs.line.size() != n || docs.offset.size() != n || docs.length.size() != n ||
        docs.chars.size() != n || docs.keepValue.size() != n || docs.idEnd.size() != n)
        throw StoreError("project store: document table columns have different lengths");

    if (impl_->interruptCheck) impl_->interruptCheck();
    auto& db = impl_->db;
    sql::Transaction tx(db);
    {
        auto st =
            db.prepare(std::string("INSERT INTO datasets(created_at, reader_json, lines_read, "
                                   "blank_lines, input_bytes, documents) VALUES(") +
                       kNow +
                       ", json_object('text_field', ?1, 'id_field', ?2, 'keep_field', ?3), "
                       "?4, ?5, ?6, ?7)");
        st.bind(1, std::string_view(dataset.reader.textField))
            .bind(2, std::string_view(dataset.reader.idField))
            .bind(3, std::string_view(dataset.reader.keepField))
            .bindU64(4, dataset.linesRead)
            .bindU64(5, dataset.blankLines)
            .bindU64(6, dataset.inputBytes)
            .bindU64(7, n)
            .run();
    }
    const int64_t id = db.lastInsertRowId();

    {
        auto st = db.prepare(
            "INSERT INTO dataset_files(dataset_id, file_index, path, size, mtime_ns, "
            "compression, ctime_ns, device, inode, content_bytes, fingerprint) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
        st.bind(1, id);
        for (std::size_t i = 0; i < dataset.files.size(); ++i) {
            const InputFile& f = dataset.files[i];
            st.bindU64(2, i)
                .bind(3, std::string_view(f.path))
                .bindU64(4, f.size)
                .bind(5, int64_t{f.mtimeNs})
                .bind(6, std::string_view(toString(f.compression)))
                .bind(7, int64_t{f.ctimeNs})
                .bindU64(8, f.device)
                .bindU64(9, f.inode);
            if (f.fingerprinted) {
                st.bindU64(10, f.contentBytes).bindU64(11, f.fingerprint);
            } else {
                st.bindNull(10).bindNull(11);
            }
            st.run();
        }
    }

    {
        auto st = db.prepare(
            "INSERT INTO documents(dataset_id, doc_index, file_index, line, offset, length, "
            "chars, doc_id, keep_value) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        st.bind(1, id);
        for (std::size_t i = 0; i < n; ++i) {
            if ((i & 4095) == 4095 && impl_->interruptCheck) impl_->interruptCheck();
            st.bindU64(2, i)
                .bind(3, int64_t{docs.file[i]})
                .bindU64(4, docs.line[i])
                .bindU64(5, docs.offset[i])
                .bind(6, int64_t{docs.length[i]})
                .bind(7, int64_t{docs.chars[i]})
                .bind(8, docs.id(i));
            if (std::isnan(docs.keepValue[i])) {
                st.bindNull(9);
            } else {
                st.bind(9, docs.keepValue[i]);
            }
            st.run();
        }
    }

    {
        auto st = db.prepare(
            "INSERT INTO dataset_rejections(dataset_id, ordinal, reason, count, first_file, "
            "first_line) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
        st.bind(1, id);
        for (std::size_t i = 0; i < dataset.rejections.size(); ++i) {
            const RejectionCount& r = dataset.rejections[i];
            st.bindU64(2, i)
                .bind(3, std::string_view(r.reason))
                .bindU64(4, r.count)
                .bind(5, std::string_view(r.firstFile))
                .bindU64(6, r.firstLine)
                .run();
        }
    }

    {
        auto st = db.prepare(
            "INSERT INTO rejection_samples(dataset_id, ordinal, reason, file_index, line, "
            "detail) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
        st.bind(1, id);
        for (std::size_t i = 0; i < dataset.rejectionSamples.size(); ++i) {
            const Rejection& r = dataset.rejectionSamples[i];
            st.bindU64(2, i)
                .bind(3, std::string_view(toString(r.reason)))
                .bind(4, int64_t{r.file})
                .bindU64(5, r.line)
                .bind(6, std::string_view(r.detail))
                .run();
        }
    }
    tx.commit();
    // Every rejected line, next to the project (written once the dataset exists, so a file
    // never outlives or precedes its row). Best effort: the samples and counts are stored.
    if (!inMemory(impl_->path) && !dataset.rejectedLines.empty()) {
        try {
            std::filesystem::create_directories(impl_->sidecarDir());
            rejected_lines::write(impl_->sidecarDir() + "/" + rejected_lines::fileName(id),
                                  dataset.rejectedLines);
        } catch (const std::exception&) {
        }
    }
    return id;
}

DatasetRecord ProjectStore::loadDataset(int64_t datasetId, DocumentTable* docs) {
    auto& db = impl_->db;
    DatasetRecord rec;
    uint64_t documents = 0;
    {
        auto st = db.prepare(
            "SELECT json_extract(reader_json, '$.text_field'), "
            "json_extract(reader_json, '$.id_field'), json_extract(reader_json, '$.keep_field'), "
            "lines_read, blank_lines, input_bytes, documents FROM datasets WHERE id = ?1");
        st.bind(1, datasetId);
        if (!st.step()) throw StoreError("project store: no dataset " + std::to_string(datasetId));
        rec.id = datasetId;
        rec.reader.textField = st.string(0);
        rec.reader.idField = st.string(1);
        rec.reader.keepField = st.string(2);
        rec.linesRead = st.u64(3);
        rec.blankLines = st.u64(4);
        rec.inputBytes = st.u64(5);
        documents = st.u64(6);
    }
    rec.files = impl_->loadFiles(datasetId);
    rec.rejections = impl_->loadRejections(datasetId);
    {
        auto st = db.prepare(
            "SELECT reason, file_index, line, detail FROM rejection_samples "
            "WHERE dataset_id = ?1 ORDER BY ordinal");
        st.bind(1, datasetId);
        while (st.step()) {
            Rejection r;
            const std::string_view reason = st.text(0);
            bool known = false;
            for (int k = 0; k < kRejectReasonCount && !known; ++k) {
                if (reason == toString(static_cast<RejectReason>(k))) {
                    r.reason = static_cast<RejectReason>(k);
                    known = true;
                }
            }
            if (!known)
                throw StoreError("project store: unknown rejection reason '" + std::string(reason) +
                                 "'");
            r.file = static_cast<uint32_t>(st.int64(1));
            r.line = st.u64(2);
            r.detail = st.string(3);
            rec.rejectionSamples.push_back(std::move(r));
        }
    }
    if (docs != nullptr) {
        docs->clear();
        docs->reserve(static_cast<std::size_t>(impl_->datasetDocuments(datasetId)));
        auto st = db.prepare(
            "SELECT file_index, line, offset, length, chars, keep_value, doc_id "
            "FROM documents WHERE dataset_id = ?1 ORDER BY doc_index");
        st.bind(1, datasetId);
        while (st.step()) {
            const double keep =
                st.isNull(5) ? std::numeric_limits<double>::quiet_NaN() : st.real(5);
            // Every location is checked against the pinned files before it can be used to
            // read (or overwrite the reading of) anything.
            const int64_t file = st.int64(0), offset = st.int64(2), length = st.int64(3),
                          chars = st.int64(4);
            const auto damaged = [&](const std::string& what) {
                return StoreError("project store: dataset " + std::to_string(datasetId) +
                                  " is damaged: document #" + std::to_string(docs->size()) + " " +
                                  what);
            };
            if (file < 0 || static_cast<uint64_t>(file) >= rec.files.size())
                throw damaged("names input file #" + std::to_string(file) + " of " +
                              std::to_string(rec.files.size()));
            if (offset < 0 || length < 0 || length > std::numeric_limits<uint32_t>::max() ||
                chars < 0 || chars > std::numeric_limits<uint32_t>::max())
                throw damaged("has offset " + std::to_string(offset) + ", length " +
                              std::to_string(length) + ", characters " + std::to_string(chars));
            const InputFile& f = rec.files[static_cast<std::size_t>(file)];
            const bool known = f.compression == InputFile::Compression::None || f.fingerprinted;
            const uint64_t limit =
                f.compression == InputFile::Compression::None ? f.size : f.contentBytes;
            if (known && (static_cast<uint64_t>(offset) > limit ||
                          static_cast<uint64_t>(length) > limit - static_cast<uint64_t>(offset)))
                throw damaged("lies at bytes " + std::to_string(offset) + ".." +
                              std::to_string(offset + length) + ", beyond the " +
                              std::to_string(limit) + " bytes of '" + f.path + "'");
            docs->append(static_cast<uint32_t>(file), st.u64(1), static_cast<uint64_t>(offset),
                         static_cast<uint32_t>(length), static_cast<uint32_t>(chars), keep,
                         st.text(6));
        }
        if (docs->size() != documents)
            throw StoreError("project store: dataset " + std::to_string(datasetId) + " lists " +
                             std::to_string(documents) + " documents but stores " +
                             std::to_string(docs->size()));
    }
    return rec;
}

// ---- Signatures -------------------------------------------------------------------------

bool ProjectStore::loadSignatures(int64_t datasetId, const std::string& cacheKey,
                                  SignatureMatrix& out) {
    out = SignatureMatrix{};
    auto& db = impl_->db;
    auto st = db.prepare(
        "SELECT c.path, c.documents, c.hashes, d.documents FROM signature_caches c "
        "JOIN datasets d ON d.id = c.dataset_id WHERE c.dataset_id = ?1 AND c.cache_key = ?2");
    st.bind(1, datasetId).bind(2, std::string_view(cacheKey));
    if (!st.step()) return false;
    const uint64_t documents = st.u64(1);
    const int64_t hashes = st.int64(2);
    if (documents != st.u64(3) || hashes <= 0 || hashes > std::numeric_limits<int>::max())
        return false;
    if (!st.isNull(0)) {
        const std::string file = impl_->sidecarDir() + "/" + st.string(0);
        return sigfile::read(file, cacheKey, documents, static_cast<int>(hashes), out);
    }
    auto blob =
        db.prepare("SELECT data FROM signature_blobs WHERE dataset_id = ?1 AND cache_key = ?2");
    blob.bind(1, datasetId).bind(2, std::string_view(cacheKey));
    if (!blob.step()) return false;
    return sigfile::decode(blob.blob(0), blob.bytes(0), cacheKey, documents,
                           static_cast<int>(hashes), out);
}

void ProjectStore::saveSignatures(int64_t datasetId, const std::string& cacheKey,
                                  const SignatureMatrix& signatures) {
    // Checked before the (possibly large) file is written, so no orphan file is left behind.
    const uint64_t documents = impl_->datasetDocuments(datasetId);
    if (signatures.size() != documents)
        throw StoreError("project store: " + std::to_string(signatures.size()) +
                         " signatures for dataset " + std::to_string(datasetId) + " of " +
                         std::to_string(documents) + " documents");

    auto& db = impl_->db;
    const bool blobMode = inMemory(impl_->path);
    std::string fileName;
    if (!blobMode) {
        fileName = sigfile::fileName(datasetId, cacheKey);
        std::error_code ec;
        std::filesystem::create_directories(impl_->sidecarDir(), ec);
        if (ec)
            throw StoreError("project store: cannot create " + impl_->sidecarDir() + ": " +
                             ec.message());
        sigfile::write(impl_->sidecarDir() + "/" + fileName, cacheKey, signatures);
    }

    sql::Transaction tx(db);
    {
        auto del =
            db.prepare("DELETE FROM signature_caches WHERE dataset_id = ?1 AND cache_key = ?2");
        del.bind(1, datasetId).bind(2, std::string_view(cacheKey)).run();
    }
    {
        auto st = db.prepare(std::string("INSERT INTO signature_caches(dataset_id, cache_key, "
                                         "path, documents, hashes, created_at) "
                                         "VALUES(?1, ?2, ?3, ?4, ?5, ") +
                             kNow + ")");
        st.bind(1, datasetId).bind(2, std::string_view(cacheKey));
        if (blobMode) {
            st.bindNull(3);
        } else {
            st.bind(3, std::string_view(fileName));
        }
        st.bindU64(4, documents).bind(5, int64_t{signatures.hashes}).run();
    }
    if (blobMode) {
        const std::string data = sigfile::encode(cacheKey, signatures);
        auto st = db.prepare(
            "INSERT INTO signature_blobs(dataset_id, cache_key, data) VALUES(?1, ?2, ?3)");
        st.bind(1, datasetId)
            .bind(2, std::string_view(cacheKey))
            .bindBlob(3, data.data(), data.size())
            .run();
    }
    tx.commit();
}

// ---- Runs -------------------------------------------------------------------------------

std::optional<int64_t> ProjectStore::findReusablePairs(int64_t datasetId, const RunParams& params,
                                                       uint64_t resolvedBuckets) {
    const std::string key = signatureCacheKey(params.signature, params.reader);
    auto st = impl_->db.prepare(
        "SELECT id FROM runs WHERE dataset_id = ?1 AND status = 'ok' AND signature_key = ?2 "
        "AND bands = ?3 AND rows = ?4 AND bucket_key = ?5 AND resolved_buckets = ?6 "
        "AND store_floor <= ?7 ORDER BY id DESC LIMIT 1");
    st.bind(1, datasetId)
        .bind(2, std::string_view(key))
        .bind(3, int64_t{params.lsh.bands})
        .bind(4, int64_t{params.lsh.rows})
        .bind(5, std::string_view(toString(params.lsh.scheme)))
        .bindU64(6, resolvedBuckets)
        .bind(7, params.compare.threshold);
    if (!st.step()) return std::nullopt;
    return st.int64(0);
}

std::vector<ScoredPair> ProjectStore::loadPairs(int64_t runId) {
    auto st =
        impl_->db.prepare("SELECT a, b, matches, exact FROM pairs WHERE run_id = ?1 ORDER BY a, b");
    st.bind(1, runId);
    std::vector<ScoredPair> pairs;
    while (st.step()) {
        ScoredPair p;
        p.a = static_cast<uint32_t>(st.int64(0));
        p.b = static_cast<uint32_t>(st.int64(1));
        p.matches = static_cast<uint32_t>(st.int64(2));
        p.exact = st.isNull(3) ? -1.0f : static_cast<float>(st.real(3));
        pairs.push_back(p);
    }
    return pairs;
}

int64_t ProjectStore::beginRun(const RunResult& run) {
    auto& db = impl_->db;
    sql::Transaction tx(db);
    RunResult started = run;
    started.status = "running";
    auto st = db.prepare(store_rows::insertRunSql());
    store_rows::writeRun(st, started);
    const int64_t id = db.lastInsertRowId();
    tx.commit();
    return id;
}

void ProjectStore::Impl::insertRunDetails(const RunResult& run) {
    const int64_t id = run.runId;
    {
        auto st = db.prepare(
            "INSERT INTO run_phases(run_id, ordinal, phase, seconds, items, bytes, reused) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        st.bind(1, id);
        for (std::size_t i = 0; i < run.phases.size(); ++i) {
            const PhaseTiming& ph = run.phases[i];
            st.bindU64(2, i)
                .bind(3, std::string_view(ph.name))
                .bind(4, ph.seconds)
                .bindU64(5, ph.items)
                .bindU64(6, ph.bytes)
                .bindBool(7, ph.reused)
                .run();
        }
    }
    {
        auto st = db.prepare(
            "INSERT INTO worker_phases(run_id, worker, phase, label, seconds, items, bytes) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        st.bind(1, id);
        for (const WorkerTiming& w : run.workerPhases)
            st.bind(2, int64_t{w.worker})
                .bind(3, std::string_view(w.phase))
                .bind(4, std::string_view(w.label))
                .bind(5, w.seconds)
                .bindU64(6, w.items)
                .bindU64(7, w.bytes)
                .run();
    }
    {
        auto band = db.prepare(
            "INSERT INTO band_stats(run_id, band, buckets, multi_buckets, mean_size, "
            "stddev_size, max_size, comparisons, outlier_count) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        auto hist = db.prepare(
            "INSERT INTO band_histogram(run_id, band, bin, size_min, size_max, count) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
        auto outlier = db.prepare(
            "INSERT INTO outlier_buckets(run_id, band, rank, key, size, comparisons) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
        band.bind(1, id);
        hist.bind(1, id);
        outlier.bind(1, id);
        for (const BandStats& b : run.bands) {
            band.bind(2, int64_t{b.band})
                .bindU64(3, b.buckets)
                .bindU64(4, b.multiBuckets)
                .bind(5, b.meanSize)
                .bind(6, b.stddevSize)
                .bindU64(7, b.maxSize)
                .bindU64(8, b.comparisons)
                .bindU64(9, b.outlierCount)
                .run();
            hist.bind(2, int64_t{b.band});
            for (std::size_t bin = 0; bin < b.histogram.size(); ++bin) {
                // Bin i counts sizes in [2^i, 2^(i+1)); bins past 62 would overflow INTEGER.
                const uint64_t lo = bin < 63 ? uint64_t{1} << bin : 0;
                const uint64_t hi = bin < 62 ? (uint64_t{1} << (bin + 1)) - 1 : 0;
                hist.bindU64(3, bin).bindU64(4, lo).bindU64(5, hi).bindU64(6, b.histogram[bin]);
                hist.run();
            }
            outlier.bind(2, int64_t{b.band});
            for (std::size_t k = 0; k < b.outliers.size(); ++k) {
                const OutlierBucket& o = b.outliers[k];
                outlier.bindU64(3, k)
                    .bindU64(4, o.key)
                    .bindU64(5, o.size)
                    .bindU64(6, o.comparisons)
                    .run();
            }
        }
    }
    {
        auto st = db.prepare(
            "INSERT INTO pairs(run_id, a, b, matches, exact) VALUES(?1, ?2, ?3, ?4, ?5)");
        st.bind(1, id);
        for (const ScoredPair& p : run.pairs) {
            st.bind(2, int64_t{p.a}).bind(3, int64_t{p.b}).bind(4, int64_t{p.matches});
            if (p.exact < 0) {
                st.bindNull(5);
            } else {
                st.bind(5, double{p.exact});
            }
            st.run();
        }
    }
    {
        const std::size_t clusterCount = run.representative.size();
        std::vector<uint64_t> sizes(clusterCount, 0);
        for (uint32_t c : run.clusterOf) {
            if (c == RunResult::kNoCluster) continue;
            if (c >= clusterCount)
                throw StoreError("project store: cluster index " + std::to_string(c) +
                                 " out of range in run " + std::to_string(id));
            ++sizes[c];
        }
        auto cl = db.prepare(
            "INSERT INTO clusters(run_id, cluster, representative, size) "
            "VALUES(?1, ?2, ?3, ?4)");
        cl.bind(1, id);
        for (std::size_t c = 0; c < clusterCount; ++c)
            cl.bindU64(2, c).bind(3, int64_t{run.representative[c]}).bindU64(4, sizes[c]).run();
        auto mem = db.prepare(
            "INSERT INTO cluster_members(run_id, cluster, doc_index, removed_for, copy_of) "
            "VALUES(?1, ?2, ?3, ?4, ?5)");
        mem.bind(1, id);
        for (std::size_t doc = 0; doc < run.clusterOf.size(); ++doc) {
            const uint32_t c = run.clusterOf[doc];
            if (c == RunResult::kNoCluster) continue;
            mem.bind(2, int64_t{c}).bindU64(3, doc);
            const uint32_t keptBy =
                run.removedFor.empty()
                    ? (run.removed(doc) ? run.representative[c] : RunResult::kNoDocument)
                    : run.removedFor[doc];
            if (keptBy == RunResult::kNoDocument)
                mem.bindNull(4);
            else
                mem.bind(4, int64_t{keptBy});
            const uint32_t copy = run.copyOf.empty() ? RunResult::kNoDocument : run.copyOf[doc];
            if (copy == RunResult::kNoDocument)
                mem.bindNull(5);
            else
                mem.bind(5, int64_t{copy});
            mem.run();
        }
    }
}

void ProjectStore::finishRun(const RunResult& run) {
    auto& db = impl_->db;
    sql::Transaction tx(db);
    {
        auto st = db.prepare(store_rows::updateRunSql());
        st.bind(store_rows::updateRunIdParameter(), run.runId);
        store_rows::writeRun(st, run);
        if (db.changes() != 1)
            throw StoreError("project store: no run " + std::to_string(run.runId));
    }
    // Finishing twice replaces the details instead of failing on duplicate keys. Histograms,
    // outliers and members go with their parents (ON DELETE CASCADE).
    for (const char* table : {"run_phases", "worker_phases", "band_stats", "pairs", "clusters"}) {
        auto del = db.prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
        del.bind(1, run.runId).run();
    }
    impl_->insertRunDetails(run);
    tx.commit();
}

void ProjectStore::markRun(int64_t runId, const std::string& status, const std::string& error) {
    auto st = impl_->db.prepare(std::string("UPDATE runs SET status = ?2, error = ?3, "
                                            "finished_at = coalesce(finished_at, ") +
                                kNow + ") WHERE id = ?1");
    st.bind(1, runId).bind(2, std::string_view(status)).bind(3, std::string_view(error)).run();
    if (impl_->db.changes() != 1)
        throw StoreError("project store: no run " + std::to_string(runId));
}

std::vector<ProjectStore::RunState> ProjectStore::runStates() {
    auto st = impl_->db.prepare("SELECT id, status, started_at FROM runs ORDER BY id");
    std::vector<RunState> out;
    while (st.step())
        out.push_back({st.int64(0), st.string(1), st.string(2)});
    return out;
}

std::vector<std::string> ProjectStore::signatureCacheFiles() {
    auto st = impl_->db.prepare("SELECT path FROM signature_caches WHERE path IS NOT NULL");
    std::vector<std::string> out;
    while (st.step())
        out.push_back(st.string(0));
    return out;
}

void ProjectStore::setInterruptCheck(std::function<void()> check) {
    impl_->interruptCheck = std::move(check);
}

std::vector<RunSummary> ProjectStore::listRuns() {
    recoverStaleRuns(*this);
    auto& db = impl_->db;
    std::vector<RunSummary> out;
    {
        auto st = db.prepare(store_rows::selectRunSql("ORDER BY id"));
        RunResult r;
        while (st.step()) {
            store_rows::readRun(st, r);
            RunSummary s;
            s.runId = r.runId;
            s.datasetId = r.datasetId;
            s.startedAt = r.startedAt;
            s.finishedAt = r.finishedAt;
            s.status = r.status;
            s.backend = r.backend;
            s.threads = r.threads;
            s.paramsJson = st.string(store_rows::kParamsJsonColumn);
            s.counts = r.counts;
            out.push_back(std::move(s));
        }
    }
    auto st = db.prepare(
        "SELECT run_id, phase, seconds, items, bytes, reused FROM run_phases "
        "ORDER BY run_id, ordinal");
    std::size_t k = 0;
    while (st.step()) {
        const int64_t runId = st.int64(0);
        while (k < out.size() && out[k].runId < runId)
            ++k;
        if (k == out.size()) break;
        if (out[k].runId != runId) continue;
        PhaseTiming ph;
        ph.name = st.string(1);
        ph.seconds = st.real(2);
        ph.items = st.u64(3);
        ph.bytes = st.u64(4);
        ph.reused = st.int64(5) != 0;
        out[k].phases.push_back(std::move(ph));
    }
    return out;
}

std::optional<int64_t> ProjectStore::latestRun(const std::string& status) {
    auto st = impl_->db.prepare("SELECT id FROM runs WHERE status = ?1 ORDER BY id DESC LIMIT 1");
    st.bind(1, std::string_view(status));
    if (!st.step()) return std::nullopt;
    return st.int64(0);
}

std::vector<WorkerTiming> ProjectStore::loadWorkerPhases(int64_t runId) {
    auto st = impl_->db.prepare(
        "SELECT worker, phase, label, seconds, items, bytes FROM worker_phases "
        "WHERE run_id = ?1 ORDER BY CASE phase WHEN 'signatures' THEN 0 WHEN 'buckets' THEN 1 "
        "WHEN 'compare' THEN 2 ELSE 3 END, phase, worker");
    st.bind(1, runId);
    std::vector<WorkerTiming> out;
    while (st.step())
        out.push_back({static_cast<int>(st.int64(0)), st.string(1), st.string(2), st.real(3),
                       st.u64(4), st.u64(5)});
    return out;
}

RunResult ProjectStore::loadRun(int64_t runId) {
    recoverStaleRuns(*this);
    auto& db = impl_->db;
    RunResult run;
    {
        auto st = db.prepare(store_rows::selectRunSql("WHERE id = ?1"));
        st.bind(1, runId);
        if (!st.step()) throw StoreError("project store: no run " + std::to_string(runId));
        store_rows::readRun(st, run);
    }
    {
        auto st = db.prepare(
            "SELECT phase, seconds, items, bytes, reused FROM run_phases WHERE run_id = ?1 "
            "ORDER BY ordinal");
        st.bind(1, runId);
        while (st.step()) {
            PhaseTiming ph;
            ph.name = st.string(0);
            ph.seconds = st.real(1);
            ph.items = st.u64(2);
            ph.bytes = st.u64(3);
            ph.reused = st.int64(4) != 0;
            run.phases.push_back(std::move(ph));
        }
    }
    run.workerPhases = loadWorkerPhases(runId);
    run.rejections = impl_->loadRejections(run.datasetId);
    {
        auto st = db.prepare(
            "SELECT band, buckets, multi_buckets, mean_size, stddev_size, max_size, "
            "comparisons, outlier_count FROM band_stats WHERE run_id = ?1 ORDER BY band");
        st.bind(1, runId);
        while (st.step()) {
            BandStats b;
            b.band = static_cast<int>(st.int64(0));
            b.buckets = st.u64(1);
            b.multiBuckets = st.u64(2);
            b.meanSize = st.real(3);
            b.stddevSize = st.real(4);
            b.maxSize = st.u64(5);
            b.comparisons = st.u64(6);
            b.outlierCount = st.u64(7);
            run.bands.push_back(std::move(b));
        }
        // Bands come back ordered by band number; children are matched by a merge walk.
        auto findBand = [&run](std::size_t& k, int64_t band) -> BandStats* {
            while (k < run.bands.size() && run.bands[k].band < band)
                ++k;
            return k < run.bands.size() && run.bands[k].band == band ? &run.bands[k] : nullptr;
        };
        auto hist = db.prepare(
            "SELECT band, bin, count FROM band_histogram WHERE run_id = ?1 ORDER BY band, bin");
        hist.bind(1, runId);
        std::size_t k = 0;
        while (hist.step()) {
            BandStats* b = findBand(k, hist.int64(0));
            if (b == nullptr) continue;
            const auto bin = static_cast<std::size_t>(hist.int64(1));
            if (bin >= 64)  // log2 bins of a 64-bit size
                throw StoreError("project store: run " + std::to_string(runId) +
                                 " has a damaged histogram");
            if (b->histogram.size() <= bin) b->histogram.resize(bin + 1, 0);
            b->histogram[bin] = hist.u64(2);
        }
        auto outl = db.prepare(
            "SELECT band, key, size, comparisons FROM outlier_buckets WHERE run_id = ?1 "
            "ORDER BY band, rank");
        outl.bind(1, runId);
        k = 0;
        while (outl.step()) {
            BandStats* b = findBand(k, outl.int64(0));
            if (b == nullptr) continue;
            b->outliers.push_back({outl.u64(1), outl.u64(2), outl.u64(3)});
        }
    }
    run.pairs = loadPairs(runId);
    // Indices read back must stay inside the dataset: exports, verification and the workbench
    // index documents and clusters with them.
    const uint64_t datasetSize = impl_->datasetDocuments(run.datasetId);
    auto damaged = [runId](const char* what) {
        return StoreError("project store: run " + std::to_string(runId) + " is damaged (" + what +
                          " out of range)");
    };
    for (const ScoredPair& p : run.pairs)
        if (p.a >= p.b || p.b >= datasetSize) throw damaged("pair");
    {
        auto st = db.prepare(
            "SELECT cluster, representative FROM clusters WHERE run_id = ?1 ORDER BY cluster");
        st.bind(1, runId);
        while (st.step()) {
            const uint64_t c = st.u64(0), representative = st.u64(1);
            if (c >= datasetSize || representative >= datasetSize) throw damaged("cluster");
            if (run.representative.size() <= c)
                run.representative.resize(static_cast<std::size_t>(c) + 1, 0);
            run.representative[static_cast<std::size_t>(c)] = static_cast<uint32_t>(representative);
        }
    }
    {
        const uint64_t documents = impl_->datasetDocuments(run.datasetId);
        run.clusterOf.assign(static_cast<std::size_t>(documents), RunResult::kNoCluster);
        run.removedFor.assign(static_cast<std::size_t>(documents), RunResult::kNoDocument);
        auto st = db.prepare(
            "SELECT doc_index, cluster, removed_for, copy_of FROM cluster_members "
            "WHERE run_id = ?1");
        st.bind(1, runId);
        while (st.step()) {
            const uint64_t doc = st.u64(0);
            if (doc >= documents)
                throw StoreError("project store: run " + std::to_string(runId) +
                                 " clusters document " + std::to_string(doc) + " of " +
                                 std::to_string(documents));
            if (st.u64(1) >= run.representative.size()) throw damaged("cluster member");
            run.clusterOf[static_cast<std::size_t>(doc)] = static_cast<uint32_t>(st.int64(1));
            if (!st.isNull(2)) {
                if (st.u64(2) >= documents) throw damaged("witness");
                run.removedFor[static_cast<std::size_t>(doc)] = static_cast<uint32_t>(st.int64(2));
            }
            if (!st.isNull(3)) {
                if (st.u64(3) >= documents) throw damaged("copy");
                if (run.copyOf.empty())
                    run.copyOf.assign(static_cast<std::size_t>(documents), RunResult::kNoDocument);
                run.copyOf[static_cast<std::size_t>(doc)] = static_cast<uint32_t>(st.int64(3));
            }
        }
    }
    applyRecordedDecisions(*this, run);
    return run;
}

}  // namespace neardup
