// The signature cache's row (signature_cache_entry.h).
#include "signature_cache_entry.h"

#include <limits>

#include "dataset_rows.h"
#include "sqlite_handle.h"

namespace neardup {

std::optional<SignatureCacheEntry> findSignatureCache(const sql::Database& db, int64_t datasetId,
                                                      const std::string& cacheKey) {
    auto st = db.prepare(
        "SELECT c.path, c.documents, c.hashes, d.documents, c.shared_rows, d.base_documents "
        "FROM signature_caches c "
        "JOIN datasets d ON d.id = c.dataset_id WHERE c.dataset_id = ?1 AND c.cache_key = ?2");
    st.bind(1, datasetId).bind(2, std::string_view(cacheKey));
    if (!st.step()) return std::nullopt;
    const uint64_t documents = st.u64(1);
    const int64_t hashes = st.int64(2);
    const uint64_t sharedRows = st.u64(4);
    if (documents != st.u64(3) || hashes <= 0 || hashes > std::numeric_limits<int>::max() ||
        (sharedRows > 0 && sharedRows != st.u64(5)))
        return std::nullopt;
    SignatureCacheEntry entry;
    if (!st.isNull(0)) entry.file = st.string(0);
    entry.documents = documents;
    entry.hashes = static_cast<int>(hashes);
    entry.sharedRows = sharedRows;
    return entry;
}

std::optional<BaseCache> findBaseCache(const sql::Database& db, int64_t datasetId,
                                       const std::string& cacheKey, uint64_t sharedRows) {
    const std::optional<store_rows::DatasetBase> base = store_rows::datasetBase(db, datasetId);
    if (!base || base->documents != sharedRows) return std::nullopt;
    std::optional<SignatureCacheEntry> entry = findSignatureCache(db, base->dataset, cacheKey);
    if (!entry || entry->file.empty() || entry->sharedRows != 0 || entry->documents != sharedRows)
        return std::nullopt;
    return BaseCache{base->dataset, std::move(*entry)};
}

}  // namespace neardup
