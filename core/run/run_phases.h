// The phases of a run after the read (read_sign_phase.h has the read and signatures), each a
// small object working on the run's shared RunState in the order Pipeline::run gives them:
//   SaveDatasetPhase   the dataset and its signatures into the project (a new dataset's pairs
//                      compared and verified meanwhile, when the plan says so)
//   ReusePairsPhase    or BucketComparePhase: the candidate pairs, from an earlier run or
//                      computed (buckets and compare go band by band, so they are one object)
//   VerifyPhase        pairs judged by their exact Jaccard
//   ClusterPhase       union and the removal decisions
//   ExportPhase        the outputs, and the run recorded as finished
// Each reports its phases to the observer and records their timings in the run.
#pragma once

#include <cstdint>
#include <optional>

#include "exporter.h"
#include "run_plan.h"
#include "run_state.h"

namespace neardup {

class SaveDatasetPhase {
  public:
    SaveDatasetPhase(RunState& state, const RunPlan& plan) : s_(state), plan_(plan) {}
    // Saves state.dataset (unless the project has it already) and the signatures (unless they
    // were spilled); Ctrl-C rolls a dataset being saved back. A run that stops here is
    // recorded as failed or interrupted before the exception leaves.
    void run();

  private:
    void save();
    bool keepCheckpointValuesAsCache();
    bool keepSpilledRowsAsCache();
    RunState& s_;
    const RunPlan& plan_;
};

class ReusePairsPhase {
  public:
    ReusePairsPhase(RunState& state, int64_t earlierRun) : s_(state), earlierRun_(earlierRun) {}
    // The earlier run's pairs, band statistics and candidate count become this run's.
    void run();

  private:
    RunState& s_;
    int64_t earlierRun_;
};

class BucketComparePhase {
  public:
    explicit BucketComparePhase(RunState& state) : s_(state) {}
    // Buckets every band of the signatures (in memory or spilled) with state.run.resolvedBuckets
    // and compares the documents sharing a bucket; state.pairs gets the pairs in canonical order.
    void run();

  private:
    void inMemory();
    void spilled();
    int minMatches() const;
    RunState& s_;
};

class VerifyPhase {
  public:
    // `heldBytes` of signatures are still in memory next to it. `storedDataset`: the dataset
    // whose earlier runs' verdicts it may take, the run's own (state.datasetId) unless that
    // dataset is new and being saved on another thread meanwhile: then it has no earlier run,
    // and its id is that thread's to write.
    VerifyPhase(RunState& state, uint64_t heldBytes, std::optional<int64_t> storedDataset)
        : s_(state), heldBytes_(heldBytes), storedDataset_(storedDataset) {}
    // Borderline (or every) pair judged by its exact Jaccard, re-reading its documents.
    void run();

  private:
    RunState& s_;
    uint64_t heldBytes_;
    std::optional<int64_t> storedDataset_;
};

class ClusterPhase {
  public:
    explicit ClusterPhase(RunState& state) : s_(state) {}
    // Duplicate pairs joined into clusters; which documents are kept and removed. The pairs
    // move into state.run, whose line accounting is checked.
    void run();

  private:
    RunState& s_;
};

class ExportPhase {
  public:
    explicit ExportPhase(RunState& state) : s_(state) {}
    // Writes the requested outputs (with the dataset's audit decisions applied) under temporary
    // names, records the run as finished, then renames them into place.
    void run();

  private:
    // The run's final fields and the summary, between its details and its final commit.
    // `audited`: the run with the dataset's audit decisions applied, null without decisions.
    void finishRecordedRun(RunResult* audited, PendingOutputs& pending);
    RunState& s_;
};

}  // namespace neardup
