// The project file (.ndw): a SQLite database holding the dataset, every run and its results.
// Large binary data (signatures) lives in a sidecar directory next to it, recorded in the file.
// See docs/reference/project-format.md for the schema.
//
// The store is the project's data-access layer: every read and write of the file goes through
// it (or through the workbench's read-only ProjectQueries), each table through one row mapper
// (store_rows.h). Reads are const and have no side effect; recovering the runs of processes
// that died is an explicit call, recoverStaleRuns(), made by whoever opens a project to write
// it (a run, resume, export, relocate, the workbench).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "audit_rows.h"
#include "decisions.h"
#include "document_table.h"
#include "jsonl_reader.h"
#include "run_result.h"
#include "signatures.h"
#include "sorted_pair_blocks.h"

namespace neardup {

class StoreError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A run asked for by a number the project does not hold (a mistyped `--run N`): the request is
// wrong, not the project. "<project> holds no run N", the same words for every command.
class NoSuchRun : public StoreError {
  public:
    NoSuchRun(const std::string& project, int64_t runId)
        : StoreError(project + " holds no run " + std::to_string(runId)) {}
};

struct DatasetRecord {
    int64_t id = 0;
    std::vector<InputFile> files;
    // The first referenceFiles files are the run's reference (`--reference`): their documents
    // are never removed nor written (DocumentTable::referenceDocuments).
    uint32_t referenceFiles = 0;
    // The dataset whose documents are this one's first baseDocuments, by the same index (a
    // reference signed before, DocumentTable::referenceDocuments): their rows are read from
    // there instead of being stored again. None: every document row is this dataset's own.
    std::optional<int64_t> baseDataset;
    uint64_t baseDocuments = 0;
    ReaderOptions reader;
    uint64_t linesRead = 0, blankLines = 0, inputBytes = 0;
    std::vector<RejectionCount> rejections;
    std::vector<Rejection> rejectionSamples;
    // Every rejected line; saveDataset keeps them in the sidecar directory (rejected_lines.h),
    // loadDataset leaves this empty.
    std::vector<RejectedLine> rejectedLines;
};

// An input file of a dataset as stored (its path as recorded), with its place.
struct DatasetFile {
    int64_t datasetId = 0;
    int64_t index = 0;  // position among the dataset's files
    InputFile file;
};

// A run's row: the run without its details (parameters, counts, status), and the two columns
// derived from its parameters when it was written, as stored.
struct RunRow {
    RunResult run;
    std::string paramsJson;
    std::string signatureKey;  // the key its signatures were cached under
};

struct RunSummary {  // one row of the run history
    int64_t runId = 0;
    int64_t datasetId = 0;
    std::string startedAt, finishedAt, status, backend;
    int threads = 0;
    std::string paramsJson;
    RunCounts counts;
    std::vector<PhaseTiming> phases;
};

class ProjectStore {
  public:
    enum class Mode {
        ReadWrite,  // created when missing, upgraded when older
        ReadOnly,   // never written (no write lock, no upgrade): a project of another schema
                    // version, or none, throws StoreError
    };
    // Opens the project at `path` (":memory:" for tests). Throws StoreError.
    explicit ProjectStore(const std::string& path, Mode mode = Mode::ReadWrite);
    ~ProjectStore();
    ProjectStore(const ProjectStore&) = delete;
    ProjectStore& operator=(const ProjectStore&) = delete;

    const std::string& path() const;
    // Why a run could not write the project (a read-only file or folder; the rollback journal
    // is created next to the file; a refused sidecar folder, sidecar.h), or "": checked before
    // a run does any work.
    std::string writeProblem() const;

    // Recovers the runs of processes that died (stopped_runs.h): stale "running" rows become
    // "interrupted" with a resume record, leftovers of dead processes go. Does nothing on a
    // read-only store. Called by those that open a project to write it. Throws SidecarRefused
    // (sidecar.h) when the sidecar folder is a link, not a folder or another user's, and
    // touches nothing then; any other failure is ignored (the project is left as it is).
    void recoverStaleRuns();

