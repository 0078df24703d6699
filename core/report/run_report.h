// `neardup report` and the workbench's File > Export Report: a run of a project as one
// shareable, self-contained HTML file (report_data.h gathers, report_html.h renders).
#pragma once

#include <cstdint>
#include <string>

#include "report_data.h"

namespace neardup::report {

struct ReportWritten {
    int64_t runId = 0;
    uint64_t bytes = 0;
    std::size_t pairsShown = 0;
    uint64_t csvRows = 0;  // members written to the clusters CSV (when one was asked for)
};

// Writes the report of `options.runId` (0: the latest successful run) of the project at
// `projectPath` to `outPath`, atomically (the file appears whole or not at all). Opens the
// project read-only. Refuses (ReportError, nothing written) an output that is an input of the
// run's dataset, the project or one of its companion files, or cannot be created; an input
// that changed since the run read it, when texts are asked for. The bytes depend only on the
// project's content and the options: the same run gives the same file.
// With `clustersCsvPath`, the run's clusters are written there too (cluster_csv.h), checked
// like the report (and against it); the two files are committed together, after both are
// written whole.
ReportWritten writeRunReport(const std::string& projectPath, const std::string& outPath,
                             const ReportOptions& options, const std::string& clustersCsvPath = {});

}  // namespace neardup::report
