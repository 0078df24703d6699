// Single rows of a project's signature cache: what the diameters of a few components need
// (component_chain.h: notableComponents, after `neardup run`), without reading the whole cache.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "signature_file.h"

namespace neardup {

class ProjectStore;

// A dataset's cached signature rows, read a few documents at a time through one open cache
// file: whoever reads the members of many components (component_chain.h) looks the cache up and
// opens it once for all of them. A cache stored in the project file itself (in-memory projects)
// is decoded whole once.
class SignatureRowReader {
  public:
    SignatureRowReader(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey);
    // The rows of the documents `rows` (sorted), in that order, into `values` (rows.size() * H).
    // False, with `values` empty, when there is no cache of that key or it does not match the
    // dataset's shape (as ProjectStore::loadSignatures), or a row cannot be read. Safe to call
    // from several threads at once.
    bool read(const std::vector<uint32_t>& rows, std::vector<uint32_t>& values) const;

  private:
    sigfile::OpenedRows file_;
    uint64_t documents_ = 0;
    int hashes_ = 0;
    SignatureMatrix whole_;
};

// One call's worth of SignatureRowReader.
bool loadSignatureRows(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       const std::vector<uint32_t>& rows, std::vector<uint32_t>& values);

// The dataset's whole cache opened to be streamed (sigfile::openRows): its digests and flags
// into `shape`, the file's descriptor and where its rows lie into `out` (with its base's cache
// for the rows it shares, sigfile::OpenedRows::sharedRows). False, with `shape`
// empty, when no file cache of that key matches the dataset (an in-memory project's BLOB is no
// file to stream: its run loads it whole or reads its inputs).
bool openSignatureFile(const ProjectStore& store, int64_t datasetId, const std::string& cacheKey,
                       SignatureMatrix& shape, sigfile::OpenedRows& out);

}  // namespace neardup
