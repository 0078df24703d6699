// The documents that share a bucket with another document in some band, grouped by the
// connected components of "shares a bucket" over every band.
//
// Why: the out-of-core comparison must read each member's signature row from disk before it can
// compare a bucket. Taken band by band, a document in buckets of many bands (every near-duplicate
// is: that is what LSH is for) has its row read once per band, and every pass's rows lie spread
// over the whole file, so the reads grow with passes x file size. Every bucket of every band
// lies whole inside one component, so a pass made of whole components can compare all bands'
// buckets of its members from one read of their rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lsh_buckets.h"

namespace neardup {

class CandidateComponents {
  public:
    explicit CandidateComponents(std::size_t documents);

    // Bytes held per document of the corpus while buckets are joined.
    static constexpr uint64_t kBytesPerDocument = sizeof(uint32_t) + sizeof(uint8_t);

    // Joins the members of one bucket of two or more members (entries sorted by document). The
    // join may wait until more buckets have come (finish() does them all).
    void joinBucket(const BucketEntry* members, std::size_t size);

    struct Grouped {
        // Every document that shares a bucket with another, component by component: components
        // in order of their lowest document, documents ascending inside each.
        std::vector<uint32_t> documents;
        // Component c is documents[begin[c], begin[c + 1]); begin.size() is components + 1.
        std::vector<std::size_t> begin;
        std::size_t components() const { return begin.empty() ? 0 : begin.size() - 1; }
        std::size_t size(std::size_t c) const { return begin[c + 1] - begin[c]; }
    };

    // Ends the joining and hands out the grouping; this object's memory is returned.
    Grouped finish(int threads);

  private:
    uint32_t find(uint32_t x);
    void joinPending();

    // Buckets waiting to be joined: their members, and where each bucket ends. The members are
    // random documents (entries come sorted by key), so each join would wait for memory in turn;
    // a few hundred buckets' forest entries are asked for at once and then joined.
    std::vector<uint32_t> pending_;
    std::vector<uint32_t> pendingEnds_;
    std::vector<uint32_t> parent_;  // union-find forest; a root is its component's lowest document
    std::vector<uint8_t> inBucket_;
};

}  // namespace neardup
