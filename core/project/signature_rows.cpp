// Single rows of a project's signature cache (signature_rows.h).
#include "signature_rows.h"

#include "project_store.h"
#include "signature_cache_entry.h"
#include "signature_file.h"
#include "sqlite_handle.h"

namespace neardup {

namespace {

bool inMemoryProject(const std::string& project) {
    return project.empty() || project == ":memory:";
}

// The project's own reader connection, as the workbench's queries open one. It waits for another
// process writing the project (concurrent runs: tests/cli/test_user_files.cpp) as the store's
// connection does, instead of failing the finished run "project busy".
std::optional<SignatureCacheEntry> cacheOf(const std::string& project, int64_t datasetId,
                                           const std::string& cacheKey) {
    sql::Database db(project, sql::OpenMode::ReadOnly);
    db.setBusyTimeout(sql::kBusyTimeoutMs);
    return findSignatureCache(db, datasetId, cacheKey);
}

}  // namespace

SignatureRowReader::SignatureRowReader(const ProjectStore& store, int64_t datasetId,
                                       const std::string& cacheKey) {
    const std::string& project = store.path();
    std::optional<SignatureCacheEntry> cache;
    if (!inMemoryProject(project)) {
        cache = cacheOf(project, datasetId, cacheKey);
        if (!cache) return;
    }
    if (!cache || cache->file.empty()) {
        if (!store.loadSignatures(datasetId, cacheKey, whole_)) whole_ = SignatureMatrix{};
        return;
    }
    // The sidecar directory beside the project file (project_store.h).
    if (sigfile::openValues(project + ".d/" + cache->file, cacheKey, cache->documents,
                            cache->hashes, file_)) {
        documents_ = cache->documents;
        hashes_ = cache->hashes;
    }
}

bool SignatureRowReader::read(const std::vector<uint32_t>& rows,
                              std::vector<uint32_t>& values) const {
    values.clear();
    if (file_.fd.valid())
        return sigfile::readRowsAt(file_.fd.get(), file_.valuesAt, documents_, hashes_, rows,
                                   values);
    if (whole_.hashes == 0) return false;
    const auto h = static_cast<std::size_t>(whole_.hashes);
    values.reserve(rows.size() * h);
    for (const uint32_t row : rows) {
        if (row >= whole_.size()) {
            values.clear();
            return false;
        }
        values.insert(values.end(), whole_.row(row), whole_.row(row) + h);
    }
    return true;
}

bool loadSignatureRows(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       const std::vector<uint32_t>& rows, std::vector<uint32_t>& values) {
    return SignatureRowReader(store, datasetId, cacheKey).read(rows, values);
}

bool openSignatureFile(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       SignatureMatrix& shape, sigfile::OpenedRows& out) {
    shape = SignatureMatrix{};
    const std::string& project = store.path();
    if (inMemoryProject(project)) return false;
    const std::optional<SignatureCacheEntry> cache = cacheOf(project, datasetId, cacheKey);
    if (!cache || cache->file.empty()) return false;
    return sigfile::openRows(project + ".d/" + cache->file, cacheKey, cache->documents,
                             cache->hashes, shape, out);
}

}  // namespace neardup
