// Buckets and comparison for signatures spilled to disk, sized from the memory budget.
//
// Step one, band by band: the band's (key, document) entries are loaded from its key file
// (when they do not fit, first split by a hash of the key into P partition files, so every
// bucket lies whole in one partition), sorted into buckets, counted for the band's statistics,
// and the members of each bucket of two or more are joined into connected components over all
// bands (CandidateComponents).
//
// Step two: whole components, as many as the budget's rows allow, make a pass. The pass's
// signature rows are read once from the signature file (sorted by document, so nearby rows
// come in one read) into a small matrix with local indices, with every band's keys recomputed
// from them; each band's buckets among them are formed again and the backend compares them as
// it would in memory. Every bucket of every band lies whole inside one component, so a row is
// read once for the whole comparison, not once per band it shares a bucket in: the reads grow
// with the candidates, not with passes x bands x file size as band-by-band passes did.
//
// Step three, for components larger than a pass (thousands of copies, a long chain): their
// buckets band by band, C buckets per pass ("C buckets per pass", SEDD appendix C), a bucket
// larger than a pass tile by tile (two tiles of rows in memory at once: spill_large_buckets.cpp).
//
// Results are identical to the in-memory path:
// - local indices are assigned in document order, so the order-dependent choices inside a
//   bucket (digest groups, their leaders, pair orientation) come out the same;
// - the first-collision rule needs each member's keys of earlier bands. They are recomputed
//   from the rows read for the pass with the backend's own band-key function (a key is a pure
//   function of the band's r values and K), which is exact, where a compact summary of earlier
//   keys would let key collisions skip pairs;
// - bucket statistics are accumulated bucket by bucket with exact integer sums
//   (BandStatsBuilder), so partitioning does not change them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backend.h"
#include "candidate_components.h"
#include "lsh_buckets.h"
#include "run_result.h"
#include "spill_files.h"
#include "spill_signatures.h"

namespace neardup {

class SpilledComparison {
  public:
    SpilledComparison(Backend& backend, WorkDir& dir, const SignatureSpill& spill,
                      const std::vector<uint64_t>& digests, const std::vector<uint8_t>& eligible,
                      const LshParams& lsh, uint64_t modulus, int minMatches, int threads);
    ~SpilledComparison();

    // Reports how far the comparison got, as (done, total) steps.
    using Progress = std::function<void(uint64_t, uint64_t)>;

    // Buckets and compares every band using at most about `workingBytes` for entries, rows and
    // keys: appends one BandStats per band to `stats` and the pairs found to `pairs`, and returns
    // the number of pairs decided.
    uint64_t run(uint64_t workingBytes, std::vector<BandStats>& stats,
                 std::vector<ScoredPair>& pairs, const Progress& progress,
                 const std::function<void()>& checkCancel);

    // From now on, the pairs found go to `file` whenever `bufferPairs` of them have
    // gathered (flushPairs writes the rest): the caller reads them back into a vector of exactly
    // their size once every band is done, instead of one that doubles as it grows.
    void spillPairsTo(SpillFile& file, std::size_t bufferPairs);
    void flushPairs(std::vector<ScoredPair>& pairs);

    // Leaves the pairs between two of the first `documents` documents to the caller (a
    // reference whose own run's stored pairs stand for them: inside a bucket, the pairs among
    // its reference members are the pairs of those members alone, copies collapsed onto the
    // same first member): the components of those documents alone are not compared, and
    // pairs between two of them met in other components are neither returned nor counted as
    // decided. run() drops this when a component holding other documents too is larger than a
    // pass; referenceLeftOut() then says false, and every pair was compared.
    void leaveOutReferencePairs(uint32_t documents) { referenceRows_ = documents; }
    bool referenceLeftOut() const { return referenceRows_ > 0; }

    double bucketSeconds() const { return bucketSeconds_; }
    double compareSeconds() const { return compareSeconds_; }
    uint64_t entries() const { return entries_; }
    // Largest partition count and smallest pass size used so far (for the run's messages).
    std::size_t maxPartitions() const { return maxPartitions_; }
    std::size_t minPassRows() const { return minPassRows_; }
    // Components of documents sharing buckets, the passes that compared them whole, and the
    // documents of the components larger than a pass (compared band by band).
    std::size_t components() const { return components_; }
    std::size_t passes() const { return passes_; }
    uint64_t largeComponentDocuments() const { return largeDocuments_; }
    // Bytes a pass needs per row read: signature, band keys, digest and index bookkeeping.
    uint64_t bytesPerPassRow() const;

  private:
    struct Loaded {  // rows read from the spill, with local indices 0 .. ids.size()
        std::vector<uint32_t> ids;
        SignatureMatrix sigs;
        std::vector<uint64_t> keys;  // ids.size() x band: the earlier bands' keys of each row
    };

