// `neardup relocate`: re-points a project at inputs that moved, after checking that they are
// the files that were read.
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "project_store.h"
#include "relocate.h"

namespace neardup::cli {

Command addRelocateCommand(CLI::App& app) {
    struct Options {
        std::string project, from, to;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "relocate",
        "Re-point a project's inputs that moved from one folder (or file) to another, after "
        "checking that each is the file that was read (size and content fingerprint)");
    cmd->add_option("-p,--project", opt->project, "Project file (.ndw)")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--from", opt->from, "Where the inputs were (a folder or a file)")->required();
    cmd->add_option("--to", opt->to, "Where they are now")->required()->check(CLI::ExistingPath);
    return [opt]() -> int {
        ProjectStore store(opt->project);
        store.recoverStaleRuns();
        const RelocateResult r = relocateInputs(store, opt->from, opt->to);
        if (!r.problems.empty()) {
            for (const std::string& p : r.problems)
                std::fprintf(stderr, "neardup relocate: %s\n", p.c_str());
            std::fprintf(stderr, "neardup relocate: nothing changed in %s\n", opt->project.c_str());
            return kExitError;
        }
        if (r.files == 0) {
            std::fprintf(stderr, "neardup relocate: no input of %s lies under '%s'\n",
                         opt->project.c_str(), opt->from.c_str());
            return kExitError;
        }
        std::fprintf(stderr, "relocated %zu input file(s) of %zu dataset(s) to '%s'\n", r.files,
                     r.datasets, opt->to.c_str());
        return kExitOk;
    };
}

}  // namespace neardup::cli
