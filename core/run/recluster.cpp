// The request that re-clusters a stored run at another threshold (recluster.h).
#include "recluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "jsonl_reader.h"
#include "project_store.h"
#include "relocate.h"

namespace neardup {

namespace {

// What differs between the files listed now and those a run read, for a refusal: a file listed
// that it did not read, or one it read that is not listed any more.
std::string listingDifference(const std::vector<InputFile>& listed,
                              const std::vector<InputFile>& read) {
    const auto lacks = [](const std::vector<InputFile>& files, const std::string& path) {
        return std::none_of(files.begin(), files.end(),
                            [&](const InputFile& f) { return f.path == path; });
    };
    for (const InputFile& f : listed)
        if (lacks(read, f.path)) return "input '" + f.path + "' is new";
    for (const InputFile& f : read)
        if (lacks(listed, f.path)) return "input '" + f.path + "' is no longer listed";
    return "its inputs are listed in another order";
}

// The run's dataset when its files, other by identity than what it pinned, still hold the
// content it read: the decision every use of stored offsets takes (pinProblem), so that a touch
// or an identical copy is accepted as `neardup export` accepts it. Their identity now is stored
// (repinInputs) for the run this request starts to find the dataset as a run on the same files
// does. Throws ReclusterRefused naming the file that changed, is gone, new or no longer listed.
int64_t repinnedDataset(const std::string& project, int64_t runId, int64_t datasetId,
                        const std::vector<InputFile>& listed, const ReaderOptions& reader,
                        const DatasetRecord& dataset) {
    ProjectStore store(project);
    if (std::string problem = repinInputs(store, datasetId); !problem.empty())
        throw ReclusterRefused(
            fmt::format("run {} cannot be re-clustered: {}; its pairs no longer apply (a file "
                        "that moved is found again with neardup relocate)",
                        runId, problem));
    if (std::optional<int64_t> found = store.findDataset(listed, reader, dataset.referenceFiles))
        return *found;
    throw ReclusterRefused(
        fmt::format("run {} cannot be re-clustered: {} since it ran; its pairs no longer apply",
                    runId, listingDifference(listed, dataset.files)));
}

}  // namespace

RunRequest reclusterRequest(const std::string& project, int64_t runId, double threshold) {
    const ProjectStore store(project, ProjectStore::Mode::ReadOnly);
    const std::vector<int64_t> ids = [&] {
        std::vector<int64_t> all;
        for (const auto& r : store.runStates())
            all.push_back(r.id);
        return all;
    }();
    if (std::find(ids.begin(), ids.end(), runId) == ids.end())
        throw ReclusterRefused(fmt::format("{} holds no run {}", project, runId));
    const RunRow row = store.runRow(runId);
    const RunResult& run = row.run;
    if (run.status != "ok")
        throw ReclusterRefused(fmt::format("run {} is {}: only a finished run can be re-clustered",
                                           runId, run.status));
    const double floor = run.params.compare.storeFloor;
    if (!(threshold >= floor && threshold <= 1.0))
        throw ReclusterRefused(fmt::format(
            "threshold {} is outside what run {} stored pairs for: [{}, 1] (its store floor)",
            threshold, runId, floor));
    RunRequest request;
    request.project = project;
    request.params = run.params;
    request.params.compare.threshold = threshold;
    const DatasetRecord dataset = store.loadDataset(run.datasetId, nullptr);
    for (const InputFile& f : dataset.files)
        (f.reference ? request.references : request.inputs).push_back(f.path);
    // The run's pairs serve the request only while its inputs are the very files it read, and
    // its signatures and LSH parameters are this request's; otherwise the run would compare.
    auto listed = expandInputs(request.references, OnError::Skip);
    const auto inputs = expandInputs(request.inputs, OnError::Skip);
    listed.insert(listed.end(), inputs.begin(), inputs.end());
    std::optional<int64_t> found =
        store.findDataset(listed, request.params.reader, dataset.referenceFiles);
    if (!found)
        found =
            repinnedDataset(project, runId, run.datasetId, listed, request.params.reader, dataset);
    if (!store.findReusablePairs(*found, request.params, run.resolvedBuckets))
        throw ReclusterRefused(fmt::format("run {} has no stored pairs to reuse", runId));
    return request;
}

}  // namespace neardup
