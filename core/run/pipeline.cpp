// Pipeline::run: the run as a short sequence — start the run, look the inputs up in the project
// and plan (run_plan.h), then the phases (read_sign_phase.h, run_phases.h) on one RunState.
#include "pipeline.h"

#include <exception>
#include <optional>
#include <string>

#include "input_pin.h"
#include "input_warnings.h"
#include "memory_budget.h"
#include "output_check.h"
#include "project_protected_files.h"
#include "read_sign_phase.h"
#include "run_accounting.h"
#include "run_failures.h"
#include "run_phases.h"
#include "run_plan.h"
#include "run_state.h"
#include "store_memory.h"

namespace neardup {

namespace {

// The inputs as files; a run whose inputs cannot be listed is recorded before the error leaves
// (unreadable ones fail in input order).
// `names` gets each file's name for --out-dir.
std::vector<InputFile> listInputs(RunState& s, const std::vector<std::string>& inputs,
                                  std::vector<std::string>& names) {
    try {
        return expandInputs(inputs, OnError::Skip, names);
    } catch (...) {
        recordUnfinishedRun(s.store, s.run, std::nullopt, {}, 0, std::current_exception());
        throw;
    }
}

// The reference's files ahead of the inputs' (their documents then come first, a prefix of the
// document table: DocumentTable::referenceDocuments), each marked as the reference's, with a
// name for --out-dir that no shard uses. A file in both is an error that names it: whether its
// documents are to be protected or deduplicated cannot be guessed.
void putReferenceFirst(RunState& s, const std::vector<std::string>& references,
                       std::vector<std::string>& shardNames) {
    if (references.empty()) return;
    std::vector<std::string> names;
    std::vector<InputFile> files = listInputs(s, references, names);
    if (const std::string problem = sharedInputProblem(s.files, files); !problem.empty()) {
        const InputError e(problem);
        recordUnfinishedRun(s.store, s.run, std::nullopt, {}, 0, std::make_exception_ptr(e));
        throw e;
    }
    for (InputFile& f : files)
        f.reference = true;
    s.referenceFiles = static_cast<uint32_t>(files.size());
    files.insert(files.end(), s.files.begin(), s.files.end());
    s.files = std::move(files);
    names.insert(names.end(), shardNames.begin(), shardNames.end());
    shardNames = std::move(names);
}

// Inputs by absolute path: a resume record works from any directory.
std::vector<std::string> absolutePaths(const std::vector<std::string>& inputs) {
    std::vector<std::string> paths;
    for (const std::string& input : inputs)
        paths.push_back(canonicalPath(input));
    return paths;
}

// The read and signatures phases reused: the project's cached signatures are in the state, or
// streamed from their cache file into the spill when they exceed the budget (unless an earlier
// run's pairs are taken: then no band is bucketed, and the components' diameters read the cache
// as after any run). A budget below the documents' floor is refused here as a read would refuse
// it.
void takeCachedSignatures(RunState& s, const RunPlan& plan) {
    try {
        s.memory.checkFloor(s.docs, 1.0);
        if (s.cachedRows && !plan.reusePairsOf) {
            sigfile::OpenedRows rows = std::move(*s.cachedRows);
            s.memory.spillCachedRows(std::move(rows), s.docs.size(), s.run);
        }
    } catch (...) {
        recordUnfinishedRun(s.store, s.run, s.datasetId, s.dataset, s.docs.size(),
                            std::current_exception());
        throw;
    }
    s.cachedRows.reset();
    s.run.signaturesReused = true;
    s.report.info("reusing the project's signatures for this dataset");
    s.report.finished(s.run, {"read", 0, s.docs.size(), s.dataset.inputBytes, true});
    s.report.finished(s.run, {"signatures", 0, s.docs.size(), s.dataset.inputBytes, true});
}

// The inputs read and signed into a fresh dataset record, then saved (SaveDatasetPhase); a run
// that stops while reading is recorded before the error leaves.
void readSignAndSave(RunState& s, const RunPlan& plan) {
    if (plan.signatures == RunPlan::Signatures::ReadBeyondBudget)
        s.report.info(
            "the project's signatures for this dataset exceed the memory budget; "
            "computing them again, out of core");
    s.dataset = DatasetRecord{};
    s.dataset.files = s.files;
    s.dataset.referenceFiles = s.referenceFiles;
    s.dataset.reader = s.params.reader;
    try {
        ReadSignPhase(s, plan.resumeRead).run();
    } catch (...) {
        recordUnfinishedRun(s.store, s.run, s.datasetId, s.dataset, s.docs.size(),
                            std::current_exception());
        throw;
    }
    s.docs.markReference(s.referenceFiles);
    // The reading stage's buffers are gone; give their pages back before the next phases.
    releaseFreedMemory();
    SaveDatasetPhase(s, plan).run();
    s.checkpoint->remove();     // the dataset and its signatures are in the project now
    s.files = s.dataset.files;  // with the fingerprints taken while reading
}

// The run's counts from its dataset and signatures.
void countDataset(RunState& s) {
    RunResult& run = s.run;
    run.datasetId = *s.datasetId;
    run.rejections = s.dataset.rejections;
    RunCounts& c = run.counts;
    c.linesRead = s.dataset.linesRead;
    c.blankLines = s.dataset.blankLines;
    c.inputBytes = s.dataset.inputBytes;
    c.documents = s.docs.size();
    for (const auto& r : s.dataset.rejections)
        c.rejected += r.count;
    for (const uint8_t e : s.sigs.eligible)
        c.shortDocuments += e ? 0 : 1;
}

// Nothing to deduplicate, or more rejected than the user accepts: the run fails before any
// output is written, saying why line by line.
void refuseUnusableInput(const RunState& s) {
    const RunCounts& c = s.run.counts;
    if (s.docs.size() == 0) throw InputError("no documents in the input: " + accountingText(s.run));
    if (const uint64_t lines = c.documents + c.rejected;
        s.params.maxRejected < 1.0 && lines > 0 &&
        static_cast<double>(c.rejected) > s.params.maxRejected * static_cast<double>(lines))
        throw InputError("too many rejected lines: " + accountingText(s.run) +
                         "; more than --max-rejected " + std::to_string(s.params.maxRejected));
}

// A field given that no document has, and bands and rows that miss most pairs, are said before
// the comparison; under --on-error fail an absent field stops the run there.
void checkFields(RunState& s) {
    const FieldCounts fields = countFields(s.docs, s.files, s.run.threads);
    if (std::string problem = absentFieldProblem(s.params, fields); !problem.empty())
        throw InputError(problem);
    s.run.counts.fileLineIds = fields.fileLineIds;
    s.run.warnings = fieldWarnings(s.params, fields);
    for (const std::string& warning : s.run.warnings)
        s.report.info("warning: " + warning);
}

// Ids several documents share: hashed once the signatures are freed, so that the hashes' 16
// bytes a document never add to the run's peak.
void warnOfDuplicateIds(RunState& s) {
    const DuplicateIds duplicates = countDuplicateIds(s.docs, s.run.threads);
    s.run.counts.duplicateIds = duplicates.count;
    if (std::string warning = duplicateIdWarning(s.docs, s.files, duplicates); !warning.empty()) {
        s.report.info("warning: " + warning);
        s.run.warnings.push_back(std::move(warning));
    }
}

// The candidate pairs (reused or compared) and their verification, unless they were found
// while the dataset was being saved; the signatures are freed once nothing needs them.
void findPairs(RunState& s, const RunPlan& plan) {
    if (s.pairsReady) {
        s.sigs = SignatureMatrix{};
        s.memory.releaseSpilledKeys();
        releaseFreedMemory();
        return;
    }
    if (plan.reusePairsOf)
        ReusePairsPhase(s, *plan.reusePairsOf).run();
    else
        BucketComparePhase(s).run();
    // Nothing after this point reads signatures but the measurement of the largest components'
    // diameters at the end (ExportPhase), which reads a spilled run's rows from its spill file.
    s.sigs = SignatureMatrix{};
    s.memory.releaseSpilledKeys();
    releaseFreedMemory();
    if (plan.verify) VerifyPhase(s, 0, s.datasetId).run();
}

}  // namespace

Pipeline::Pipeline(ProjectStore& store, Backend& backend, PipelineObserver* observer,
                   const std::atomic<bool>* cancel)
    : store_(store), backend_(backend), observer_(observer), cancel_(cancel) {}

RunResult Pipeline::run(const std::vector<std::string>& inputs, const RunParams& params,
                        const ExportOptions& exports, const std::vector<std::string>& references) {
    if (const std::string problem = validate(params); !problem.empty())
        throw std::invalid_argument(problem);
    // A project the run cannot write is found now, not after the corpus was read and signed.
    if (const std::string problem = store_.writeProblem(); !problem.empty())
        throw StoreError(problem);
    // The outputs with the names of --out-dir's shards, as the inputs were given.
    ExportOptions outputs = exports;
    RunState s(store_, backend_, observer_, cancel_, params, outputs);
    // SQLite's page cache is part of the budget, and memory freed goes back to the system.
    const StoreMemoryLimit storeMemory(s.memory.storeCacheBytes());
    returnLargeBlocksWhenFreed();
    s.files = listInputs(s, inputs, outputs.shardNames);
    putReferenceFirst(s, references, outputs.shardNames);
    // Each input is pinned under the project's key while it is read (content_pin.h).
    const PinKey pinKey = store_.pinKey();
    for (InputFile& f : s.files)
        f.pinKey = pinKey;
    // Outputs are checked against the inputs, the project and the inputs of its other datasets
    // before any work (and before the run is recorded): nothing the user needs is overwritten.
    if (const std::string problem = outputProblem(outputs, s.files, protectedFiles(store_));
        !problem.empty())
        throw std::runtime_error(problem);
    s.lock.emplace(store_, absolutePaths(inputs), params, s.run.startedAt,
                   absolutePaths(references));

    const RunPlan plan = planRun(lookUpProject(s), params, s.run.threads);
    if (plan.readsInputs())
        readSignAndSave(s, plan);
    else
        takeCachedSignatures(s, plan);
    countDataset(s);
    s.run.resolvedBuckets = s.resolveBuckets(s.docs.size());
    s.run.runId = s.lock->beginRun(s.run);
    try {
        refuseUnusableInput(s);
        checkFields(s);
        findPairs(s, plan);
        warnOfDuplicateIds(s);
        s.report.checkCancel();
        s.run.counts.storedPairs = s.pairs.size() + (s.pairsAside ? s.pairsAside->size() : 0);
        ClusterPhase(s).run();
        ExportPhase(s).run();
    } catch (const Cancelled&) {
        store_.markRun(s.run.runId, "interrupted", stopReason());
        throw;
    } catch (const std::exception& e) {
        store_.markRun(s.run.runId, "failed", e.what());
        throw;
    }
    return std::move(s.run);
}

}  // namespace neardup
