// Checkpoints of the read + signatures phase, so that a run killed while reading a large corpus
// can be resumed where it was instead of from the beginning.
//
// While a run reads, every `everyBytes` of input (256 MiB by default; NEARDUP_CHECKPOINT_BYTES
// overrides it, for tests) the rows signed since the last record are appended to
// "<project>.d/checkpoint-<16 hex digits>.bin" with the position after them (file index,
// decompressed byte offset, line number) and the counts so far. The name and the header hold
// a key of everything that determines those rows (the input files with their sizes and
// modification times, the reader options, the signature cache key, H), so only a run that
// would compute the very same rows uses it. A later run restores the rows (documents,
// signatures, digests, eligibility, every rejection replayed into its RejectionLog, lines and
// blank lines, bytes read) and reads on from the position: the dataset, signatures,
// rejections and outputs are identical to an uninterrupted run's
// (tests/run/test_kill_resume.cpp). Records are appended whole with a checksum; a torn last record
// (killed while writing it) is ignored and overwritten. Runs that spill signatures to disk do
// not checkpoint. Records are written and synced on a thread of their own; while one is still
// being written, the next waits for a later chunk, so the reading pipeline never waits for the
// disk.
//
// The signature values go to "checkpoint-<same digits>.sig", each row where the project's
// signature cache file (signature_file.h) has it, synced before the record that holds their
// checksum. Once the dataset is saved, that file is completed into the cache and renamed
// (keepValuesAs): the values are written once, not once here and again into the cache. The
// checkpoint is removed then, or once the dataset and its signatures are saved otherwise.
// The files' layout: docs/reference/project-format.md, "Read checkpoints".
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "document_table.h"
#include "jsonl_reader.h"
#include "project_store.h"
#include "signatures.h"

namespace neardup {

// "<project>.d", or "" (no checkpoints) for an in-memory project.
std::string sidecarDirectory(const std::string& projectPath);

struct ReadPosition {
    uint32_t file = 0;
    uint64_t offset = 0;  // decompressed bytes of `file` before the position
    uint64_t line = 1;    // 1-based number of the line at the position
};

class ReadCheckpoint {
  public:
    // Disabled (every call does nothing) when `sidecarDir` is empty.
    ReadCheckpoint(std::string sidecarDir, const std::vector<InputFile>& files,
                   const ReaderOptions& reader, const std::string& cacheKey, int hashes);
    ~ReadCheckpoint();  // keeps the file: a run that did not finish leaves it for the next
    ReadCheckpoint(const ReadCheckpoint&) = delete;
    ReadCheckpoint& operator=(const ReadCheckpoint&) = delete;

    // Whether an earlier run left a checkpoint file under this read's name (whether it is usable
    // is for restore to find out).
    bool left() const;
    // Fills the empty `docs`, `sigs`, `log` and the counts of `dataset` from the checkpoint and
    // returns where reading goes on, with the bytes read before it; nothing when there is no
    // usable checkpoint (then nothing is changed).
    std::optional<ReadPosition> restore(DocumentTable& docs, SignatureMatrix& sigs,
                                        RejectionLog& log, DatasetRecord& dataset,
                                        uint64_t& bytesBefore);
    // After the pipeline consumed `chunk` (its rows are in docs/sigs, its counts in dataset);
    // `bytesRead` = every decompressed byte up to the end of the chunk. Appends a record when
    // enough input went by. Throws nothing: a checkpoint that cannot be written is dropped.
    void afterChunk(const LineChunk& chunk, const ParsedChunk& parsed, const DocumentTable& docs,
                    const SignatureMatrix& sigs, const DatasetRecord& dataset, uint64_t bytesRead);
    // Rejections the read counts before its first chunk (a reference's, taken from the dataset
    // that read it): the next record carries them, so that a read restored from the checkpoint
    // has them in their place, ahead of the chunks'. Taken, not copied: there may be many.
    void addRejections(std::vector<Rejection> rejections);
    // No more checkpoints for this run (it spills); the file is removed.
    void disable();
    // The dataset and signatures are saved: the checkpoint is not needed any more.
    void remove();
    // Makes the values' file, which already holds the recorded rows, the signature cache
    // `cachePath` of `sigs` (their signatures under `cacheKey`): the rows read since the last
    // record written, the rest of the cache's layout around them, synced and renamed. The
    // checkpoint is removed then. False, with nothing written, when there is no values' file
    // (no record was written) or it is another cache key's. Throws std::runtime_error naming
    // `cachePath` when the disk refuses.
    bool keepValuesAs(const std::string& cacheKey, const SignatureMatrix& sigs,
                      const std::string& cachePath);
    // Records in the checkpoint file (restored or appended), once the one being written is.
    int records() {
        settle();
        return records_;
    }

  private:
    // Closes and deletes a checkpoint file that is not this read's (or is damaged).
    void discardFile();
    void closeFiles();
    void append(const DocumentTable& docs, const SignatureMatrix& sigs,
                const DatasetRecord& dataset);
    // On the writing thread: takes the checksums of values_ (into record_ at `valuesSumAt`) and
    // of record_, writes values_ at `valuesAt` of the values' file and record_ at `at`, each
    // synced. False when the disk refused.
    bool writeRecord(off_t at, std::size_t valuesSumAt, off_t valuesAt);
    // Waits for the record being written; a write that failed is cut off, and its rows go into
    // the next record instead.
    void settle();
    std::string path_, key_;
    std::string valuesPath_, cacheKey_;  // the values' file, laid out as the cache of cacheKey_
    uint64_t valuesOffset_ = 0;          // where its values begin
    int valuesFd_ = -1;
    int hashes_ = 0;
    uint64_t everyBytes_ = 0;
    int fd_ = -1;
    bool enabled_ = false;
    uint64_t recordedRows_ = 0;  // rows already in the file
    uint64_t sinceLast_ = 0;     // input bytes since the last record
    uint64_t bytesRead_ = 0;
    ReadPosition next_;
    std::vector<Rejection> pending_;  // rejections since the last record
    int records_ = 0;
    // The record being written and synced on a thread of its own, so that the reading pipeline's
    // serial stage never waits for the disk (fdatasync of ~70 MB per 256 MiB of input).
    std::future<bool> writing_;
    std::string record_;                     // that record, then the next one: one buffer, reused
    std::vector<uint32_t> values_;           // its rows' values: one buffer, reused
    off_t writingAt_ = 0;                    // where that record starts in the file
    uint64_t writingFirstRow_ = 0;           // its first row
    std::vector<Rejection> writingPending_;  // its rejections
};

}  // namespace neardup
