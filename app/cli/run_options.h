// The options of `neardup run`, in named groups (project and inputs, how inputs are read, what
// the run finds, how it is executed, its outputs), and their conversion into RunParams. Pure
// CLI11 wiring: the groups are added in this order, which is the order of `run --help`, the
// shell completions and the man page made from it.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "exporter.h"
#include "params.h"

namespace neardup::cli {

// What the command line gives; the enumerations as words until applyRunChoices.
struct RunOptions {
    std::vector<std::string> inputs;
    // --reference: files, folders or NearDup projects (their latest run's inputs) the inputs
    // are deduplicated against; --reference-run: a run of this project whose inputs are.
    std::vector<std::string> references;
    int64_t referenceRun = 0;
    std::string project;
    RunParams params;
    std::string shingle = "char", hash = "permute", sketch, bucketKey = "hash", buckets = "exact";
    std::string keep = "first", verify = "borderline", decide = "witness";
    std::string onError = "skip";
    bool keepCase = false, noNfc = false, keepWhitespace = false;
    ExportOptions outputs;
    bool quiet = false;
    bool resume = false;
    std::string memoryBudget;
    std::string maxLineBytes;
    // -b/-r when given; otherwise chosen from the threshold and hashes (chooseBandsRows).
    std::optional<int> bands, rows;
    // --store-floor when given; otherwise defaultStoreFloor() for the threshold and verification.
    std::optional<double> storeFloor;
    // The line that says which b x r the run uses, why, and its miss rate at the threshold.
    std::string bandsRowsNote;
};

// The inputs (positional) and -p/--project.
void addProjectOptions(CLI::App& cmd, RunOptions& opt);
// How input lines are read ("Input"), and how many rejected lines fail the run.
void addInputOptions(CLI::App& cmd, RunOptions& opt);
// What the run finds: shingles and signatures, LSH and comparison, the removal rule.
void addParameterOptions(CLI::App& cmd, RunOptions& opt);
// How the run is executed: threads, backend, workers, devices, memory, work directory, quiet,
// resume ("Execution").
void addExecutionOptions(CLI::App& cmd, RunOptions& opt);

// Turns the words of the options into opt.params; on a value CLI11 cannot check, says so on
// stderr and returns the exit code.
std::optional<int> applyRunChoices(RunOptions& opt);

// The run the options ask for, through the run service, with progress and the summary on
// stderr; a resumed run takes its inputs and parameters from the project. Returns the exit
// code. `neardup run` and `neardup recluster` both end here.
int executeRunCommand(RunOptions& opt, CLI::App& cmd);

}  // namespace neardup::cli
