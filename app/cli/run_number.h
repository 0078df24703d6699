// A run named by number on the command line (`--run N`, `--reference-run N`) that the project does
// not hold is a usage error (exit 2) that says so in the same words in every command, as
// `recluster --run N` says it: the number was mistyped, the project is fine.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "project_store.h"

namespace neardup::cli {

// Thrown where a command finds that run `runId` is not in `project`.
class NoSuchRun : public std::invalid_argument {
  public:
    NoSuchRun(const std::string& project, int64_t runId)
        : std::invalid_argument(fmt::format("{} holds no run {}", project, runId)) {}
};

// Throws NoSuchRun unless `store` (the project `project`) holds run `runId`.
inline void requireRun(const ProjectStore& store, const std::string& project, int64_t runId) {
    for (const ProjectStore::RunState& r : store.runStates())
        if (r.id == runId) return;
    throw NoSuchRun(project, runId);
}

}  // namespace neardup::cli
