// `neardup run`: the whole pipeline on inputs, recorded in a project.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>

#include <fmt/format.h>

#include "backend_factory.h"
#include "cancelled.h"
#include "commands.h"
#include "component_chain.h"
#include "memory_budget.h"
#include "mpi_run.h"
#include "output_options.h"
#include "progress_printer.h"
#include "project_store.h"
#include "run_inputs.h"
#include "run_options.h"
#include "run_resume.h"
#include "run_service.h"

namespace neardup::cli {

namespace {

std::atomic<bool> gCancel{false};

// The first Ctrl-C or SIGTERM cancels the run cleanly, recorded with the signal (SIGTERM is
// rarely the user: a batch job's time limit, scancel); a second one exits at once (the project
// stays intact, as after kill -9).
extern "C" void onSignal(int signo) {
    if (!gCancel.load()) noteStopSignal(signo);
    if (gCancel.exchange(true)) ::_exit(kExitInterrupted);
}

// The human summary: on stderr, so that stdout carries nothing but an output named "-".
void printSummary(const RunResult& r) {
    const RunCounts& c = r.counts;
    double total = 0;
    for (const auto& p : r.phases)
        total += p.seconds;
    fmt::print(stderr,
               "run {}: {} documents, {} kept, {} removed in {} clusters; {} rejected, {} blank "
               "lines; {} candidate pairs, {} duplicate pairs; {:.2f} s on {}\n",
               r.runId, c.documents, c.kept, c.removed, c.clusters, c.rejected, c.blankLines,
               c.candidatePairs, c.duplicatePairs, total, r.backend);
    fmt::print(stderr,
               "  accounting: {} lines read = {} documents + {} rejected + {} blank; {} documents "
               "= {}{} kept + {} removed\n",
               c.linesRead, c.documents, c.rejected, c.blankLines, c.documents,
               c.referenceDocuments > 0 ? fmt::format("{} reference + ", c.referenceDocuments)
                                        : std::string(),
               c.kept, c.removed);
    if (c.referenceDocuments > 0)
        fmt::print(stderr,
                   "  reference: {} of the documents are the reference's (never removed nor "
                   "written); {} removed for a near-duplicate in the reference\n",
                   c.referenceDocuments, c.removedByReference);
    if (r.params.decide == DecideRule::Witness)
        fmt::print(stderr,
                   "  decided by witness: every removed document is a duplicate of a kept one; "
                   "the components rule would have made {} chained removal(s) without a "
                   "witness\n",
                   c.chainedRemovals);
    else
        fmt::print(stderr,
                   "  decided by components: {} chained removal(s) without a witness (documents "
                   "that are no duplicate of the document kept in their cluster)\n",
                   c.chainedRemovals);
    if (c.duplicateIds > 0)
        fmt::print(stderr,
                   "  duplicate ids: {} (documents whose id an earlier document of the run has; "
                   "the id lists hold each of them)\n",
                   c.duplicateIds);
    for (const auto& rej : r.rejections)
        fmt::print(stderr, "  rejected {} line(s): {} (first at {}:{}{}{})\n", rej.count,
                   rej.reason, rej.firstFile, rej.firstLine, rej.firstDetail.empty() ? "" : ": ",
                   rej.firstDetail);
    if (r.spilled)
        fmt::print(
            stderr, "  out of core: {} written to spill files (memory budget {}, peak RSS {})\n",
            formatBytes(r.spillBytes), formatBytes(r.memoryBudget), formatBytes(r.peakRssBytes));
}

// The largest components, and every one of kLargeComponent members or more, with their
// diameters (component_chain.h), so that a chain shows without opening the workbench: the list
// the run measured at its end (RunResult::components), the one --summary-json writes. A run whose
// signatures were not cached (it spilled) lists sizes only.
void printComponents(const std::string& project, const RunResult& r) {
    if (r.representative.empty() || !r.components.measured) return;
    const std::vector<ComponentDiameter>& listed = r.components.components;
    constexpr std::size_t kShown = 5;
    std::string line;
    const std::size_t chains = r.components.chains(), large = r.components.large();
    for (std::size_t k = 0; k < listed.size() && k < kShown; ++k) {
        const ComponentDiameter& c = listed[k];
        std::string what = std::isnan(c.diameter) ? "no diameter: signatures not cached"
                                                  : fmt::format("diameter {:.2f}", c.diameter);
        if (c.chain) what += ": a chain";
        if (c.large) what += fmt::format(", {}+ members", kLargeComponent);
        line += fmt::format("{}{} members ({})", k ? ", " : "", c.size, what);
    }
    if (listed.size() > kShown) line += fmt::format(" and {} more", listed.size() - kShown);
    fmt::print(stderr, "  largest components: {}\n", line);
    if (chains + large == 0) return;
    std::string flagged;
    if (chains > 0)
        flagged = fmt::format(
            "{} chain(s) (diameter below {:.3f}: a member far from the document "
            "kept first, linked only through others)",
            chains, r.components.chainBelow);
    if (large > 0)
        flagged += fmt::format("{}{} component(s) of {}+ members", chains > 0 ? ", " : "", large,
                               kLargeComponent);
    fmt::print(stderr,
               "  flagged: {}; see who vouches for whom in the workbench's Chain tab: "
               "neardup-workbench {}\n",
               flagged, project);
}

// The reference as files and folders: a project given to --reference stands for its latest
// run's inputs, --reference-run N for run N's (both checked against what the project pinned).
std::vector<std::string> referencePaths(const RunOptions& opt) {
    std::vector<std::string> paths;
    for (const std::string& ref : opt.references) {
        if (const auto inputs = projectInputPaths(ref))
            paths.insert(paths.end(), inputs->begin(), inputs->end());
        else
            paths.push_back(ref);
    }
    if (opt.referenceRun > 0) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(opt.project, ec))
            throw std::runtime_error("--reference-run: no project " + opt.project);
        const ProjectStore store(opt.project, ProjectStore::Mode::ReadOnly);
        const std::vector<std::string> inputs = runInputPaths(store, opt.referenceRun);
        paths.insert(paths.end(), inputs.begin(), inputs.end());
    }
    return paths;
}

}  // namespace

