// What a run against a reference names as its reference when it names a run or a project
// instead of files: the input files that run read (`neardup run --reference-run N`, or a
// NearDup project given to `--reference`: its latest finished run).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "project_store.h"

namespace neardup {

// The input files of run `runId`'s dataset, paths as the project stores them, its own reference
// excluded. Each is checked against what the project pinned (pinProblem: size, modification
// time, identity): a file that changed since, or is gone, throws InputError naming it, since its
// documents are not the ones that run saw. StoreError when there is no such run or it never
// read its inputs.
std::vector<std::string> runInputPaths(const ProjectStore& store, int64_t runId);

// When `path` is a NearDup project file: the inputs of its latest finished run
// (runInputPaths), the project opened read-only; InputError when it has none. nullopt when
// `path` is not a NearDup project (a file or folder of documents).
std::optional<std::vector<std::string>> projectInputPaths(const std::string& path);

}  // namespace neardup
