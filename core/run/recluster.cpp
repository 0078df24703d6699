// The request that re-clusters a stored run at another threshold (recluster.h).
#include "recluster.h"

#include <fmt/format.h>

#include <algorithm>

#include "jsonl_reader.h"
#include "project_store.h"

namespace neardup {

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
    const auto found = store.findDataset(listed, request.params.reader, dataset.referenceFiles);
    if (!found)
        throw ReclusterRefused(fmt::format(
            "the inputs of run {} changed since it ran (or moved: see neardup relocate); its "
            "pairs no longer apply",
            runId));
    if (!store.findReusablePairs(*found, request.params, run.resolvedBuckets))
        throw ReclusterRefused(fmt::format("run {} has no stored pairs to reuse", runId));
    return request;
}

}  // namespace neardup