int executeRunCommand(RunOptions& opt, CLI::App& cmd) {
    RunParams& params = opt.params;
    // Under mpirun or srun, every rank but 0 serves rank 0's backend requests from here
    // (they need only the execution options; rank 0 alone opens the project).
    MpiRun mpi;
    if (const std::optional<int> code = mpi.start(params)) return *code;
    int64_t resumedRun = 0;
    if (opt.resume) {
        if (const int code =
                prepareResume(cmd, opt.project, opt.inputs, opt.references, params, resumedRun))
            return code;
    } else if (opt.inputs.empty()) {
        fmt::print(stderr, "neardup run: no inputs given (or --resume)\n");
        return kExitUsage;
    }
    // A resumed run keeps the b x r it recorded; the note is about this command line's.
    if (!opt.quiet && !opt.resume && !opt.bandsRowsNote.empty())
        fmt::print(stderr, "{}\n", opt.bandsRowsNote);
    std::vector<std::string> references;
    try {
        references = referencePaths(opt);
    } catch (const NoSuchRun& e) {
        fmt::print(stderr, "neardup run: --reference-run: {}\n", e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        fmt::print(stderr, "neardup run: {}\n", e.what());
        return kExitError;
    }
    const RunRequest request{opt.project, opt.inputs, references, params, opt.outputs, resumedRun};
    ProgressPrinter printer(opt.quiet);
    RunHooks hooks;
    hooks.observer = &printer;
    hooks.cancel = &gCancel;
    hooks.backendChosen = [quiet = opt.quiet](const std::string& reason) {
        if (!quiet) fmt::print(stderr, "backend: {}\n", reason);
    };
    hooks.adjustBackend = [&mpi](BackendOptions& choice) { mpi.pickDevice(choice); };
    hooks.wrapBackend = [&mpi](std::unique_ptr<Backend> local, std::string& reason) {
        return mpi.wrap(std::move(local), reason, &gCancel);
    };
    hooks.finished = [&mpi](Backend&) { mpi.keepTotals(); };
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    std::signal(SIGHUP, onSignal);  // a closed terminal stops the run as cleanly as Ctrl-C
    try {
        const RunResult result = executeRun(request, hooks);
        if (!opt.quiet) {
            printSummary(result);
            printComponents(opt.project, result);
            mpi.printRanks();
        }
    } catch (const Cancelled&) {
        fmt::print(stderr, "neardup run: interrupted; the run is marked interrupted in {}\n",
                   opt.project);
        return kExitInterrupted;
    } catch (const RunRefused& e) {
        fmt::print(stderr, "neardup run: {}\n", e.what());
        return e.problem().kind == RunProblem::Kind::Parameters ? kExitUsage : kExitError;
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "neardup run: {}\n", e.what());
        return kExitUsage;
    }
    return kExitOk;
}

Command addRunCommand(CLI::App& app) {
    auto opt = std::make_shared<RunOptions>();
    CLI::App* cmd = app.add_subcommand(
        "run",
        "Find near-duplicates in JSON Lines, Parquet or Arrow inputs and record the run in a "
        "project");
    addProjectOptions(*cmd, *opt);
    addInputOptions(*cmd, *opt);
    addParameterOptions(*cmd, *opt);
    addExecutionOptions(*cmd, *opt);
    addOutputOptions(*cmd, opt->outputs);
    return [opt, cmd]() -> int {
        if (const std::optional<int> code = applyRunChoices(*opt)) return *code;
        return executeRunCommand(*opt, *cmd);
    };
}

}  // namespace neardup::cli
