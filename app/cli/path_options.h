// The options that name a file or folder, in every command, refuse an empty string: "" names no
// file, and taken for one it made a run store nothing (SQLite's temporary database) or write
// nothing while reporting success. Applied once to the whole command line, so that a command's
// new option of one of these names is covered without a word of its own.
#pragma once

#include <CLI/CLI.hpp>

#include <set>
#include <string>

namespace neardup::cli {

// Every option of every subcommand of `app` named as a path option is refused empty: a usage
// error (exit 2) "--out-jsonl: ...", whatever the command.
inline void refuseEmptyPaths(CLI::App& app) {
    static const std::set<std::string> kPathOptions = {
        "inputs",        "--project",      "--reference",    "--out-jsonl",      "--out-kept",
        "--out-removed", "--out-clusters", "--summary-json", "--out-dir",        "--work-dir",
        "--rejected",    "--out",          "--clusters-csv", "--truth",          "--clusters",
        "--json",        "--from",         "--to",           "--clustering-from"};
    const CLI::Validator notEmpty(
        [](std::string& value) {
            return value.empty() ? std::string("an empty string names no file or folder")
                                 : std::string();
        },
        "", "not empty");
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        for (CLI::Option* option : sub->get_options()) {
            if (kPathOptions.count(option->get_name()) != 0) option->check(notEmpty);
        }
    }
}

}  // namespace neardup::cli
