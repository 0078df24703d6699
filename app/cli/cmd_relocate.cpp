// `neardup relocate`: re-points a project at inputs that moved, after checking that they are
// the files that were read.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "project_store.h"
#include "relocate.h"

namespace neardup::cli {

Command addRelocateCommand(CLI::App& app) {
    struct Options {
        std::string project, from, to;
        int64_t dataset = 0;
        bool quiet = false;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "relocate",
        "Re-point a project's inputs that moved from one folder (or file) to another, after "
        "checking that each is the file that was read (size and content fingerprint)");
    addExistingProjectOption(*cmd, opt->project);
    cmd->add_option("--from", opt->from, "Where the inputs were (a folder or a file)")->required();
    cmd->add_option("--to", opt->to, "Where they are now")->required()->check(CLI::ExistingPath);
    cmd->add_option("--dataset", opt->dataset,
                    "Re-point the inputs of this dataset only (the number a refusal names), e.g. "
                    "when two datasets read one path whose file changed between them")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("-q,--quiet", opt->quiet, "Nothing on stderr but warnings and errors");
    return [opt]() -> int {
        ProjectStore store(opt->project);
        store.recoverStaleRuns();
        const RelocateResult r = relocateInputs(store, opt->from, opt->to, opt->dataset);
        if (!r.problems.empty()) {
            for (const std::string& p : r.problems)
                fmt::print(stderr, "neardup relocate: {}\n", p);
            fmt::print(stderr, "neardup relocate: nothing changed in {}\n", opt->project);
            return kExitError;
        }
        if (r.files == 0 && r.alreadyThere > 0) {
            // Not an error: the inputs are where the user says they are.
            if (!opt->quiet)
                fmt::print(
                    stderr,
                    "neardup relocate: nothing changed in {}: --from '{}' and --to '{}' name "
                    "the same place, where its {} input file(s) already are\n",
                    opt->project, opt->from, opt->to, r.alreadyThere);
            return kExitOk;
        }
        if (r.files == 0) {
            fmt::print(stderr, "neardup relocate: no input of {} lies under '{}'\n", opt->project,
                       opt->from);
            return kExitError;
        }
        if (!opt->quiet)
            fmt::print(stderr, "relocated {} input file(s) of {} dataset(s) to '{}'\n", r.files,
                       r.datasets, opt->to);
        return kExitOk;
    };
}

}  // namespace neardup::cli
