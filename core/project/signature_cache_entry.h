// Where a dataset's signature cache under one key is, and its shape: the one query every
// reader of the cache starts from (the store's, the single rows' and the streamed rows' own
// read-only connections alike).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace neardup {

namespace sql {
class Database;
}

struct SignatureCacheEntry {
    // The cache file's name in the project's sidecar directory; empty when the cache is a BLOB
    // in the project file itself (an in-memory project).
    std::string file;
    uint64_t documents = 0;
    int hashes = 0;
    // Rows the file leaves to the cache of the dataset's base under the same key (a hole in
    // it): the dataset's first sharedRows documents are the base's (DatasetRecord::baseDataset).
    uint64_t sharedRows = 0;
};

// The cache of (dataset, cache key), or nothing when none is recorded or its row disagrees with
// the dataset's document count or holds no usable hash count (a cache miss, as a foreign file is).
std::optional<SignatureCacheEntry> findSignatureCache(const sql::Database& db, int64_t datasetId,
                                                      const std::string& cacheKey);

// The cache of the base of `datasetId` under `cacheKey` that holds the `sharedRows` rows a cache
// of the dataset leaves to it, as a file, every row its own; nothing when there is none.
struct BaseCache {
    int64_t dataset = 0;
    SignatureCacheEntry entry;
};
std::optional<BaseCache> findBaseCache(const sql::Database& db, int64_t datasetId,
                                       const std::string& cacheKey, uint64_t sharedRows);

}  // namespace neardup