    CandidateComponents::Grouped groupBands(uint64_t workingBytes, std::vector<BandStats>& stats,
                                            const Progress& progress,
                                            const std::function<void()>& checkCancel);
    std::size_t passRowsFor(uint64_t workingBytes, uint64_t heldBytes) const;
    // Loads band `band`'s entries of the documents with take[d] set, sorted, and calls
    // sorted(data, count) with them (they lie in `entries`): once, or once per partition when
    // they exceed half the memory. With `otherHalfFree` (nothing else holds the other half of
    // `workingBytes` meanwhile), they are sorted by radix passes with it as their second buffer;
    // else by a comparison sort in place.
    template <typename Sorted>
    void forEachBandPart(int band, const std::vector<uint8_t>& take, uint64_t takeCount,
                         uint64_t workingBytes, bool otherHalfFree,
                         std::vector<BucketEntry>& entries,
                         const std::function<void()>& checkCancel, Sorted&& sorted);
    void loadEntries(int band, const std::vector<uint8_t>& take, uint64_t takeCount,
                     std::vector<BucketEntry>& entries);
    void loadPartitions(int band, const std::vector<uint8_t>& take, std::size_t partitions,
                        uint64_t workingBytes, const std::function<void()>& checkCancel);
    void placeMembers(std::vector<uint32_t>& rowOfSlot);
    void comparePass(std::vector<ScoredPair>& pairs);
    void compareLargeComponents(const std::vector<uint8_t>& large, uint64_t largeCount,
                                uint64_t workingBytes, std::vector<ScoredPair>& pairs,
                                const std::function<void()>& checkCancel);
    void processEntries(int band, const BucketEntry* entries, std::size_t count,
                        std::size_t passRows, std::vector<ScoredPair>& pairs,
                        const std::function<void()>& checkCancel);
    void reservePass(std::size_t rows);
    void load(const uint32_t* docs, std::size_t count, int keyBands, Loaded& out);
    void flushPass(int band, std::vector<ScoredPair>& pairs);
    void compareLarge(const uint32_t* members, std::size_t size, int band, std::size_t passRows,
                      std::vector<ScoredPair>& pairs, const std::function<void()>& checkCancel);
    uint64_t compareLoaded(const Loaded& a, const Loaded& b, bool same, int band,
                           std::vector<ScoredPair>& pairs);
    void spillFullPairs(std::vector<ScoredPair>& pairs);
    bool inReference(uint32_t doc) const { return doc < referenceRows_; }
    // The pairs of localBatch_ between two reference documents that compareBuckets decided
    // (those of each bucket's reference members alone).
    uint64_t referenceDecided(const CompareRequest& req);

    Backend& backend_;
    WorkDir& dir_;
    const SignatureSpill& spill_;
    const std::vector<uint64_t>& digests_;
    const std::vector<uint8_t>& eligible_;
    LshParams lsh_;
    uint64_t modulus_;
    // The OR of the keys the last loadEntries or loadPartitions took: as wide as any of the
    // band's entries, which is what their radix passes sort.
    uint64_t loadedKeyBits_ = 0;
    int minMatches_;
    int threads_;
    uint64_t eligibleCount_ = 0;
    struct Arena;  // keeps TBB out of this header (Qt's `emit` clashes with it in tests)
    std::unique_ptr<Arena> arena_;

    // Current pass: buckets of global document ids, and everything reused between passes.
    BucketBatch pass_;
    std::vector<uint32_t> passDocs_;
    std::vector<uint64_t> placed_;          // each member of the pass << 32 | its slot, sorted
    std::vector<uint32_t> localOf_;         // slot of pass_.members -> row of the pass
    std::vector<uint64_t> slotKeys_;        // band t's key of slot i at [t * slots + i]
    std::vector<uint32_t> componentBegin_;  // where each component starts in pass_.members
    std::vector<BucketEntry> componentEntries_;
    Loaded loaded_;
    BucketBatch localBatch_;
    std::vector<ScoredPair> localPairs_;
    uint64_t decided_ = 0;
    uint32_t referenceRows_ = 0;  // leaveOutReferencePairs
    BucketBatch referenceBatch_;
    std::vector<ScoredPair> referencePairs_;
    std::vector<std::unique_ptr<SpillFile>> partitions_;
    std::size_t reservedRows_ = 0;
    SpillFile* pairFile_ = nullptr;  // where found pairs go, when set
    std::size_t pairBuffer_ = 0;

    double bucketSeconds_ = 0, compareSeconds_ = 0;
    uint64_t entries_ = 0;
    std::size_t maxPartitions_ = 1;
    std::size_t minPassRows_ = 0;
    std::size_t components_ = 0;
    std::size_t passes_ = 0;
    uint64_t largeDocuments_ = 0;
};

}  // namespace neardup
