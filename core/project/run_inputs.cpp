#include "run_inputs.h"

#include "input_pin.h"
#include "jsonl_reader.h"
#include "protected_files.h"

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

std::optional<std::vector<std::string>> projectInputPaths(const std::string& path) {
    if (!isProjectFile(path)) return std::nullopt;
    const ProjectStore store(path, ProjectStore::Mode::ReadOnly);
    const std::optional<int64_t> latest = store.latestRun("ok");
    if (!latest)
        throw InputError("the project " + path + " has no finished run to serve as a reference");
    return runInputPaths(store, *latest);
}

}  // namespace neardup
