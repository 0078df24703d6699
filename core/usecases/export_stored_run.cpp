// Exporting a stored run (export_stored_run.h).
#include "export_stored_run.h"

#include <cmath>
#include <string>
#include <utility>

#include "component_chain.h"
#include "project_protected_files.h"

namespace neardup {

ExportedRun exportStoredRun(const ProjectStore& store, StoredRunExport request) {
    ExportOptions& outputs = request.outputs;
    const bool writes = outputs.any();
    RunResult run = std::isnan(request.threshold)
                        ? store.loadRun(request.runId, ProjectStore::StoredPairs::Witnesses)
                        : store.loadRunAt(request.runId, request.threshold);
    if (writes && run.status != "ok")
        throw ExportRefused("run " + std::to_string(request.runId) + " is " + run.status +
                            ", not exportable");
    DocumentTable docs;
    ExportedRun done;
    done.runId = request.runId;
    done.dataset = store.loadDataset(run.datasetId, writes ? &docs : nullptr);
    const DatasetRecord& dataset = done.dataset;
    // No output may replace one of the inputs it is made from, an input of another dataset of
    // the project, the project or its sidecar, nor another output.
    outputs.project = protectedFiles(store);
    std::vector<NamedOutput> named = namedOutputs(outputs);
    named.insert(named.end(), request.alsoWritten.begin(), request.alsoWritten.end());
    std::string problem = outputProblem(named, dataset.files, outputs.project);
    if (problem.empty() && writes)
        problem = outputProblem(outputs, dataset.files, outputs.project);  // --out-dir's shards
    if (!problem.empty()) throw ExportRefused(problem);
    if (request.checked) request.checked();
    if (writes) {
        outputs.reader = dataset.reader;
        // The summary names the largest components with their diameters, as the run's.
        if (!outputs.summaryJson.empty()) run.components = notableComponents(store, run);
        exportRun(run, dataset.files, docs, outputs);
    }
    done.counts = run.counts;
    return done;
}

}  // namespace neardup
