// Exporting a stored run: what `neardup export` and the workbench's Export dialog both do, once.
// The run is loaded from the project (only the pairs its outputs name, or re-clustered at a
// working threshold), refused unless it finished, its dataset and documents loaded, every output
// checked against the inputs, the project and the other outputs, the summary's components
// measured, and the outputs written whole (core/output/exporter.h); and the rejected lines of its
// dataset. Front ends parse the request and show the result.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "exporter.h"
#include "output_check.h"
#include "project_store.h"

namespace neardup {

struct StoredRunExport {
    int64_t runId = 0;
    // NaN: the run as it was clustered, with only each removed document's witness pair loaded
    // (not the millions a run stored for low thresholds may hold). Else the run re-clustered at
    // this threshold with its removal rule and the dataset's decisions (ProjectStore::loadRunAt),
    // as the workbench's threshold slider shows it.
    double threshold = std::numeric_limits<double>::quiet_NaN();
    // The files to write and how (progress, cancel, readAhead); `reader` and `project` are
    // filled in from the project. With no output requested the run is only loaded and checked.
    ExportOptions outputs;
    // Files the caller writes itself from the run's dataset (`neardup export --rejected`):
    // checked with the outputs before anything is written.
    std::vector<NamedOutput> alsoWritten;
    // Called once the run is loaded and every output checked, before anything is written (the
    // CLI installs its Ctrl-C handler there).
    std::function<void()> checked;
};

// The export was refused before anything was written; the message says why ("run 3 is failed,
// not exportable", or the output that cannot be written and why).
class ExportRefused : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct ExportedRun {
    int64_t runId = 0;
    RunCounts counts;       // of the run as exported (at the threshold, when one was given)
    DatasetRecord dataset;  // the run's dataset, without its documents
};

// Throws ExportRefused (nothing written), ExportCancelled once outputs.cancel is raised
// (nothing written either), StoreError for an unreadable project, std::runtime_error naming the
// file for an output that fails as it is written.
ExportedRun exportStoredRun(const ProjectStore& store, StoredRunExport request);

struct RejectedLinesExported {
    uint64_t total = 0;    // the dataset's rejected lines, by its per-reason counts
    uint64_t listed = 0;   // of which listed: all of them, or the samples the project keeps
    uint64_t written = 0;  // JSON lines written
    uint64_t withRaw = 0;  // of which with the raw input line
    bool complete() const { return listed == total; }
};

// `neardup export --rejected`: every rejected line of `dataset` (the dataset of a stored run,
// ExportedRun::dataset) to `path` as JSON Lines, compressed as its name asks, written whole or
// not at all. When the project keeps only the first samples (a dataset saved before every line
// was kept, or an in-memory one), `onlySamples(samples, total)` is told before those are written.
// Throws ExportCancelled once `cancel` is raised (nothing written), std::runtime_error naming the
// file when it cannot be written.
RejectedLinesExported exportRejectedLines(
    ProjectStore& store, const DatasetRecord& dataset, const std::string& path,
    const std::atomic<bool>* cancel,
    const std::function<void(std::size_t samples, uint64_t total)>& onlySamples);

}  // namespace neardup
