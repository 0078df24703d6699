// `neardup export`: writes the outputs of a stored run again, from the project.
#include <cstdio>

#include "commands.h"
#include "output_options.h"
#include "project_store.h"

namespace neardup::cli {

Command addExportCommand(CLI::App& app) {
    struct Options {
        std::string project;
        int64_t run = 0;
        ExportOptions outputs;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd =
        app.add_subcommand("export", "Write the outputs of a stored run (the latest by default)");
    cmd->add_option("-p,--project", opt->project, "Project file (.ndw)")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--run", opt->run, "Run number (default: the latest successful run)");
    addOutputOptions(*cmd, opt->outputs);
    return [opt]() -> int {
        if (!opt->outputs.any()) {
            std::fprintf(stderr,
                         "neardup export: nothing to write; give at least one --out-* option or "
                         "--summary-json\n");
            return kExitUsage;
        }
        ProjectStore store(opt->project);
        int64_t runId = opt->run;
        if (runId == 0) {
            const auto latest = store.latestRun("ok");
            if (!latest) {
                std::fprintf(stderr, "neardup export: %s holds no successful run\n",
                             opt->project.c_str());
                return kExitError;
            }
            runId = *latest;
        }
        const RunResult run = store.loadRun(runId);
        if (run.status != "ok") {
            std::fprintf(stderr, "neardup export: run %lld is %s, not exportable\n",
                         static_cast<long long>(runId), run.status.c_str());
            return kExitError;
        }
        DocumentTable docs;
        const DatasetRecord dataset = store.loadDataset(run.datasetId, &docs);
        exportRun(run, dataset.files, docs, opt->outputs);
        std::printf("exported run %lld: %llu kept, %llu removed\n", static_cast<long long>(runId),
                    static_cast<unsigned long long>(run.counts.kept),
                    static_cast<unsigned long long>(run.counts.removed));
        return kExitOk;
    };
}

}  // namespace neardup::cli
