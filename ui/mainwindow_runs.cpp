// The window's work on runs that the threshold and decisions call for: "Save as run" (the run
// re-clustered at the slider's threshold recorded as a new run, core/run/recluster.h) and what
// exports of the listed runs remove with the audit decisions (the history's Removed column).
#include <QStatusBar>
#include <map>
#include <utility>
#include <vector>

#include "jobqueue.h"
#include "mainwindow.h"
#include "parameterspanel.h"
#include "recluster.h"
#include "runcontroller.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"

namespace neardup::ui {

void MainWindow::saveThresholdAsRun(qint64 runId, double threshold) {
    if (project_.isEmpty() || run_->isRunning() || saving_) {
        statusBar()->showMessage(tr("Wait for the run to finish first."), 8000);
        return;
    }
    const std::string project = project_.toStdString();
    background_->submit<neardup::RunRequest>(
        this,
        [project, runId, threshold](JobContext&) {
            return reclusterRequest(project, runId, threshold);
        },
        [this](neardup::RunRequest r) {
            RunRequest request;
            request.project = QString::fromStdString(r.project);
            request.inputs = std::move(r.inputs);
            request.references = std::move(r.references);
            request.params = r.params;
            request.params.threads = parameters_->params().threads;
            run_->start(request);
        },
        [this](const QString& e) {
            statusBar()->showMessage(tr("Cannot save as a run: %1").arg(e), 15000);
        });
}

void MainWindow::refreshAuditedRemovals() {
    std::vector<std::pair<int64_t, int64_t>> runs;  // (run, dataset) of the finished runs
    for (const RunSummary& r : history_->model()->runs())
        if (r.status == "ok") runs.emplace_back(r.runId, r.datasetId);
    if (runs.empty()) return;
    const QString project = project_;
    background_->submit<std::map<int64_t, uint64_t>>(
        this,
        [runs](JobContext& c) {
            // loadRun re-clusters a run with its dataset's decisions: what an export removes.
            // Its duplicate pairs are all that clustering reads.
            std::map<int64_t, uint64_t> removed;
            std::map<int64_t, bool> decided;
            for (const auto& [run, dataset] : runs) {
                if (!decided.count(dataset))
                    decided[dataset] = !c.reader().decisions(dataset).empty();
                if (decided[dataset])
                    removed[run] = c.reader()
                                       .loadRun(run, ProjectStore::StoredPairs::Duplicates)
                                       .counts.removed;
            }
            return removed;
        },
        [this, project](std::map<int64_t, uint64_t> removed) {
            if (project == project_) history_->model()->setAuditedRemovals(std::move(removed));
        });
}

void MainWindow::refreshAuditEstimates() {
    std::vector<int64_t> runs;
    for (const RunSummary& r : history_->model()->runs())
        if (r.status == "ok") runs.push_back(r.runId);
    if (runs.empty()) return;
    const QString project = project_;
    background_->submit<std::map<int64_t, PrecisionEstimate>>(
        this,
        [runs](JobContext& c) {
            std::map<int64_t, PrecisionEstimate> estimates;
            for (const int64_t run : runs)
                if (const auto audit = c.queries().latestAudit(run))
                    estimates[run] = estimatePrecision(audit->draw);
            return estimates;
        },
        [this, project](std::map<int64_t, PrecisionEstimate> estimates) {
            if (project == project_) history_->model()->setAuditEstimates(std::move(estimates));
        });
}

}  // namespace neardup::ui
