// What no output may land on besides the inputs of the run or export being written: the project
// file, its companions and sidecar folder, and every file that any dataset of the project reads
// (another run's input is as much the user's as this run's). Filled from the project by
// protectedFiles() of core/project/project_protected_files.h; made from a path alone, it
// protects the project and its companions only (a project not yet created, or checks made
// before it is opened).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace neardup {

struct ProtectedFiles {
    ProtectedFiles() = default;
    explicit ProtectedFiles(std::string projectPath) : project(std::move(projectPath)) {}
    std::string project;  // "" or ":memory:": no project file
    struct Input {
        std::string path;     // as the project stores it
        int64_t dataset = 0;  // the dataset of the project that reads it
    };
    std::vector<Input> inputs;
};

}  // namespace neardup