    // The dataset read from exactly these files (path, size, mtime) with these reader options,
    // the first `referenceFiles` of them as its reference.
    std::optional<int64_t> findDataset(const std::vector<InputFile>& files,
                                       const ReaderOptions& reader,
                                       uint32_t referenceFiles = 0) const;
    int64_t saveDataset(const DatasetRecord& dataset, const DocumentTable& docs);
    DatasetRecord loadDataset(int64_t datasetId, DocumentTable* docs) const;
    // Every input file of every dataset, paths as stored (relocate.h), and writing back the
    // location and identity (path, mtime, ctime, device, inode) of some of them, in one
    // transaction.
    std::vector<DatasetFile> datasetFiles() const;
    // Gives each pair of `pairs` (sorted, as a run's pairs are) that `wanted` selects and that
    // has no exact value yet the exact Jaccard verdict a finished run of dataset `datasetId`
    // stored for it, from runs whose shingle sets are made as `like` makes them (normalization,
    // shingle kind and size): the verdict a run with other bands, rows or threshold would
    // compute. Each run's stored verdicts are merged with `pairs` in key order, newest run first,
    // until no wanted pair is left, without holding them in memory. Returns how many were given.
    std::size_t fillStoredVerdicts(int64_t datasetId, const SignatureParams& like,
                                   std::vector<ScoredPair>& pairs,
                                   const std::function<bool(const ScoredPair&)>& wanted) const;
    // The key of the project's content pins (core/io/content_pin.h), which every input read
    // into it is pinned under.
    PinKey pinKey() const;
    void updateDatasetFiles(const std::vector<DatasetFile>& files);

    // Signatures cached for (dataset, SignatureParams cache key), or nothing when missing,
    // unreadable or of a different shape.
    bool loadSignatures(int64_t datasetId, const std::string& cacheKey, SignatureMatrix& out) const;
    void saveSignatures(int64_t datasetId, const std::string& cacheKey,
                        const SignatureMatrix& signatures);
    // The same for signatures whose values are not in memory (a run that spilled): `shape`
    // holds the digests and eligibility flags, `rows(first, count, out)` reads the values a
    // block at a time; the same file as saveSignatures would write. False, with nothing written,
    // for an in-memory project, whose cache is one BLOB of the whole matrix.
    bool saveSignatureRows(int64_t datasetId, const std::string& cacheKey,
                           const SignatureMatrix& shape,
                           const std::function<void(uint64_t, std::size_t, uint32_t*)>& rows);
    // The same for a cache file the caller has written whole elsewhere (a spilled run's rows'
    // file, completed by sigfile::completeInPlace): `link(path)` gives it the cache's name
    // in the sidecar directory, and the cache is recorded when it did. False, with nothing
    // recorded, when `link` could not or the project is in memory. With `sharedRows`, the file
    // leaves the dataset's first sharedRows rows (a hole in it) to its base's cache under the
    // same key, which must exist (StoreError, before `link`, otherwise).
    bool adoptSignatureFile(int64_t datasetId, const std::string& cacheKey,
                            const SignatureMatrix& shape,
                            const std::function<bool(const std::string& path)>& link,
                            uint64_t sharedRows = 0);

    // A finished run on this dataset whose stored pairs can serve `params` (same signature
    // cache key, bands, rows, key scheme and bucket count, store floor <= the threshold; the
    // verify mode may differ, the caller verifies what it needs).
    // The finished runs on this dataset whose pairs would serve `params` but for bands and rows
    // (any b x r), newest first, with their b x r: the candidates when b x r were chosen.
    struct PairsSource {
        int64_t runId = 0;
        int bands = 0;
        int rows = 0;
    };
    std::vector<PairsSource> pairSourcesAnyBandsRows(int64_t datasetId, const RunParams& params,
                                                     uint64_t resolvedBuckets) const;
    std::optional<int64_t> findReusablePairs(int64_t datasetId, const RunParams& params,
                                             uint64_t resolvedBuckets) const;
    std::vector<ScoredPair> loadPairs(int64_t runId) const;
    // The run's stored pairs in (a, b) order, one at a time, none held: for a run that reuses
    // them beyond its memory budget. Throws StoreError on a pair out of the dataset's range.
    void forEachPair(int64_t runId, const std::function<void(const ScoredPair&)>& visit) const;

    // Inserts a run in status "running" and returns its id.
    int64_t beginRun(const RunResult& run);
    // Writes everything of the run in one transaction and sets its final status. `pairsAside`:
    // stored pairs of the run that are not in run.pairs (a run whose pairs exceeded its memory
    // budget, core/run/pairs_aside.h), merged in as the pairs are written.
    void finishRun(const RunResult& run, const SortedPairBlocks* pairsAside = nullptr);
    // finishRun in two steps, for a caller with other work meanwhile (the export, on another
    // thread): the details that are final once the run is clustered (bands, pairs, clusters and
    // their members: most of the rows) are written in a transaction left open, which
    // finishRun(run) completes with the run's row and phases and commits. No other call on the
    // store may come in between, but abandonRunDetails(), which rolls the details back.
    void writeRunDetails(const RunResult& run, const SortedPairBlocks* pairsAside = nullptr);
    void abandonRunDetails();
    // Marks a run failed or interrupted, with a message.
    void markRun(int64_t runId, const std::string& status, const std::string& error);

