// Writing a run report to a file: output checks, gathering, rendering, an atomic write.
#include "run_report.h"

#include <filesystem>

#include "atomic_file.h"
#include "output_check.h"
#include "project_store.h"
#include "report_html.h"

namespace neardup::report {

ReportWritten writeRunReport(const std::string& projectPath, const std::string& outPath,
                             const ReportOptions& options) {
    const std::vector<NamedOutput> outputs = {{"--out", outPath}};
    if (const std::string problem = outputProblem(outputs, {}, projectPath); !problem.empty())
        throw ReportError(problem);
    const ProjectStore store(projectPath, ProjectStore::Mode::ReadOnly);
    const std::string name = std::filesystem::path(projectPath).filename().string();
    const ReportData data = gatherReport(store, name, options);
    // The report may not replace one of the inputs it quotes.
    if (const std::string problem = outputProblem(outputs, data.inputs, projectPath);
        !problem.empty())
        throw ReportError(problem);
    const std::string html = renderReport(data);
    AtomicFile out(outPath);
    out.write(html);
    out.commit();
    return {data.run.runId, html.size(), data.samplePairs.size()};
}

}  // namespace neardup::report
