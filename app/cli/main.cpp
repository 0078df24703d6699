// Entry point of `neardup`: builds the command line, dispatches to one subcommand.
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "backend_factory.h"
#include "commands.h"
#include "count_options.h"
#include "cuda_support.h"
#include "path_options.h"
#include "project_store.h"

int main(int argc, char** argv) {
    using namespace neardup::cli;
    neardup::installCudaBackends();
    CLI::App app{"neardup " NEARDUP_VERSION
                 " - find near-duplicate documents in JSON Lines, Parquet and Arrow corpora "
                 "(MinHash-LSH)\n"
                 "Exit codes: 0 ok, 1 error (bad input, I/O, project), 2 usage, 130 interrupted."};
    app.require_subcommand(1);
    app.set_version_flag("--version", "neardup " NEARDUP_VERSION);
    std::vector<std::pair<CLI::App*, Command>> commands;
    auto add = [&](Command (*factory)(CLI::App&)) {
        Command cmd = factory(app);
        const auto all = app.get_subcommands([](CLI::App*) { return true; });
        commands.emplace_back(all.back(), std::move(cmd));
    };
    add(addRunCommand);
    add(addReclusterCommand);
    add(addExportCommand);
    add(addReportCommand);
    add(addRelocateCommand);
    add(addInfoCommand);
    add(addGenCommand);
    add(addEvalCommand);
    add(addTruthCommand);
    add(addBenchCommand);
    add(addSelftestCommand);
    add(addCompletionCommand);
    add(addCliReferenceCommand);
    refuseEmptyPaths(app);
    refuseNegativeCounts(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? kExitOk : kExitUsage;
    }
    for (auto& [sub, cmd] : commands) {
        if (!sub->parsed()) continue;
        try {
            return cmd();
        } catch (const neardup::NoSuchRun& e) {
            // A mistyped run number is a usage error, whichever command met it.
            fmt::print(stderr, "neardup {}: {}\n", sub->get_name(), e.what());
            return kExitUsage;
        } catch (const neardup::BackendError& e) {
            // The engine names an option in plain words ("workers must be ..."); here it is a flag.
            const bool aboutOption = e.option() != neardup::BackendOption::None;
            fmt::print(stderr, "neardup {}: error: {}{}\n", sub->get_name(),
                       aboutOption ? "--" : "", e.what());
            return kExitError;
        } catch (const std::exception& e) {
            fmt::print(stderr, "neardup {}: error: {}\n", sub->get_name(), e.what());
            return kExitError;
        }
    }
    return kExitUsage;
}
