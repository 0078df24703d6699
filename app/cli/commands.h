// The subcommands of `neardup`. Each registers its options on the CLI11 app and returns the
// function that runs it; main() only dispatches.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace neardup::cli {

// Exit codes, documented in docs/guide/getting-started.md and in --help.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInterrupted = 130;

using Command = std::function<int()>;

// `-p,--project`: the project file a command reads or changes, which must exist.
inline void addExistingProjectOption(CLI::App& cmd, std::string& project) {
    cmd.add_option("-p,--project", project, "Project file (.ndw)")
        ->required()
        ->check(CLI::ExistingFile);
}

Command addRunCommand(CLI::App& app);
Command addReclusterCommand(CLI::App& app);
Command addExportCommand(CLI::App& app);
Command addReportCommand(CLI::App& app);
Command addRelocateCommand(CLI::App& app);
Command addInfoCommand(CLI::App& app);
Command addGenCommand(CLI::App& app);
Command addEvalCommand(CLI::App& app);
Command addTruthCommand(CLI::App& app);
Command addBenchCommand(CLI::App& app);
Command addSelftestCommand(CLI::App& app);
Command addCompletionCommand(CLI::App& app);
Command addCliReferenceCommand(CLI::App& app);

}  // namespace neardup::cli
