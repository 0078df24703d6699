// `neardup recluster`: a stored run re-clustered at another threshold from its stored pairs,
// recorded as a new run.
#include <fmt/format.h>

#include "commands.h"
#include "output_options.h"
#include "recluster.h"
#include "run_options.h"

namespace neardup::cli {

// `neardup recluster`: a stored run re-clustered at another threshold and saved as a new run
// from its stored pairs (core/run/recluster.h), with the run's parameters otherwise.
Command addReclusterCommand(CLI::App& app) {
    auto opt = std::make_shared<RunOptions>();
    auto run = std::make_shared<int64_t>(0);
    auto threshold = std::make_shared<double>(0);
    CLI::App* cmd = app.add_subcommand(
        "recluster",
        "Re-cluster a stored run at another threshold from its stored pairs (no comparing) and "
        "record the result as a new run");
    addExistingProjectOption(*cmd, opt->project);
    cmd->add_option("--run", *run, "The run to re-cluster")->required();
    cmd->add_option("-t,--threshold", *threshold,
                    "The new Jaccard threshold, between the run's store floor and 1")
        ->required();
    cmd->add_option("-j,--threads", opt->params.threads, "Threads (0 = all cores)")
        ->capture_default_str();
    cmd->add_flag("-q,--quiet", opt->quiet, "No progress and no summary on stderr");
    addOutputOptions(*cmd, opt->outputs);
    return [opt, run, threshold, cmd]() -> int {
        RunRequest request;
        try {
            request = reclusterRequest(opt->project, *run, *threshold);
        } catch (const ReclusterRefused& e) {
            fmt::print(stderr, "neardup recluster: {}\n", e.what());
            return kExitUsage;
        } catch (const std::exception& e) {
            fmt::print(stderr, "neardup recluster: {}\n", e.what());
            return kExitError;
        }
        const int threads = opt->params.threads;
        opt->params = request.params;
        opt->params.threads = threads;
        opt->inputs = request.inputs;
        opt->references = request.references;
        return executeRunCommand(*opt, *cmd);
    };
}

}  // namespace neardup::cli
