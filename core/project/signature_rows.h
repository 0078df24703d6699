// Single rows of a project's signature cache: what the diameters of a few components need
// (component_chain.h: notableComponents, after `neardup run`), without reading the whole cache.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "signature_file.h"

namespace neardup {

class ProjectStore;

// The cached signature rows of the documents `rows` (sorted) of a dataset, in that order, into
// `values` (rows.size() * H). A file cache is read row by row (one read of H values per
// document); a cache stored in the project file itself (in-memory projects) is decoded whole.
// False, with `values` empty, when no cache of that key exists or it does not match the
// dataset's shape, as ProjectStore::loadSignatures.
bool loadSignatureRows(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       const std::vector<uint32_t>& rows, std::vector<uint32_t>& values);

// The dataset's whole cache opened to be streamed (sigfile::openRows): its digests and flags
// into `shape`, the file's descriptor and where its rows lie into `out`. False, with `shape`
// empty, when no file cache of that key matches the dataset (an in-memory project's BLOB is no
// file to stream: its run loads it whole or reads its inputs).
bool openSignatureFile(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       SignatureMatrix& shape, sigfile::OpenedRows& out);

}  // namespace neardup
