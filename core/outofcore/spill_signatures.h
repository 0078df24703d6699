// Signatures of a run that does not fit its memory budget, on disk.
//
// Rows go to one file in document order, so the comparison can fetch the rows of the members
// of the buckets it is about to compare with a few sorted reads. Band keys go to one file per
// band, raw (not reduced modulo K: with --buckets auto, K depends on the document count, known
// only once everything is read), so bucketing streams one band at a time. Digests and
// eligibility flags, 9 bytes a document, stay in memory with the caller.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "spill_files.h"
#include "unique_fd.h"

namespace neardup {

class SignatureSpill {
  public:
    // The rows start `rowsAt` bytes into their file (zeros until then): room for the header
    // of the signature cache the file may become (rowsFile).
    SignatureSpill(WorkDir& dir, int hashes, int bands, uint64_t rowsAt = 0);
    // The rows already on disk, in a file of this layout that the spill only reads (a project's
    // signature cache: sigfile::OpenedRows), document d's at rowsAt + d * rowBytes(): only the
    // band keys are written, by appendKeys.
    SignatureSpill(WorkDir& dir, int hashes, int bands, UniqueFd rows, uint64_t rowsAt);
    // Both: the first `givenCount` rows already on disk (at givenAt in `given`, as above, keyed
    // by appendKeys), the rows appended after them written here, at rowsAt + d * rowBytes() as
    // in a spill of every row, the given rows' place left a hole (fillGivenRows).
    SignatureSpill(WorkDir& dir, int hashes, int bands, uint64_t rowsAt, UniqueFd given,
                   uint64_t givenAt, std::size_t givenCount);
    // Every row already on disk, in two files this spill only reads: the first `givenCount` in
    // `given` at givenAt, the others in `rows` at rowsAt + d * rowBytes() (a cache that leaves
    // its first rows to its dataset's base's cache: sigfile::OpenedRows::sharedRows). Only the
    // band keys are written, by appendKeys.
    SignatureSpill(WorkDir& dir, int hashes, int bands, UniqueFd given, uint64_t givenAt,
                   std::size_t givenCount, UniqueFd rows, uint64_t rowsAt);
    ~SignatureSpill();
    SignatureSpill(const SignatureSpill&) = delete;
    SignatureSpill& operator=(const SignatureSpill&) = delete;

    // Appends `count` rows (count x hashes values, row-major) and their raw band keys
    // (count x bands, row-major).
    void append(const uint32_t* rows, const uint64_t* rawKeys, std::size_t count);
    // The raw band keys (count x bands, row-major) of the next `count` rows of a spill over rows
    // already on disk.
    void appendKeys(const uint64_t* rawKeys, std::size_t count);

    std::size_t size() const { return size_; }
    int hashes() const { return hashes_; }
    int bands() const { return bands_; }
    uint64_t rowBytes() const { return uint64_t{4} * static_cast<uint64_t>(hashes_); }

    // Rows of `docs` (ascending, distinct) into out (count x hashes). Each run of consecutive
    // documents costs one read. Thread-safe.
    void readRows(const uint32_t* docs, std::size_t count, uint32_t* out) const;
    // Rows asked of readRows so far (the comparison's reads, which tests and reports count).
    uint64_t rowsRead() const { return rowsRead_.load(std::memory_order_relaxed); }
    // Rows of documents [first, first + count) into out, in one read. Thread-safe.
    void readRange(uint64_t first, std::size_t count, uint32_t* out) const;
    // Raw keys of band `band` of documents [first, first + count). Thread-safe.
    void readBandKeys(int band, uint64_t first, std::size_t count, uint64_t* out) const;
    // Closes the band keys' files (their disk space goes back); the rows stay readable.
    void dropBandKeys();

    // The rows' file, keepable (SpillFile::Kind): the rows of document d at rowsAt + d *
    // rowBytes(). Once every row is appended it may be completed into another format around
    // them (SpillFile::writeAt) and kept (SpillFile::linkAs), and stays readable here.
    // Null for a spill over rows already on disk.
    SpillFile* rowsFile() { return rows_.get(); }
    // Copies the given rows into the rows' file, `blockRows` at a time, calling `between`
    // before each block (a cancellation check): the file then holds every row, as a spill of
    // every row does.
    void fillGivenRows(std::size_t blockRows, const std::function<void()>& between);
    // How many rows before the appended ones were given on disk (their place in the rows' file
    // a hole until fillGivenRows); 0 for a spill without any, or over rows on disk only.
    uint64_t givenPrefix() const { return rows_ ? givenCount_ : 0; }

  private:
    int hashes_;
    int bands_;
    uint64_t rowsAt_;
    std::size_t size_ = 0;
    // Reads `count` consecutive rows from `first` on, wherever they lie.
    void readRowSpan(uint64_t first, uint64_t count, uint32_t* out) const;

    std::unique_ptr<SpillFile> rows_;  // the rows written here, and/or
    UniqueFd givenRows_;               // the rows already on disk: the first givenCount_
    uint64_t givenAt_ = 0;             // (every row, for a spill over rows on disk only)
    uint64_t givenCount_ = 0;
    UniqueFd restRows_;  // the rows from givenCount_ on, when they lie in a file only read here
    std::vector<std::unique_ptr<SpillFile>> bandKeys_;
    std::vector<uint64_t> column_;  // one band's keys of the block being appended
    mutable std::atomic<uint64_t> rowsRead_{0};
};

}  // namespace neardup
