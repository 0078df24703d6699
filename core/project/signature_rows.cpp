// Single rows of a project's signature cache (signature_rows.h).
#include "signature_rows.h"

#include <limits>

#include "project_store.h"
#include "signature_cache_entry.h"
#include "signature_file.h"
#include "sqlite_handle.h"

namespace neardup {

namespace {

// Every row of a cache loaded whole, copied out.
bool copyRows(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
              const std::vector<uint32_t>& rows, std::vector<uint32_t>& values) {
    SignatureMatrix all;
    if (!store.loadSignatures(datasetId, cacheKey, all)) return false;
    const auto h = static_cast<std::size_t>(all.hashes);
    values.reserve(rows.size() * h);
    for (const uint32_t row : rows) {
        if (row >= all.size()) {
            values.clear();
            return false;
        }
        values.insert(values.end(), all.row(row), all.row(row) + h);
    }
    return true;
}

// The project's own reader connection, as the workbench's queries open one. It waits for another
// process writing the project (concurrent runs: tests/test_user_files.cpp) as the store's
// connection does, instead of failing the finished run "project busy".
std::optional<SignatureCacheEntry> cacheOf(const std::string& project, int64_t datasetId,
                                           const std::string& cacheKey) {
    sql::Database db(project, sql::OpenMode::ReadOnly);
    db.setBusyTimeout(sql::kBusyTimeoutMs);
    return findSignatureCache(db, datasetId, cacheKey);
}

}  // namespace

bool loadSignatureRows(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       const std::vector<uint32_t>& rows, std::vector<uint32_t>& values) {
    values.clear();
    const std::string& project = store.path();
    if (project.empty() || project == ":memory:")
        return copyRows(store, datasetId, cacheKey, rows, values);
    const std::optional<SignatureCacheEntry> cache = cacheOf(project, datasetId, cacheKey);
    if (!cache) return false;
    if (cache->file.empty()) return copyRows(store, datasetId, cacheKey, rows, values);
    // The sidecar directory beside the project file (project_store.h).
    return sigfile::readRows(project + ".d/" + cache->file, cacheKey, cache->documents,
                             cache->hashes, rows, values);
}

bool openSignatureFile(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       SignatureMatrix& shape, sigfile::OpenedRows& out) {
    shape = SignatureMatrix{};
    const std::string& project = store.path();
    if (project.empty() || project == ":memory:") return false;
    const std::optional<SignatureCacheEntry> cache = cacheOf(project, datasetId, cacheKey);
    if (!cache || cache->file.empty()) return false;
    return sigfile::openRows(project + ".d/" + cache->file, cacheKey, cache->documents,
                             cache->hashes, shape, out);
}

}  // namespace neardup
