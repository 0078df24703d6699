// The deduplication run: read -> signatures -> buckets -> compare -> (verify) -> union ->
// export, recorded in the project. Front ends (CLI, workbench) drive it through this class and
// learn what happens through PipelineObserver; the core never prints. Inside, a short plan
// (run_plan.h) decides what comes from the project, then phase objects (run_phases.h) do the
// rest on one shared RunState (run_state.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.h"
#include "cancelled.h"
#include "exporter.h"
#include "pipeline_observer.h"
#include "project_store.h"
#include "run_result.h"
#include "run_time.h"

namespace neardup {

class Pipeline {
  public:
    Pipeline(ProjectStore& store, Backend& backend, PipelineObserver* observer = nullptr,
             const std::atomic<bool>* cancel = nullptr);

    // Runs on `inputs` (files or directories) and records the run in the project; writes the
    // requested outputs last. Reuses the project's signatures and pairs when it can. Throws
    // InputError, StoreError, Cancelled or std::runtime_error; a run that fails after it was
    // recorded is marked failed (or interrupted) in the project before the exception leaves.
    // The result's pairs are those of the run's stored pairs that can change its result when
    // the pairs exceeded the memory budget (core/run/pairs_aside.h), all of them otherwise;
    // counts.storedPairs counts all, and the project has every one.
    // `references`: files or directories of a reference (`--reference`), read before the
    // inputs; their documents are never removed nor written, and an input's near-duplicate in
    // them removes it. A file both in the reference and the inputs throws InputError.
    RunResult run(const std::vector<std::string>& inputs, const RunParams& params,
                  const ExportOptions& exports = {},
                  const std::vector<std::string>& references = {});

  private:
    ProjectStore& store_;
    Backend& backend_;
    PipelineObserver* observer_;
    const std::atomic<bool>* cancel_;
};

}  // namespace neardup
