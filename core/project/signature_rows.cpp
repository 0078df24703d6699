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

// A cache that shares rows with its dataset's base comes with the base's cache under the same
// key, which must hold exactly those rows, all its own; without it the cache is a miss.
struct CacheFiles {
    SignatureCacheEntry own;
    std::optional<SignatureCacheEntry> base;
};

// The cache of (dataset, key), read through the project's own reader connection, as the
// workbench's queries open one. It waits for another process writing the project (concurrent
// runs: tests/cli/test_user_files.cpp) as the store's connection does, instead of failing the
// finished run "project busy".
std::optional<CacheFiles> cacheOf(const std::string& project, int64_t datasetId,
                                  const std::string& cacheKey) {
    sql::Database db(project, sql::OpenMode::ReadOnly);
    db.setBusyTimeout(sql::kBusyTimeoutMs);
    std::optional<SignatureCacheEntry> own = findSignatureCache(db, datasetId, cacheKey);
    if (!own) return std::nullopt;
    CacheFiles files{*own, std::nullopt};
    if (own->sharedRows == 0) return files;
    std::optional<BaseCache> base = findBaseCache(db, datasetId, cacheKey, own->sharedRows);
    if (!base || base->entry.hashes != own->hashes) return std::nullopt;
    files.base = std::move(base->entry);
    return files;
}

// The base's values beside a cache's own (CacheFiles): false when they cannot be opened.
bool openBaseValues(const std::string& project, const CacheFiles& cache,
                    const std::string& cacheKey, sigfile::OpenedRows& out) {
    if (!cache.base) return true;
    sigfile::OpenedRows base;
    if (!sigfile::openValues(project + ".d/" + cache.base->file, cacheKey, cache.base->documents,
                             cache.base->hashes, base))
        return false;
    out.baseFd = std::move(base.fd);
    out.baseValuesAt = base.valuesAt;
    out.sharedRows = cache.own.sharedRows;
    return true;
}

}  // namespace

SignatureRowReader::SignatureRowReader(const ProjectStore& store, int64_t datasetId,
                                       const std::string& cacheKey) {
    const std::string& project = store.path();
    std::optional<CacheFiles> cache;
    if (!inMemoryProject(project)) {
        cache = cacheOf(project, datasetId, cacheKey);
        if (!cache) return;
    }
    if (!cache || cache->own.file.empty()) {
        if (!store.loadSignatures(datasetId, cacheKey, whole_)) whole_ = SignatureMatrix{};
        return;
    }
    // The sidecar directory beside the project file (project_store.h).
    if (sigfile::openValues(project + ".d/" + cache->own.file, cacheKey, cache->own.documents,
                            cache->own.hashes, file_) &&
        openBaseValues(project, *cache, cacheKey, file_)) {
        documents_ = cache->own.documents;
        hashes_ = cache->own.hashes;
    } else {
        file_ = sigfile::OpenedRows{};
    }
}

bool SignatureRowReader::read(const std::vector<uint32_t>& rows,
                              std::vector<uint32_t>& values) const {
    values.clear();
    if (file_.fd.valid()) return sigfile::readRowsAt(file_, documents_, hashes_, rows, values);
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
    const std::optional<CacheFiles> cache = cacheOf(project, datasetId, cacheKey);
    if (!cache || cache->own.file.empty()) return false;
    if (!sigfile::openRows(project + ".d/" + cache->own.file, cacheKey, cache->own.documents,
                           cache->own.hashes, shape, out))
        return false;
    if (openBaseValues(project, *cache, cacheKey, out)) return true;
    shape = SignatureMatrix{};
    out = sigfile::OpenedRows{};
    return false;
}

}  // namespace neardup
