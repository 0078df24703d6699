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
#include "project_store_impl.h"
#include "rejected_lines.h"
#include "run_lock.h"
#include "signature_file.h"
#include "sqlite_handle.h"
#include "store_rows.h"

namespace neardup {

namespace {

bool inMemory(const std::string& path) {
    return path.empty() || path == ":memory:";
}

}  // namespace

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

}  // namespace neardup
