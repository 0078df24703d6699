// `neardup export`: writes the outputs of a stored run again, from the project, and the
// rejected lines of its dataset.
#include <fmt/format.h>

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>

#include "commands.h"
#include "export_stored_run.h"
#include "output_check.h"
#include "output_options.h"
#include "project_store.h"

namespace neardup::cli {

namespace {

// The estimate of the run's latest sampled audit (the workbench's Run > Audit N Random Pairs),
// beside what the export removed; nothing when the run has none with a verdict.
void printAuditEstimate(const ProjectStore& store, int64_t runId) {
    const std::vector<int64_t> samples = store.auditSamples(runId);
    if (samples.empty()) return;
    const std::optional<StoredAudit> audit = store.auditSample(samples.back());
    if (!audit) return;
    const PrecisionEstimate e = estimatePrecision(audit->draw);
    if (e.judged == 0) return;
    fmt::print(stderr,
               "sampled audit of run {}: precision {:.3f} (95 % CI {:.3f}-{:.3f}) at threshold {}, "
               "{} judged of {} drawn, {} unsure\n",
               runId, e.precision, e.low, e.high, audit->draw.threshold, e.judged,
               audit->draw.pairs.size(), e.unsure);
}

std::atomic<bool> gExportCancel{false};

// The first Ctrl-C stops the export (nothing is renamed into place); a second exits at once.
extern "C" void onExportSignal(int) {
    if (gExportCancel.exchange(true)) ::_exit(kExitInterrupted);
}

}  // namespace

Command addExportCommand(CLI::App& app) {
    struct Options {
        std::string project;
        int64_t run = 0;
        ExportOptions outputs;
        std::string rejected;
        bool quiet = false;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd =
        app.add_subcommand("export", "Write the outputs of a stored run (the latest by default)");
    addExistingProjectOption(*cmd, opt->project);
    cmd->add_option("--run", opt->run, "Run number (default: the latest successful run)");
    addOutputOptions(*cmd, opt->outputs);
    cmd->add_option("--rejected", opt->rejected,
                    "Write every rejected line of the run's dataset as JSONL: {\"file\", "
                    "\"line\", \"reason\"[, \"detail\"][, \"raw\"]} (any run status; with no "
                    "--run, the latest run; gzip or zstd by the name's .gz or .zst)");
    cmd->add_flag("-q,--quiet", opt->quiet, "Nothing on stderr but warnings and errors");
    return [opt]() -> int {
        if (!opt->outputs.any() && opt->rejected.empty()) {
            fmt::print(stderr,
                       "neardup export: nothing to write; give at least one --out-* option, "
                       "--summary-json or --rejected\n");
            return kExitUsage;
        }
        // Checked before anything is loaded or written: a missing or unwritable directory, a
        // directory as output, two outputs on one path; the inputs once they are known.
        ExportOptions all = opt->outputs;
        all.project = ProtectedFiles(opt->project);
        std::vector<NamedOutput> named = namedOutputs(all);
        named.push_back({"--rejected", opt->rejected});
        if (const std::string problem = outputProblem(named, {}, all.project); !problem.empty()) {
            fmt::print(stderr, "neardup export: {}\n", problem);
            return kExitError;
        }
        ProjectStore store(opt->project);
        store.recoverStaleRuns();  // a run whose process died shows as interrupted
        int64_t runId = opt->run;
        if (runId == 0) {
            const auto latest = opt->outputs.any() ? store.latestRun("ok") : [&] {
                const auto runs = store.runStates();
                return runs.empty() ? std::optional<int64_t>() : runs.back().id;
            }();
            if (!latest) {
                fmt::print(stderr, "neardup export: {} holds no {}run\n", opt->project,
                           opt->outputs.any() ? "successful " : "");
                return kExitError;
            }
            runId = *latest;
        }
        StoredRunExport request;
        request.runId = runId;
        request.outputs = opt->outputs;
        request.outputs.cancel = &gExportCancel;
        request.alsoWritten.push_back({"--rejected", opt->rejected});
        request.checked = [] {
            std::signal(SIGINT, onExportSignal);
            std::signal(SIGTERM, onExportSignal);
            std::signal(SIGHUP, onExportSignal);
        };
        try {
            const ExportedRun exported = exportStoredRun(store, std::move(request));
            const DatasetRecord& dataset = exported.dataset;
            if (opt->outputs.any() && !opt->quiet) {
                fmt::print(stderr, "exported run {}: {} kept, {} removed\n", runId,
                           exported.counts.kept, exported.counts.removed);
                printAuditEstimate(store, runId);
            }
            if (!opt->rejected.empty()) {
                const RejectedLinesExported rejected = exportRejectedLines(
                    store, dataset, opt->rejected, &gExportCancel,
                    [&](std::size_t samples, uint64_t total) {
                        fmt::print(stderr,
                                   "neardup export: the project keeps only the first {} of the {} "
                                   "rejected lines of dataset {} (saved before every one was "
                                   "kept, or in memory); run it again to list them all\n",
                                   samples, total, dataset.id);
                    });
                if (!opt->quiet)
                    fmt::print(stderr,
                               "exported {} rejected line(s) of run {} ({} with the raw line)\n",
                               rejected.written, runId, rejected.withRaw);
                if (!rejected.complete()) return kExitError;
            }
        } catch (const ExportRefused& e) {
            fmt::print(stderr, "neardup export: {}\n", e.what());
            return kExitError;
        } catch (const ExportCancelled&) {
            fmt::print(stderr, "neardup export: interrupted; nothing written\n");
            return kExitInterrupted;
        }
        return kExitOk;
    };
}

}  // namespace neardup::cli
