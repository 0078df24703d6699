// What no output may land on besides the inputs of the run or export being written: the project
// file, its companions and sidecar folder, every file that any dataset of the project reads
// (another run's input is as much the user's as this run's), and the folders given as inputs
// or reference. Filled from the project by protectedFiles() of
// core/project/project_protected_files.h; made from a path alone, it protects the project and
// its companions only (a project not yet created, or checks made before it is opened). Any other
// NearDup project, recognized by its header, is protected whatever the command (isProjectFile).
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
    // A folder given as an input or reference, read whole: an output anywhere below it would be
    // read back as documents by the next run given that folder.
    struct Folder {
        std::string path;     // as given
        std::string givenAs;  // "an input", "--reference": for messages
    };
    std::vector<Folder> folders;
};

// The SQLite application id that marks a NearDup project (core/project's schema sets it).
inline constexpr int32_t kProjectApplicationId = 0x4E445742;

// True when the file at `path` begins as a NearDup project does: SQLite's header with
// kProjectApplicationId. A folder, a missing or unreadable file is not one.
bool isProjectFile(const std::string& path);

}  // namespace neardup
