// The one way every front end (the CLI, the workbench, rank 0 of an MPI job) starts a run:
// check the request, choose the backend, open the project, run the pipeline, and close the
// books of a resumed run. What differs between front ends comes in through RunHooks.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend_factory.h"
#include "exporter.h"
#include "pipeline.h"

namespace neardup {

struct RunRequest {
    std::string project;              // the project file, created when missing
    std::vector<std::string> inputs;  // files or directories, as given
    // Files or directories whose documents the inputs are deduplicated against: never removed,
    // never written (`--reference`).
    std::vector<std::string> references;
    // What the run finds and how it is executed (backend, threads, workers, devices, memory
    // budget, work directory).
    RunParams params;
    ExportOptions outputs;
    int64_t resumes = 0;  // the unfinished run this one runs again (0: none)
};

// Why a request cannot run, before anything starts.
struct RunProblem {
    enum class Kind { None, Parameters, Inputs, Outputs };
    Kind kind = Kind::None;
    std::string message;  // names the offending parameter, input or output file
    explicit operator bool() const { return kind != Kind::None; }
};

// Invalid parameters first, then outputs that would overwrite an input, the project or each
// other.
RunProblem checkRun(const RunRequest& request);

// What executeRun throws for a request that checkRun refuses, before anything starts.
class RunRefused : public std::invalid_argument {
  public:
    explicit RunRefused(RunProblem problem)
        : std::invalid_argument(problem.message), problem_(std::move(problem)) {}
    const RunProblem& problem() const { return problem_; }

  private:
    RunProblem problem_;
};

struct RunHooks {
    PipelineObserver* observer = nullptr;
    const std::atomic<bool>* cancel = nullptr;
    // Told which backend was chosen and why (default: observer->info(reason)).
    std::function<void(const std::string& reason)> backendChosen;
    // Adjusts the backend options before the backend is built (MPI: the rank's GPU).
    std::function<void(BackendOptions&)> adjustBackend;
    // Wraps the backend built (MPI: rank 0's backend spreading calls over all ranks); may
    // rewrite the reason.
    std::function<std::unique_ptr<Backend>(std::unique_ptr<Backend>, std::string& reason)>
        wrapBackend;
    // After the run finished, while its backend still lives (MPI: collect per-rank totals).
    std::function<void(Backend&)> finished;
};

// Checks the request (throws RunRefused), chooses the
// backend, opens the project and runs the pipeline; after a resumed run finished, drops its
// resume record. Throws as Pipeline::run does, and BackendError.
RunResult executeRun(const RunRequest& request, const RunHooks& hooks = {});

}  // namespace neardup
