// Single rows of a project's signature cache (signature_rows.h).
#include "signature_rows.h"

#include <limits>

#include "project_store.h"
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

}  // namespace

bool loadSignatureRows(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       const std::vector<uint32_t>& rows, std::vector<uint32_t>& values) {
    values.clear();
    const std::string& project = store.path();
    if (project.empty() || project == ":memory:")
        return copyRows(store, datasetId, cacheKey, rows, values);
    // The project's own reader connection, as the workbench's queries open one. It waits for
    // another process writing the project (concurrent runs: tests/test_user_files.cpp) as the
    // store's connection does, instead of failing the finished run "project busy".
    sql::Database db(project, sql::OpenMode::ReadOnly);
    db.setBusyTimeout(sql::kBusyTimeoutMs);
    auto st = db.prepare(
        "SELECT c.path, c.documents, c.hashes, d.documents FROM signature_caches c "
        "JOIN datasets d ON d.id = c.dataset_id WHERE c.dataset_id = ?1 AND c.cache_key = ?2");
    st.bind(1, datasetId).bind(2, std::string_view(cacheKey));
    if (!st.step()) return false;
    const uint64_t documents = st.u64(1);
    const int64_t hashes = st.int64(2);
    if (documents != st.u64(3) || hashes <= 0 || hashes > std::numeric_limits<int>::max())
        return false;
    if (st.isNull(0)) return copyRows(store, datasetId, cacheKey, rows, values);
    // The sidecar directory beside the project file (project_store.h).
    return sigfile::readRows(project + ".d/" + st.string(0), cacheKey, documents,
                             static_cast<int>(hashes), rows, values);
}

}  // namespace neardup
