// The options that take an unsigned number, in every command, refuse a negative one: the
// command-line library reads "-1" into an unsigned field as the largest value there is (a
// --seed of 18446744073709551615, a --docs of 2^64 - 1), which is a silent wrong value, not a
// choice. Applied once to the whole command line, by the type each option was declared with, so
// that a command's new unsigned option is covered without a word of its own.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace neardup::cli {

// Every option of every subcommand of `app` declared with an unsigned type is refused negative:
// a usage error (exit 2) "--seed: ...", whatever the command.
inline void refuseNegativeCounts(CLI::App& app) {
    const CLI::Validator notNegative(
        [](std::string& value) {
            const std::size_t first = value.find_first_not_of(" \t");
            return first != std::string::npos && value[first] == '-'
                       ? "must be zero or more, not " + value
                       : std::string();
        },
        "", "not negative");
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        for (CLI::Option* option : sub->get_options())
            if (option->get_type_name().rfind("UINT", 0) == 0) option->check(notNegative);
}

}  // namespace neardup::cli
