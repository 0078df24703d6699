// The signature matrix within the run's memory budget: rows stay in memory while they fit and
// go to spill files (with their raw band keys) from the row where they no longer do; and what
// the budget leaves for the working sets of the later phases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend.h"
#include "document_table.h"
#include "params.h"
#include "phase_reporter.h"
#include "run_result.h"
#include "signature_file.h"
#include "signatures.h"
#include "spill_files.h"
#include "spill_signatures.h"

namespace neardup {

class SignatureMemory {
  public:
    // Spilled rows start `spillRowsAt` bytes into their file: room for the header of the
    // signature cache the file becomes once saved (SaveDatasetPhase).
    SignatureMemory(Backend& backend, const RunParams& params, uint64_t budget, WorkDir& work,
                    PhaseReporter& report, uint64_t spillRowsAt)
        : backend_(backend),
          params_(params),
          budget_(budget),
          work_(work),
          report_(report),
          spillRowsAt_(spillRowsAt) {}

    uint64_t budget() const { return budget_; }
    bool spilled() const { return spill_ != nullptr; }
    SignatureSpill& spill() { return *spill_; }

    // Whether the in-memory path (signature matrix, band keys, one band's entries) fits the
    // budget for `n` documents next to the document table.
    bool fitsInMemory(const DocumentTable& docs, std::size_t n) const;
    // Memory left for working sets next to what stays resident (document table, digests and
    // flags, stored pairs counted twice for their growth).
    uint64_t workingBytes(const DocumentTable& docs, const SignatureMatrix& sigs,
                          const std::vector<ScoredPair>& pairs) const;

    // The per-document floor of `docs` (documentFloorBytes, run_memory.h).
    uint64_t floorBytes(const DocumentTable& docs) const;
    // Throws MemoryBudgetError when the floor of the documents so far exceeds the budget.
    // `readShare` is the share of the input they came from (1: all of it; 0: unknown), from
    // which the whole input's documents are estimated.
    void checkFloor(const DocumentTable& docs, double readShare) const;
    // Makes room for `more` documents with `idBytes` of ids in the document table, digests and
    // flags: a quarter more than before at a time (the floor counts that headroom), never the
    // doubling of push_back.
    static void growDocuments(DocumentTable& docs, SignatureMatrix& sigs, std::size_t more,
                              std::size_t idBytes);
    // SQLite's page cache of the project store within this budget (storeCacheBytes).
    uint64_t storeCacheBytes() const;

    // While reading: the estimated bytes of the chunks in flight (0 once reading is over).
    void setReadBuffers(uint64_t bytes) { readBuffers_ = bytes; }
    // Makes room for `rows` signature rows in memory, or returns false when the matrix (with
    // what the in-memory comparison adds later, and the copy made while growing) would no
    // longer fit the budget. Room for `expectedRows` (the rows the whole input is expected to
    // have; 0: unknown) is made at once where that fits.
    bool reserveRows(const DocumentTable& docs, SignatureMatrix& sigs, std::size_t rows,
                     std::size_t expectedRows = 0);
    // Moves the first `rows` rows of the in-memory matrix to the spill files and frees it.
    void startSpill(SignatureMatrix& sigs, std::size_t rows, RunResult& run);
    // Spills rows that lie on disk already, `documents` of them in a project's signature cache
    // (and its base's, for the rows it shares): the spill reads them there, and only their band
    // keys are computed and written, a block at a time.
    void spillCachedRows(sigfile::OpenedRows rows, std::size_t documents, RunResult& run);
    // The same for the first `documents` rows only (a reference's cache, as the read of the
    // inputs begins): the rows the read appends after them are spilled as startSpill's are.
    void spillCachedPrefix(UniqueFd rows, uint64_t rowsAt, std::size_t documents, RunResult& run);
    // Rows on their way to the spill files: filled by the reader, then spillBlock().
    SignatureMatrix& block() { return block_; }
    // Appends the rows in block() with their raw band keys (K is applied when reading them).
    void spillBlock();
    // Appends `count` rows keyed already (rawBandKeys: count x bands), straight from the caller.
    void spillKeyedRows(const uint32_t* rows, const uint64_t* rawKeys, std::size_t count) {
        spill_->append(rows, rawKeys, count);
    }
    // Reading is over: the block's memory goes back.
    void dropBlock() { block_ = SignatureMatrix{}; }
    // Once the comparison is done: the band keys' spill files are closed (their space
    // returned); the rows' file stays until the run's largest components are measured
    // (ExportPhase), then releaseSpill() closes it.
    void releaseSpilledKeys();
    void releaseSpill();

  private:
    // Computes and appends the band keys of the spill's first `documents` rows, which lie on
    // disk already.
    void keyCachedRows(std::size_t documents);

    Backend& backend_;
    const RunParams& params_;
    uint64_t budget_;
    WorkDir& work_;
    PhaseReporter& report_;
    uint64_t spillRowsAt_;
    std::unique_ptr<SignatureSpill> spill_;
    uint64_t readBuffers_ = 0;  // estimated bytes of the chunks in flight while reading
    SignatureMatrix block_;     // rows on their way to the spill files
    std::vector<uint64_t> blockKeys_;
};

}  // namespace neardup
