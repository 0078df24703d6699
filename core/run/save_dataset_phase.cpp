// Saving the dataset and its signatures into the project (SaveDatasetPhase, run_phases.h).
#include <future>
#include <string>

#include "memory_budget.h"
#include "run_failures.h"
#include "run_phases.h"
#include "signature_file.h"

namespace neardup {

void SaveDatasetPhase::run() {
    // With a second thread, a new dataset and its signatures are written into the project
    // while its buckets are compared and its pairs verified: those phases only read the
    // tables being saved, and the run's row waits for the dataset's id. On one thread the
    // project writes stay in sequence. A run that spilled saves its documents only (its
    // signatures are in the spill files, which the comparison reads) and compares meanwhile
    // too: the project's page cache is within the budget already (StoreMemoryLimit).
    // The "save dataset" phase is the time the run spends on it in sequence: all of it on one
    // thread, and what is left to wait for once the pairs are verified on two or more.
    std::future<void> saving;
    auto asPhase = [this](auto&& work) {
        s_.report.started("save dataset");
        const auto t0 = SteadyClock::now();
        work();
        s_.report.finished(s_.run, {"save dataset", secondsSince(t0), s_.docs.size(), 0, false});
    };
    try {
        if (plan_.compareWhileSaving) {
            const std::optional<int64_t> stored = s_.datasetId;  // before the saving thread's
            saving = std::async(std::launch::async, [this] { save(); });
            s_.run.resolvedBuckets = s_.resolveBuckets(s_.docs.size());
            BucketComparePhase(s_).run();
            if (plan_.verify) VerifyPhase(s_, capacityBytes(s_.sigs.values), stored).run();
            s_.report.checkCancel();
            s_.pairsReady = true;
            asPhase([&] { saving.get(); });
        } else {
            asPhase([this] { save(); });
        }
    } catch (...) {
        if (saving.valid()) saving.wait();  // its own failure, if any, is the lesser one
        recordUnfinishedRun(s_.store, s_.run, s_.datasetId, s_.dataset, s_.docs.size(),
                            std::current_exception());
        throw;
    }
}

// Ctrl-C rolls a dataset being saved back; the run is recorded as interrupted.
void SaveDatasetPhase::save() {
    const StoreInterruptScope interruptible(s_.store, [this] { s_.report.checkCancel(); });
    if (s_.datasetId) {
        s_.dataset.id = *s_.datasetId;
    } else {
        s_.dataset.id = s_.store.saveDataset(s_.dataset, s_.docs);
        s_.datasetId = s_.dataset.id;
    }
    try {
        const auto cachedWithoutCopy = [this](const char* what) {
            s_.report.info(std::string("signatures cached in the project: ") + what +
                           " became the cache, without a copy");
        };
        if (!s_.memory.spilled()) {
            if (keepCheckpointValuesAsCache())
                cachedWithoutCopy("the read checkpoint's values");
            else
                s_.store.saveSignatures(*s_.datasetId, s_.cacheKey, s_.sigs);
        } else if (keepSpilledRowsAsCache()) {
            cachedWithoutCopy("the rows' spill file");
        } else {
            // Copied from the rows' spill file a block at a time: the same cache file as a run
            // in memory writes, without the matrix in memory. A later run loads it when it
            // fits that run's budget (run_plan.h); the report and the workbench read its rows.
            const SignatureSpill& spill = s_.memory.spill();
            const bool cached = s_.store.saveSignatureRows(
                *s_.datasetId, s_.cacheKey, s_.sigs,
                [this, &spill](uint64_t first, std::size_t count, uint32_t* out) {
                    s_.report.checkCancel();
                    spill.readRange(first, count, out);
                });
            if (!cached)
                s_.report.info(
                    "signatures not cached in the project: they exceed the memory budget and an "
                    "in-memory project holds its cache whole");
        }
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        // The cache only spares a later run its reading: a full disk costs that, never
        // this run.
        s_.report.info(std::string("warning: signatures not cached in the project (") + e.what() +
                       "); a later run on these inputs reads them again");
    }
    s_.report.checkCancel();
}

// A read that left checkpoints has most values on disk already, laid out as the cache
// (ReadCheckpoint::keepValuesAs): that file becomes the cache. False when the read left none.
bool SaveDatasetPhase::keepCheckpointValuesAsCache() {
    return s_.checkpoint &&
           s_.store.adoptSignatureFile(
               *s_.datasetId, s_.cacheKey, s_.sigs, [this](const std::string& path) {
                   return s_.checkpoint->keepValuesAs(s_.cacheKey, s_.sigs, path);
               });
}

// The rows' spill file holds the values of the cache file in place (RunState gave the spill
// room for its header): completed (sigfile::completeInPlace), it is named as the cache, which
// spares writing (and reading back) the whole matrix once more. False where it cannot be
// named (the work directory on another file system, no anonymous files): the caller copies it
// then. The file stays the run's rows' file, read by the later phases, which never write to it
// again.
bool SaveDatasetPhase::keepSpilledRowsAsCache() {
    SignatureSpill& spill = s_.memory.spill();
    SpillFile* rows = spill.rowsFile();
    if (rows == nullptr) return false;  // the rows are a cache already
    SpillFile& file = *rows;
    // A reference streamed from its own cache left its rows' place empty. When this dataset
    // shares that reference's documents, the place stays a hole and the cache leaves those rows
    // to the reference's cache (no copy, no disk); otherwise they are copied in and the file
    // holds every row.
    const uint64_t given = spill.givenPrefix();
    const uint64_t shared =
        s_.dataset.baseDataset && given > 0 && given == s_.dataset.baseDocuments ? given : 0;
    return s_.store.adoptSignatureFile(
        *s_.datasetId, s_.cacheKey, s_.sigs,
        [&](const std::string& path) {
            s_.report.checkCancel();
            if (shared == 0)
                spill.fillGivenRows(sigfile::kRowBlock, [this] { s_.report.checkCancel(); });
            sigfile::completeInPlace(s_.cacheKey, s_.sigs,
                                     [&file](uint64_t at, const void* data, std::size_t bytes) {
                                         file.writeAt(at, data, bytes);
                                     });
            return file.linkAs(path);
        },
        shared);
}

}  // namespace neardup
