#include "run_resume.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "commands.h"
#include "input_pin.h"
#include "project_store.h"
#include "run_lock.h"

namespace neardup::cli {

int prepareResume(const CLI::App& cmd, const std::string& project, std::vector<std::string>& inputs,
                  std::vector<std::string>& references, RunParams& params, int64_t& resumedRun) {
    if (!inputs.empty()) {
        fmt::print(
            stderr,
            "neardup run: --resume takes the inputs of the run it resumes; give no inputs\n");
        return kExitUsage;
    }
    // Options that change results belong to the resumed run.
    const std::set<std::string> resultGroups = {"Input", "Shingles and signatures",
                                                "LSH and comparison"};
    for (const CLI::Option* o : cmd.get_options()) {
        if (o->count() > 0 && resultGroups.contains(o->get_group())) {
            fmt::print(stderr,
                       "neardup run: --resume runs with the parameters of the run it resumes; {} "
                       "cannot be changed\n",
                       o->get_name());
            return kExitUsage;
        }
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(project, ec)) {
        fmt::print(stderr, "neardup run: --resume: no project {}\n", project);
        return kExitError;
    }
    ProjectStore store(project);
    const std::optional<ResumeRecord> rec = findResumable(store);
    if (!rec) {
        fmt::print(stderr,
                   "neardup run: nothing to resume in {} (no interrupted or failed run that was "
                   "not resumed yet)\n",
                   project);
        return kExitError;
    }
    // The dataset the unfinished run had read, when it got that far: its offsets are reused
    // only on the very files they came from.
    try {
        const RunResult unfinished = store.loadRun(rec->runId);
        const DatasetRecord dataset = store.loadDataset(unfinished.datasetId, nullptr);
        if (const std::string problem = pinProblem(dataset.files); !problem.empty()) {
            fmt::print(stderr, "neardup run: cannot resume run {}: {}\n", rec->runId, problem);
            return kExitError;
        }
    } catch (const StoreError&) {
        // No dataset row to check (a run that stopped before it had one).
    }
    RunParams resumed = rec->params;
    auto given = [&cmd](const char* name) { return cmd.get_option(name)->count() > 0; };
    if (given("--threads")) resumed.threads = params.threads;
    if (given("--backend")) resumed.backend = params.backend;
    if (given("--memory-budget")) resumed.memoryBudget = params.memoryBudget;
    if (given("--work-dir")) resumed.workDir = params.workDir;
    resumed.workers = params.workers;  // not recorded: the command line's, or the default
    resumed.maxRejected = params.maxRejected;
    resumed.devices = params.devices;
    params = std::move(resumed);
    inputs = rec->inputs;
    references = rec->references;
    resumedRun = rec->runId;
    fmt::print(stderr, "resuming run {} ({}: {}) with its {} input(s){} and parameters\n",
               rec->runId, rec->status, rec->error, inputs.size(),
               references.empty() ? "" : fmt::format(", {} reference(s)", references.size()));
    return kExitOk;
}

}  // namespace neardup::cli
