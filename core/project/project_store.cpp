// ProjectStore, first half: opening, datasets, signatures and decisions. Each step is one row
// mapper's job (dataset_rows.h, decision_rows.h); this file holds the transactions and checks.
#include "project_store.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <string_view>
#include <thread>

#include "dataset_rows.h"
#include "decision_rows.h"
#include "input_pin.h"
#include "project_schema.h"
#include "project_store_impl.h"
#include "rejected_lines.h"
#include "sidecar.h"
#include "signature_cache_entry.h"
#include "signature_file.h"
#include "stopped_runs.h"

namespace neardup {

namespace {

bool inMemory(const std::string& path) {
    return path.empty() || path == ":memory:";
}

}  // namespace

ProjectStore::ProjectStore(const std::string& path, Mode mode)
    : impl_(std::make_unique<Impl>(path, mode)) {}

ProjectStore::~ProjectStore() = default;

const std::string& ProjectStore::path() const {
    return impl_->path;
}

std::string ProjectStore::writeProblem() const {
    const std::string& path = impl_->path;
    if (inMemory(path)) return {};
    if (::access(path.c_str(), W_OK) != 0)
        return "project '" + path + "' is not writable: " + std::strerror(errno);
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string dir = parent.empty() ? std::string(".") : parent.string();
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return "project '" + path + "' cannot be written: its folder '" + dir +
               "' is not writable (SQLite writes its journal there): " + std::strerror(errno);
    if (impl_->db.readOnly()) return "project '" + path + "' is open read-only";
    return sidecarProblem(path);
}

void ProjectStore::recoverStaleRuns() {
    // A read-only store must not touch the sidecar files of a project it cannot update.
    if (impl_->db.readOnly()) return;
    if (std::string problem = sidecarProblem(impl_->path); !problem.empty())
        throw SidecarRefused(problem);
    neardup::recoverStaleRuns(*this);
}

// ---- Datasets ---------------------------------------------------------------------------

std::optional<int64_t> ProjectStore::findDataset(const std::vector<InputFile>& files,
                                                 const ReaderOptions& reader,
                                                 uint32_t referenceFiles) const {
    const auto& db = impl_->db;
    auto candidates = db.prepare(
        "SELECT id FROM datasets d "
        "WHERE json_extract(reader_json, '$.text_field') = ?1 "
        "  AND json_extract(reader_json, '$.id_field') = ?2 "
        "  AND json_extract(reader_json, '$.keep_field') = ?3 "
        "  AND (SELECT count(*) FROM dataset_files f WHERE f.dataset_id = d.id) = ?4 "
        "  AND reference_files = ?5 "
        "ORDER BY id DESC");
    candidates.bind(1, std::string_view(reader.textField))
        .bind(2, std::string_view(reader.idField))
        .bind(3, std::string_view(reader.keepField))
        .bind(4, static_cast<int64_t>(files.size()))
        .bind(5, static_cast<int64_t>(referenceFiles));
    std::vector<int64_t> ids;
    while (candidates.step())
        ids.push_back(candidates.int64(0));
    for (int64_t id : ids) {
        const std::vector<InputFile> stored = store_rows::loadFiles(db, id, impl_->path);
        bool same = stored.size() == files.size();
        // The same files as pinned: path, size, modification time, and (where the project
        // stores them) change time, device and inode.
        for (std::size_t i = 0; same && i < files.size(); ++i)
            same = stored[i].path == files[i].path && stored[i].size == files[i].size &&
                   sameIdentity(stored[i], files[i]);
        if (same) return id;
    }
    return std::nullopt;
}

namespace {

// Documents past which a dataset's rows are read by several connections at once, a range of
// doc_index each: SQLite steps a statement on one thread, so one connection reads a large
// dataset on one core while the run that waits for it has several.
constexpr uint64_t kDocumentsPerPart = uint64_t{1} << 18;
constexpr uint64_t kMaxParts = 4;

// store_rows::loadDocuments, with the rows of a large dataset read in ranges by read-only
// connections of their own beside this one, on up to `threads` threads (0: every core); not for
// a project in memory, whose rows no other connection sees, nor inside a transaction, whose rows
// no other connection sees yet. A connection that reaches another file than this one's (the
// project moved or replaced since it was opened) is damage, named.
void loadDocumentsInParts(const sql::Database& db, const std::string& path, int threads,
                          int64_t datasetId, const std::vector<InputFile>& files,
                          uint64_t documents, DocumentTable& docs) {
    const uint64_t cores = threads > 0 ? static_cast<uint64_t>(threads)
                                       : std::max(1u, std::thread::hardware_concurrency());
    const uint64_t parts = std::min({cores, kMaxParts, documents / kDocumentsPerPart});
    if (parts <= 1 || inMemory(path) || db.inTransaction()) {
        store_rows::loadDocuments(db, datasetId, files, documents, docs);
        return;
    }
    store_rows::datasetDocuments(db, datasetId);  // the listed count checked before sizing
    // The project's own random key (its inputs' pin key): what tells that another connection
    // opened by the same path reached the same file, not one moved into its place.
    const PinKey key = store_rows::projectPinKey(db);
    const auto begin = [&](uint64_t part) { return documents * part / parts; };
    std::vector<DocumentTable> later(parts);
    std::vector<std::exception_ptr> errors(parts);
    std::vector<std::thread> readers;
    const auto read = [&](uint64_t p) {
        try {
            sql::Database own(path, sql::OpenMode::ReadOnly);
            schema::open(own, path, schema::Access::Read);
            if (store_rows::projectPinKey(own) != key)
                throw StoreError("project store: '" + path +
                                 "' is no longer the project that was opened");
            store_rows::loadDocumentRange(own, datasetId, files, begin(p), begin(p + 1), later[p]);
        } catch (...) {
            errors[p] = std::current_exception();
        }
    };
    try {
        for (uint64_t p = 1; p < parts; ++p)
            readers.emplace_back(read, p);
    } catch (...) {
        // No thread to spare: the ranges not started are read here, after the others.
        for (uint64_t p = readers.size() + 1; p < parts; ++p)
            read(p);
    }
    docs.clear();
    docs.reserve(static_cast<std::size_t>(documents));
    try {
        store_rows::loadDocumentRange(db, datasetId, files, 0, begin(1), docs);
    } catch (...) {
        errors[0] = std::current_exception();
    }
    for (std::thread& reader : readers)
        reader.join();
    for (const std::exception_ptr& error : errors)
        if (error) std::rethrow_exception(error);
    std::size_t idBytes = docs.idArena.size();
    for (uint64_t p = 1; p < parts; ++p)
        idBytes += later[p].idArena.size();
    docs.idArena.reserve(idBytes);
    for (uint64_t p = 1; p < parts; ++p) {
        docs.append(later[p]);
        later[p] = DocumentTable{};
    }
}

}  // namespace

int64_t ProjectStore::saveDataset(const DatasetRecord& dataset, const DocumentTable& docs) {
    const std::size_t n = docs.size();
    if (docs.line.size() != n || docs.offset.size() != n || docs.length.size() != n ||
        docs.chars.size() != n || docs.keepValue.size() != n || docs.idEnd.size() != n)
        throw StoreError("project store: document table columns have different lengths");

    if (impl_->interruptCheck) impl_->interruptCheck();
    auto& db = impl_->db;
    sql::Transaction tx(db);
    const int64_t id = store_rows::insertDataset(db, dataset, n);
    store_rows::insertFiles(db, id, dataset.files);
    // A base is checked as every reader checks it, before a row that would follow it is written:
    // what loadDataset reads back is then exactly what the caller had.
    if (dataset.baseDataset) {
        try {
            store_rows::datasetBase(db, id);
        } catch (const StoreError& e) {
            throw StoreError("project store: a dataset cannot share documents with dataset " +
                             std::to_string(*dataset.baseDataset) + ": " + e.what());
        }
    }
    store_rows::insertDocuments(db, id, docs, dataset.baseDataset ? dataset.baseDocuments : 0,
                                impl_->interruptCheck);
    store_rows::insertRejections(db, id, dataset.rejections);
    store_rows::insertRejectionSamples(db, id, dataset.rejectionSamples);
    tx.commit();
    // Every rejected line, next to the project (written once the dataset exists, so a file
    // never outlives or precedes its row). Best effort: the samples and counts are stored.
    if (!inMemory(impl_->path) && !dataset.rejectedLines.empty()) {
        try {
            Sidecar::open(impl_->path, true);  // created, or refused
            rejected_lines::write(impl_->sidecarDir() + "/" + rejected_lines::fileName(id),
                                  dataset.rejectedLines);
        } catch (const std::exception&) {
        }
    }
    return id;
}

DatasetRecord ProjectStore::loadDataset(int64_t datasetId, DocumentTable* docs) const {
    const auto& db = impl_->db;
    DatasetRecord rec;
    const std::optional<uint64_t> documents = store_rows::readDataset(db, datasetId, rec);
    if (!documents) throw StoreError("project store: no dataset " + std::to_string(datasetId));
    rec.files = store_rows::loadFiles(db, datasetId, impl_->path);
    rec.rejections = store_rows::loadRejections(db, datasetId);
    rec.rejectionSamples = store_rows::loadRejectionSamples(db, datasetId);
    if (rec.referenceFiles > rec.files.size())
        throw StoreError("project store: dataset " + std::to_string(datasetId) +
                         " is damaged: its reference has more files than it lists");
    for (uint32_t i = 0; i < rec.referenceFiles; ++i)
        rec.files[i].reference = true;
    if (docs != nullptr) {
        loadDocumentsInParts(db, impl_->path, impl_->threads, datasetId, rec.files, *documents,
                             *docs);
        docs->markReference(rec.referenceFiles);
    }
    return rec;
}

void ProjectStore::setThreads(int threads) {
    impl_->threads = threads;
}

PinKey ProjectStore::pinKey() const {
    return store_rows::projectPinKey(impl_->db);
}

std::vector<DatasetFile> ProjectStore::datasetFiles() const {
    return store_rows::loadAllFiles(impl_->db);
}

void ProjectStore::updateDatasetFiles(const std::vector<DatasetFile>& files) {
    sql::Transaction tx(impl_->db);
    store_rows::updateFileLocations(impl_->db, files);
    tx.commit();
}

// ---- Signatures -------------------------------------------------------------------------

bool ProjectStore::loadSignatures(int64_t datasetId, const std::string& cacheKey,
                                  SignatureMatrix& out) const {
    out = SignatureMatrix{};
    const auto& db = impl_->db;
    const std::optional<SignatureCacheEntry> cache = findSignatureCache(db, datasetId, cacheKey);
    if (!cache) return false;
    if (!cache->file.empty()) {
        if (!sigfile::read(impl_->sidecarDir() + "/" + cache->file, cacheKey, cache->documents,
                           cache->hashes, out))
            return false;
        if (cache->sharedRows == 0) return true;
        // The rows it leaves to its base's cache (a hole in its file), whose cache must hold
        // exactly those rows, all its own.
        const std::optional<BaseCache> base =
            findBaseCache(db, datasetId, cacheKey, cache->sharedRows);
        if (!base || base->entry.hashes != out.hashes ||
            !sigfile::readLeadingValues(impl_->sidecarDir() + "/" + base->entry.file, cacheKey,
                                        base->entry.documents, base->entry.hashes,
                                        cache->sharedRows, out.values.data())) {
            out = SignatureMatrix{};
            return false;
        }
        return true;
    }
    auto blob =
        db.prepare("SELECT data FROM signature_blobs WHERE dataset_id = ?1 AND cache_key = ?2");
    blob.bind(1, datasetId).bind(2, std::string_view(cacheKey));
    if (!blob.step()) return false;
    return sigfile::decode(blob.blob(0), blob.bytes(0), cacheKey, cache->documents, cache->hashes,
                           out);
}

namespace {

// The dataset's document count, checked against the signatures' before the (possibly large)
// cache file is written, so that no orphan file is left behind.
uint64_t checkedDocuments(sql::Database& db, int64_t datasetId, const SignatureMatrix& sig) {
    const uint64_t documents = store_rows::datasetDocuments(db, datasetId);
    if (sig.size() != documents)
        throw StoreError("project store: " + std::to_string(sig.size()) +
                         " signatures for dataset " + std::to_string(datasetId) + " of " +
                         std::to_string(documents) + " documents");
    return documents;
}

// The cache file's name in the sidecar directory of `project`, created when missing; throws
// SidecarRefused when it is refused (sidecar.h).
std::string cacheFileIn(const std::string& project, int64_t datasetId,
                        const std::string& cacheKey) {
    Sidecar::open(project, true);
    return sigfile::fileName(datasetId, cacheKey);
}

// The rows of a signature cache that refer to its file (or hold it as a BLOB), replacing any
// earlier cache of the same key, in one transaction.
void recordSignatureCache(sql::Database& db, int64_t datasetId, const std::string& cacheKey,
                          uint64_t documents, int hashes, const std::string* fileName,
                          const std::string* blob, uint64_t sharedRows = 0) {
    sql::Transaction tx(db);
    {
        auto del =
            db.prepare("DELETE FROM signature_caches WHERE dataset_id = ?1 AND cache_key = ?2");
        del.bind(1, datasetId).bind(2, std::string_view(cacheKey)).run();
    }
    {
        auto st = db.prepare(std::string("INSERT INTO signature_caches(dataset_id, cache_key, "
                                         "path, documents, hashes, shared_rows, created_at) "
                                         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ") +
                             store_rows::kNow + ")");
        st.bind(1, datasetId).bind(2, std::string_view(cacheKey));
        if (fileName) {
            st.bind(3, std::string_view(*fileName));
        } else {
            st.bindNull(3);
        }
        st.bindU64(4, documents).bind(5, int64_t{hashes}).bindU64(6, sharedRows).run();
    }
    if (blob) {
        auto st = db.prepare(
            "INSERT INTO signature_blobs(dataset_id, cache_key, data) VALUES(?1, ?2, ?3)");
        st.bind(1, datasetId)
            .bind(2, std::string_view(cacheKey))
            .bindBlob(3, blob->data(), blob->size())
            .run();
    }
    tx.commit();
}

}  // namespace

void ProjectStore::saveSignatures(int64_t datasetId, const std::string& cacheKey,
                                  const SignatureMatrix& signatures) {
    auto& db = impl_->db;
    const uint64_t documents = checkedDocuments(db, datasetId, signatures);
    if (inMemory(impl_->path)) {
        const std::string data = sigfile::encode(cacheKey, signatures);
        recordSignatureCache(db, datasetId, cacheKey, documents, signatures.hashes, nullptr, &data);
        return;
    }
    const std::string fileName = cacheFileIn(impl_->path, datasetId, cacheKey);
    sigfile::write(impl_->sidecarDir() + "/" + fileName, cacheKey, signatures);
    recordSignatureCache(db, datasetId, cacheKey, documents, signatures.hashes, &fileName, nullptr);
}

bool ProjectStore::saveSignatureRows(
    int64_t datasetId, const std::string& cacheKey, const SignatureMatrix& shape,
    const std::function<void(uint64_t, std::size_t, uint32_t*)>& rows) {
    auto& db = impl_->db;
    const uint64_t documents = checkedDocuments(db, datasetId, shape);
    if (inMemory(impl_->path)) return false;
    const std::string fileName = cacheFileIn(impl_->path, datasetId, cacheKey);
    sigfile::writeFromRows(impl_->sidecarDir() + "/" + fileName, cacheKey, shape, rows);
    recordSignatureCache(db, datasetId, cacheKey, documents, shape.hashes, &fileName, nullptr);
    return true;
}

bool ProjectStore::adoptSignatureFile(int64_t datasetId, const std::string& cacheKey,
                                      const SignatureMatrix& shape,
                                      const std::function<bool(const std::string&)>& link,
                                      uint64_t sharedRows) {
    auto& db = impl_->db;
    const uint64_t documents = checkedDocuments(db, datasetId, shape);
    if (inMemory(impl_->path)) return false;
    if (sharedRows > 0) {
        // Only rows the dataset's base holds in a cache of its own under this key can be left
        // to it: anything else would be a cache with rows nowhere.
        if (!findBaseCache(db, datasetId, cacheKey, sharedRows))
            throw StoreError("project store: dataset " + std::to_string(datasetId) +
                             " cannot leave " + std::to_string(sharedRows) +
                             " signature rows to a base that holds no cache of them");
    }
    const std::string fileName = cacheFileIn(impl_->path, datasetId, cacheKey);
    if (!link(impl_->sidecarDir() + "/" + fileName)) return false;
    recordSignatureCache(db, datasetId, cacheKey, documents, shape.hashes, &fileName, nullptr,
                         sharedRows);
    return true;
}

std::vector<std::string> ProjectStore::signatureCacheFiles() const {
    auto st = impl_->db.prepare("SELECT path FROM signature_caches WHERE path IS NOT NULL");
    std::vector<std::string> out;
    while (st.step())
        out.push_back(st.string(0));
    return out;
}

// ---- Decisions --------------------------------------------------------------------------

int64_t ProjectStore::recordDecision(int64_t datasetId, DecisionKind kind, uint32_t a, uint32_t b) {
    auto& db = impl_->db;
    uint64_t documents = 0;
    {
        auto st = db.prepare("SELECT documents FROM datasets WHERE id = ?1");
        st.bind(1, datasetId);
        if (!st.step()) throw StoreError("project store: no dataset " + std::to_string(datasetId));
        documents = st.u64(0);
    }
    const bool pair = isPairDecision(kind);
    if (pair && a > b) std::swap(a, b);
    if (a >= documents || (pair && b >= documents))
        throw StoreError("decision about document " + std::to_string(a >= documents ? a : b) +
                         ", but dataset " + std::to_string(datasetId) + " has " +
                         std::to_string(documents) + " documents");
    if (pair && a == b)
        throw StoreError(std::string("a \"") + toString(kind) +
                         "\" decision needs two different documents");
    return store_rows::insertDecision(db, datasetId, kind, a,
                                      pair ? std::optional<uint32_t>(b) : std::nullopt);
}

std::vector<Decision> ProjectStore::decisions(int64_t datasetId) const {
    return store_rows::loadDecisions(impl_->db, datasetId);
}

std::optional<Decision> ProjectStore::undoDecision(int64_t datasetId, int64_t decisionId) {
    auto& db = impl_->db;
    sql::Transaction tx(db);
    std::optional<Decision> found = store_rows::findDecision(db, datasetId, decisionId);
    if (!found) return std::nullopt;
    store_rows::deleteDecision(db, found->id);
    tx.commit();
    return found;
}

}  // namespace neardup
