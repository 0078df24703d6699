// What a run produces: counts, phase timings, bucket statistics, pairs and clusters. The
// pipeline fills it, the project store saves and loads it, exports read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "notable_components.h"
#include "params.h"

namespace neardup {

// A pair of documents (a < b, indices into the dataset) and their matching signature positions.
struct ScoredPair {
    uint32_t a = 0;
    uint32_t b = 0;
    uint32_t matches = 0;
    float exact = -1.0f;  // exact Jaccard when verified, -1 otherwise

    friend bool operator<(const ScoredPair& x, const ScoredPair& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    }
};

// Busy time of one worker of a backend that spreads work over several (MultiWorkerBackend), in
// one phase, as stored in the project's worker_phases table.
struct WorkerTiming {
    int worker = 0;
    std::string phase;   // signatures, buckets (band keys) or compare
    std::string label;   // the worker, e.g. "cuda:1 NVIDIA H100" or "cpu worker 2"
    double seconds = 0;  // time the worker spent computing
    uint64_t items = 0;  // documents (signatures), rows (buckets) or pairs decided (compare)
    uint64_t bytes = 0;  // symbol bytes signed (4 a symbol); 0 in the other phases
};

struct PhaseTiming {
    std::string name;     // read, signatures, buckets, compare, union, export
    double seconds = 0;   // wall-clock seconds attributed to the phase
    uint64_t items = 0;   // documents, bucket entries or pairs, depending on the phase
    uint64_t bytes = 0;   // input bytes, for the phases that consume them
    bool reused = false;  // taken from the project instead of computed
};

// Whether a phase of `seconds` shows its rates (MB/s, items/s): not below half a millisecond,
// where the time printed is 0.000 s and a rate is noise (a save that a second thread had
// finished during the comparison showed 277581452271 items/s). The CLI and the workbench's run
// monitor both ask this.
inline bool showsRates(double seconds) {
    constexpr double kShortestRated = 0.0005;
    return seconds >= kShortestRated;
}

struct RejectionCount {
    std::string reason;
    uint64_t count = 0;
    std::string firstFile;
    uint64_t firstLine = 0;
    // Why the first one could not be read, for the reasons about a file rather than a line
    // (unreadable_file, corrupt_input): "cannot read 'in.jsonl': Permission denied". Empty
    // otherwise, and for a dataset taken from a project.
    std::string firstDetail;
};

struct OutlierBucket {
    uint64_t key = 0;
    uint64_t size = 0;
    uint64_t comparisons = 0;  // size * (size - 1) / 2
};

struct BandStats {
    int band = 0;
    uint64_t buckets = 0;       // distinct keys among the band's entries
    uint64_t multiBuckets = 0;  // buckets with two or more members
    double meanSize = 0, stddevSize = 0;
    uint64_t maxSize = 0;
    uint64_t comparisons = 0;             // sum over buckets of size * (size - 1) / 2
    std::vector<uint64_t> histogram;      // histogram[i] = buckets with size in [2^i, 2^(i+1))
    uint64_t outlierCount = 0;            // buckets with size > mean + 2 sigma
    std::vector<OutlierBucket> outliers;  // the largest of them, at most kMaxOutliersStored
    static constexpr std::size_t kMaxOutliersStored = 100;
};

struct RunCounts {
    uint64_t linesRead = 0;
    uint64_t blankLines = 0;
    uint64_t rejected = 0;
    uint64_t documents = 0;
    uint64_t shortDocuments = 0;  // fewer symbols than the shingle size: never candidates
    uint64_t inputBytes = 0;
    uint64_t candidatePairs = 0;  // distinct pairs compared
    uint64_t storedPairs = 0;     // pairs at or above the store floor
    uint64_t duplicatePairs = 0;  // pairs at or above the threshold (after verification)
    uint64_t clusters = 0;        // clusters of two or more documents
    uint64_t kept = 0;
    uint64_t removed = 0;
    // Members the components rule removes although they form no duplicate pair with their
    // component's kept document: removals without a witness (core/lsh/clustering.h), counted
    // whatever rule the run decides by.
    uint64_t chainedRemovals = 0;
    // A run against a reference (`--reference`): the reference's documents, counted in
    // `documents` but neither kept nor removed (documents = referenceDocuments + kept +
    // removed), and the removals whose kept duplicate is a reference document.
    uint64_t referenceDocuments = 0;
    uint64_t removedByReference = 0;
    // The run's own documents whose id an earlier one has (ids are labels, not keys: filtering
    // an id list by such an id drops both), and those whose id is their "<file>:<line>" (the id
    // field missing, null or empty). Counted from the document table, not stored.
    uint64_t duplicateIds = 0;
    uint64_t fileLineIds = 0;
};

struct RunResult {
    int64_t runId = 0;
    int64_t datasetId = 0;
    RunParams params;
    std::string backend;  // description of the backend that ran
    int threads = 0;
    std::string startedAt, finishedAt;  // ISO 8601 UTC
    std::string status = "running";     // running, ok, failed, interrupted
    std::string error;
    uint64_t resolvedBuckets = 0;  // K actually used (0 = exact keys)
    bool signaturesReused = false;
    bool pairsReused = false;
    // A run against a reference took the reference's documents and signatures from the dataset
    // an earlier run read from exactly its files (not stored: the run's summary says so).
    bool referenceReused = false;
    // Memory: the budget the run used (resolved), whether signatures and band keys spilled to
    // disk, the bytes written to spill files, and the process's peak resident set at the end.
    uint64_t memoryBudget = 0;
    bool spilled = false;
    uint64_t spillBytes = 0;
    uint64_t peakRssBytes = 0;
    RunCounts counts;
    // What looks like a mistake in the inputs or parameters (core/output/input_warnings.h),
    // each a sentence naming the option; printed, written by --summary-json, not stored.
    std::vector<std::string> warnings;
    std::vector<PhaseTiming> phases;
    // Per-worker busy time per phase when the backend has several workers (GPUs, CPU workers).
    std::vector<WorkerTiming> workerPhases;
    std::vector<RejectionCount> rejections;
    std::vector<BandStats> bands;
    std::vector<ScoredPair> pairs;  // sorted by (a, b); every pair >= store floor
    // Clustering: clusterOf[doc] = cluster index or kNoCluster; clusters are numbered in the
    // order of their smallest member; representative[c] is cluster c's first member in keep
    // order, always kept (under the components rule the only kept member).
    static constexpr uint32_t kNoCluster = 0xFFFFFFFFu;
    std::vector<uint32_t> clusterOf;
    std::vector<uint32_t> representative;
    // removedFor[doc]: the kept document `doc` is removed for, kNoDocument when it is kept.
    // Under the witness rule that is its witness (a duplicate pair of it, kept, earlier in keep
    // order); under the components rule its cluster's representative. Empty means the
    // components rule over clusterOf and representative (results built by hand).
    static constexpr uint32_t kNoDocument = 0xFFFFFFFFu;
    std::vector<uint32_t> removedFor;
    // chained[doc] != 0 when the components rule removes doc although it forms no duplicate
    // pair with its cluster's representative (a removal without a witness). Filled by
    // clustering; empty for a run loaded from a project (core/lsh/clustering.h: witnessPair).
    std::vector<uint8_t> chained;
    // copyOf[doc]: for a document whose signature equals another's (the comparison stores such
    // copies' pairs with the group's first document only), that first document, whose pairs it
    // shares; kNoDocument otherwise. Empty when the run has no such copies.
    std::vector<uint32_t> copyOf;
    // Audit decisions (core/project/decisions.h): keepAll[c] != 0 when a "keep all" decision keeps
    // every member of cluster c (empty when none); how many recorded decisions shaped this
    // clustering.
    std::vector<uint8_t> keepAll;
    uint64_t decisionsApplied = 0;
    // The components the run names (largest, large, chains) with their diameters: measured at
    // the end of a run and by whoever writes a summary of a stored run (core/project's
    // notableComponents); not stored in the project.
    NotableComponents components;

    // A reference document (its number below counts.referenceDocuments): never removed,
    // never written to an output.
    bool reference(std::size_t doc) const { return doc < counts.referenceDocuments; }
    bool removed(std::size_t doc) const {
        if (reference(doc)) return false;
        const uint32_t c = clusterOf[doc];
        if (c == kNoCluster || (!keepAll.empty() && keepAll[c])) return false;
        return removedFor.empty() ? representative[c] != doc : removedFor[doc] != kNoDocument;
    }
};

}  // namespace neardup
