// The window's "Save as run": the run re-clustered at the slider's threshold recorded as a new
// run (core/run/recluster.h) through the run controller.
#include <QStatusBar>
#include <utility>

#include "jobqueue.h"
#include "mainwindow.h"
#include "parameterspanel.h"
#include "recluster.h"
#include "runcontroller.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"

namespace neardup::ui {

void MainWindow::saveThresholdAsRun(qint64 runId, double threshold) {
    if (!document_->isOpen() || run_->isRunning() || saving_) {
        statusBar()->showMessage(tr("Wait for the run to finish first."), 8000);
        return;
    }
    const std::string project = document_->path().toStdString();
    document_->background()->submit<neardup::RunRequest>(
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

}  // namespace neardup::ui
