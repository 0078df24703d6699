// Which documents fall into a given LSH bucket of a run. Band keys are not stored in the
// project (n x bands values); they are recomputed on demand from the run's cached signatures,
// with the run's band scheme and bucket count, exactly as the run computed them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"

namespace neardup {

class ProjectStore;

class BandKeyTable {
  public:
    // Loads the signatures the run used from the project's signature cache and computes every
    // band's keys with `backend`. Returns false, with why() set, when they are not cached (a run
    // that spilled to disk, or a deleted sidecar directory); throws StoreError when the run does
    // not exist. Memory: 8 bytes per document and band, plus the signatures while computing.
    bool load(const ProjectStore& store, int64_t runId, Backend& backend);

    int64_t runId() const { return runId_; }
    int64_t datasetId() const { return datasetId_; }
    int bands() const { return bands_; }
    std::size_t documents() const { return eligible_.size(); }
    const std::string& why() const { return why_; }

    // Key of band `band` of document `doc`.
    uint64_t key(std::size_t doc, int band) const {
        return keys_[doc * static_cast<std::size_t>(bands_) + static_cast<std::size_t>(band)];
    }
    // False for a document shorter than a shingle: it is in no bucket.
    bool eligible(std::size_t doc) const { return eligible_[doc] != 0; }
    // The documents of bucket `key` in band `band`, in document order. Documents shorter than
    // a shingle take no part in LSH, as in the run. One pass over the band's keys.
    std::vector<uint32_t> members(int band, uint64_t key) const;

  private:
    int64_t runId_ = 0, datasetId_ = 0;
    int bands_ = 0;
    std::vector<uint64_t> keys_;  // documents x bands, row-major
    std::vector<uint8_t> eligible_;
    std::string why_;
};

}  // namespace neardup
