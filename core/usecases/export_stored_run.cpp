// Exporting a stored run (export_stored_run.h).
#include "export_stored_run.h"

#include <cmath>
#include <string>
#include <utility>

#include "component_chain.h"
#include "input_warnings.h"
#include "output_file.h"
#include "project_protected_files.h"
#include "rejected_lines.h"
#include "rejected_lines_jsonl.h"
#include "thread_count.h"

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
        // Its warnings and id counts too: they are not stored but follow from the documents.
        if (!outputs.summaryJson.empty()) {
            run.components = notableComponents(store, run);
            auditInputs(run, docs, dataset.files, resolveThreads(0));
        }
        exportRun(run, dataset.files, docs, outputs);
    }
    done.counts = run.counts;
    return done;
}

RejectedLinesExported exportRejectedLines(
    ProjectStore& store, const DatasetRecord& dataset, const std::string& path,
    const std::atomic<bool>* cancel,
    const std::function<void(std::size_t samples, uint64_t total)>& onlySamples) {
    RejectedLinesExported done;
    for (const RejectionCount& r : dataset.rejections)
        done.total += r.count;
    std::vector<RejectedLine> lines;
    if (!rejected_lines::load(store, dataset, lines)) {
        if (onlySamples) onlySamples(dataset.rejectionSamples.size(), done.total);
        lines.clear();
        for (const Rejection& r : dataset.rejectionSamples) {
            RejectedLine l;
            l.line = r.line;
            l.file = r.file;
            l.reason = static_cast<uint8_t>(r.reason);
            lines.push_back(l);
        }
    }
    OutputFile out(path);  // compressed as its name asks
    const rejected_lines::ExportCounts counts =
        rejected_lines::exportJsonl(dataset.files, dataset.rejectionSamples, lines, out);
    if (cancel && cancel->load()) throw ExportCancelled();
    out.commit();
    done.listed = lines.size();
    done.written = counts.lines;
    done.withRaw = counts.withRaw;
    return done;
}

}  // namespace neardup