    // Every run's id, status and start time, and the file names of the signature caches in
    // the sidecar directory: what recoverStaleRuns() (stopped_runs.h) checks files against.
    struct RunState {
        int64_t id = 0;
        std::string status, startedAt;
    };
    std::vector<RunState> runStates() const;
    std::vector<std::string> signatureCacheFiles() const;
    // Called with every 4096th document row while saveDataset writes them (and before it
    // writes anything): an exception it throws rolls the dataset back. Empty: never called.
    void setInterruptCheck(std::function<void()> check);
    // Threads loadDataset may read a large dataset's rows with (0, the default: every core).
    void setThreads(int threads);

    std::vector<RunSummary> listRuns() const;
    std::optional<int64_t> latestRun(const std::string& status = "ok") const;
    // The run's row alone (no pairs, clusters or phases); StoreError when there is none.
    RunRow runRow(int64_t runId) const;
    // Everything saved by finishRun, including pairs and clusters, with the dataset's audit
    // decisions applied to the clustering (core/project/decisions.h): what every export writes.
    // With StoredPairs::Witnesses, run.pairs holds only the pairs the outputs name (each removed
    // document's witness pair: clustering.h, witnessPairKeys), so that exporting a run with
    // millions of stored pairs does not hold them all; with StoredPairs::Duplicates, only the
    // duplicate pairs at the run's threshold (what `neardup report` samples). When the dataset
    // has decisions, which cluster the run again, its duplicate pairs are read to cluster it and
    // the witnesses of that clustering then picked out as above; never every pair.
    enum class StoredPairs { All, Duplicates, Witnesses };
    RunResult loadRun(int64_t runId, StoredPairs pairs = StoredPairs::All) const;
    // The run re-clustered at `threshold` with the dataset's decisions (recluster_at.h: what
    // the workbench exports at its threshold slider's value). run.pairs holds the witness pairs
    // at `threshold` only: the duplicate pairs at `threshold` are read to cluster, then the
    // pairs the outputs name.
    RunResult loadRunAt(int64_t runId, double threshold) const;
    // The run's row, phases and band statistics only: no pairs, clusters or decisions.
    RunResult loadRunOutline(int64_t runId) const;
    // The run's per-worker phase timings (worker_phases), by phase then worker; empty for a
    // single-worker run.
    std::vector<WorkerTiming> loadWorkerPhases(int64_t runId) const;

    // Audit decisions of a dataset (decisions.h). recordDecision checks the documents against
    // the dataset (StoreError otherwise) and stores a not_duplicate pair with a < b;
    // undoDecision deletes decision `decisionId`, or the latest one when 0, and returns it.
    int64_t recordDecision(int64_t datasetId, DecisionKind kind, uint32_t a, uint32_t b = 0);
    std::vector<Decision> decisions(int64_t datasetId) const;
    std::optional<Decision> undoDecision(int64_t datasetId, int64_t decisionId = 0);

    // Sampled audits of a run (core/audit/audit_sample.h; project_store_audit.cpp).
    // createAuditSample draws up to n of the run's duplicate pairs at `threshold` (the run's own
    // when none: the workbench passes its working threshold, the slider's) from its stored
    // pairs, stores the sample with that threshold and returns its id; StoreError when the run
    // did not finish, has no duplicate pair at the threshold, or the threshold is outside
    // [its store floor, 1] (pairs below the floor were never stored).
    int64_t createAuditSample(int64_t runId, uint64_t n, uint64_t seed,
                              std::optional<double> threshold = std::nullopt,
                              int strata = kDefaultAuditStrata);
    // Sets (or, with none, clears) the verdict on pair `ordinal` of a sample.
    void setAuditVerdict(int64_t sampleId, int ordinal, std::optional<AuditVerdict> verdict);
    // Turns the verdicts of a sample into decisions of its run's dataset, in one transaction: a
    // "not a duplicate" verdict becomes a not_duplicate decision on the pair (it cuts the pair
    // in every export), a "duplicate" one a confirmed_duplicate decision. A pair that already
    // has a pair decision (either kind, made in the comparison view or by an earlier apply) is
    // skipped, never overwritten; unsure and unjudged pairs are left alone.
    struct AppliedVerdicts {
        uint64_t notDuplicate = 0;  // not_duplicate decisions recorded
        uint64_t confirmed = 0;     // confirmed_duplicate decisions recorded
        uint64_t skipped = 0;       // judged pairs that already had a decision
        uint64_t conflicting = 0;   // of those, whose decision says otherwise than the verdict
    };
    AppliedVerdicts applyAuditVerdicts(int64_t sampleId);
    std::vector<int64_t> auditSamples(int64_t runId) const;  // oldest first
    std::optional<StoredAudit> auditSample(int64_t sampleId) const;

  private:
    // loadRun's reads, in the snapshot it opens; without `pairs`, the run's own rows and
    // clusters only (no pair read, no decision applied), for loadRunAt.
    RunResult loadRunRows(int64_t runId, std::optional<StoredPairs> pairs) const;

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace neardup
