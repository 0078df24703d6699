#include "run_inputs.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "input_pin.h"
#include "jsonl_reader.h"
#include "project_schema.h"
#include "unique_fd.h"

namespace neardup {

std::vector<std::string> runInputPaths(const ProjectStore& store, int64_t runId) {
    const RunRow row = store.runRow(runId);
    const DatasetRecord dataset = store.loadDataset(row.run.datasetId, nullptr);
    std::vector<std::string> paths;
    for (const InputFile& f : dataset.files) {
        if (f.reference) continue;
        if (const std::string problem = pinProblem(f); !problem.empty())
            throw InputError("run " + std::to_string(runId) + " of " + store.path() +
                             " cannot serve as a reference: " + problem);
        paths.push_back(f.path);
    }
    if (paths.empty())
        throw InputError("run " + std::to_string(runId) + " of " + store.path() +
                         " read no input file of its own");
    return paths;
}

namespace {

// True when the file at `path` begins as a NearDup project does: SQLite's header with our
// application id. A folder, a missing or unreadable file is not one (the run reports those).
bool isProjectFile(const std::string& path) {
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) return false;
    std::array<unsigned char, 72> header{};
    if (::pread(fd.get(), header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()))
        return false;
    static constexpr char kMagic[] = "SQLite format 3";  // with its '\0', 16 bytes
    if (std::memcmp(header.data(), kMagic, sizeof kMagic) != 0) return false;
    const uint32_t id = uint32_t{header[68]} << 24 | uint32_t{header[69]} << 16 |
                        uint32_t{header[70]} << 8 | uint32_t{header[71]};
    return id == static_cast<uint32_t>(schema::kApplicationId);
}

}  // namespace

std::optional<std::vector<std::string>> projectInputPaths(const std::string& path) {
    if (!isProjectFile(path)) return std::nullopt;
    const ProjectStore store(path, ProjectStore::Mode::ReadOnly);
    const std::optional<int64_t> latest = store.latestRun("ok");
    if (!latest)
        throw InputError("the project " + path + " has no finished run to serve as a reference");
    return runInputPaths(store, *latest);
}

}  // namespace neardup
