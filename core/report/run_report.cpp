// Writing a run report to a file (and its clusters CSV beside it on request): output checks,
// gathering, rendering, atomic writes.
#include "run_report.h"

#include <filesystem>

#include "atomic_file.h"
#include "cluster_csv.h"
#include "output_check.h"
#include "project_protected_files.h"
#include "project_store.h"
#include "report_html.h"

namespace neardup::report {

ReportWritten writeRunReport(const std::string& projectPath, const std::string& outPath,
                             const ReportOptions& options, const std::string& clustersCsvPath) {
    std::vector<NamedOutput> outputs = {{"--out", outPath}};
    if (!clustersCsvPath.empty()) outputs.push_back({"--clusters-csv", clustersCsvPath});
    if (const std::string problem = outputProblem(outputs, {}, ProtectedFiles(projectPath));
        !problem.empty())
        throw ReportError(problem);
    const ProjectStore store(projectPath, ProjectStore::Mode::ReadOnly);
    const std::string name = std::filesystem::path(projectPath).filename().string();
    DocumentTable docs;
    const ReportData data = gatherReport(store, name, options, &docs);
    // The report may not replace one of the inputs it quotes, nor an input of another dataset.
    if (const std::string problem = outputProblem(outputs, data.inputs, protectedFiles(store));
        !problem.empty())
        throw ReportError(problem);
    const std::string html = renderReport(data);
    AtomicFile out(outPath);
    out.write(html);
    ReportWritten written{data.run.runId, html.size(), data.samplePairs.size(), 0};
    if (clustersCsvPath.empty()) {
        out.commit();
        return written;
    }
    AtomicFile csv(clustersCsvPath);
    written.csvRows = writeClustersCsv(data.run, docs, store.decisions(data.run.datasetId), csv,
                                       options.csvRaw ? CsvCells::Raw : CsvCells::Guarded)
                          .rows;
    // Both are complete on disk before either takes its name.
    out.finish();
    csv.finish();
    out.commit();
    csv.commit();
    return written;
}

}  // namespace neardup::report
