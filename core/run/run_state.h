// What the phases of one run share: the project, the backend, the parameters, the run's result
// so far and the data passed from phase to phase (inputs, dataset, document table, signatures,
// pairs). Pipeline::run (pipeline.cpp) owns it; each phase (run_phases.h) reads and fills it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "checkpoint.h"
#include "document_table.h"
#include "elapsed.h"
#include "exporter.h"
#include "pair_runs.h"
#include "params.h"
#include "phase_reporter.h"
#include "project_store.h"
#include "run_lock.h"
#include "run_result.h"
#include "signature_file.h"
#include "signature_memory.h"
#include "signatures.h"
#include "spill_files.h"

namespace neardup {

struct RunState {
    // Starts the run's result: its memory budget, parameters, backend, threads and start time.
    RunState(ProjectStore& store, Backend& backend, PipelineObserver* observer,
             const std::atomic<bool>* cancel, const RunParams& params,
             const ExportOptions& exports);

    // The buckets per band for `n` documents (0: exact keys, no modulus).
    uint64_t resolveBuckets(std::size_t n) const;

    ProjectStore& store;
    Backend& backend;
    // The run's own copy: a run whose b x r were chosen takes an earlier run's b x r with its
    // pairs (run_plan.cpp).
    RunParams params;
    const ExportOptions& exports;
    PhaseReporter report;
    RunResult run;
    std::string cacheKey;  // of the signatures this run computes (signatureCacheKey)
    // Declared before the signatures' memory, which holds spill files inside it: the directory
    // goes last, however the run ends.
    WorkDir work;
    SignatureMemory memory;
    // Held from the output checks until the run ends: tells other processes it is live, and
    // after a kill, that it is not (run_lock.h). Destroyed first.
    std::optional<RunLock> lock;
    // Where the read leaves the rows signed so far, for a run killed while reading.
    std::optional<ReadCheckpoint> checkpoint;

    std::vector<InputFile> files;  // the inputs, with their fingerprints once known
    // How many of `files`, at their start, are the reference (`--reference`).
    uint32_t referenceFiles = 0;
    // The reference read and signed by an earlier run: a dataset of the project made of exactly
    // the reference's files, its documents and cached signatures (run_plan.h: lookUpProject).
    // The read then starts at the first input file (ReadSignPhase).
    struct ReferenceSeed {
        int64_t datasetId = 0;
        DatasetRecord dataset;
        DocumentTable docs;
        SignatureMatrix sigs;
        // Its signatures' cache file, when they exceed the budget beside its documents: `sigs`
        // then holds their digests and flags only, and the run streams the rows from the file
        // (SignatureMemory::spillCachedPrefix) instead of loading them.
        std::optional<sigfile::OpenedRows> cachedRows;
        // The lines its read rejected, in input order, as that read added them to its log
        // (replayedRejections): this run's log starts with them.
        std::vector<Rejection> rejections;
    };
    std::optional<ReferenceSeed> referenceSeed;
    // The dataset the reference's documents and signatures came from (referenceSeed): its
    // documents are this run's first ones, so its runs' exact verdicts serve the pairs among
    // them (VerifyPhase).
    std::optional<int64_t> referenceDatasetId;
    std::optional<int64_t> datasetId;
    DatasetRecord dataset;
    DocumentTable docs;
    SignatureMatrix sigs;
    // The cache file of the stored dataset's signatures, when they are streamed from it
    // (RunPlan::Signatures::StreamFromCache): `sigs` then holds their digests and flags only.
    std::optional<sigfile::OpenedRows> cachedRows;
    std::vector<ScoredPair> pairs;
    // Stored pairs kept on disk because they exceed the budget and cannot change the run
    // (pairs_aside.h); null when every stored pair is in `pairs`.
    std::unique_ptr<PairRuns> pairsAside;
    bool pairsReady = false;  // compared and verified while a new dataset was being saved
};

}  // namespace neardup
