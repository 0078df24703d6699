// The project the workbench has open, as one document the panels observe: its path and the job
// queues that read and write it, its runs, the run the panels show (the working run) with its
// dataset, and the working threshold. Every change goes through a method here and goes out as a
// signal, so that a panel follows the document instead of being told by the window.
//
// Opening: open() drops the previous project at once (projectOpened: panels clear what they
// showed of it), then lists the runs on the queries queue (runsChanged, once listed). The run
// history picks the run to show and calls selectRun(), which loads it (currentRunChanged).
#pragma once

#include <QObject>
#include <QString>
#include <optional>
#include <vector>

#include "jobqueue.h"
#include "project_queries.h"
#include "project_store.h"
#include "run_lock.h"

namespace neardup::ui {

class ProjectDocument : public QObject {
    Q_OBJECT
  public:
    explicit ProjectDocument(QObject* parent = nullptr);

    // For the views over a run (clusters, buckets, the run shown).
    JobQueue* queries() const { return queries_; }
    // For the dataset preview, the parameter suggestion, re-clustering, exports and copies.
    JobQueue* background() const { return background_; }

    QString path() const { return path_; }
    bool isOpen() const { return !path_.isEmpty(); }
    const std::vector<RunSummary>& runs() const { return runs_; }
    // The project's latest unfinished run, as last listed.
    const std::optional<ResumeRecord>& resumable() const { return resumable_; }
    // The working run (runId 0: none) and the dataset it read.
    const RunInfo& currentRun() const { return run_; }
    const DatasetRecord& currentDataset() const { return dataset_; }
    // NaN while the working run is shown at its own threshold.
    double workingThreshold() const { return threshold_; }

    // Makes `path` the open project and lists its runs. The first listing picks `select`, else
    // the latest run that finished; when it fails, openFailed() goes out and no project is open.
    void open(const QString& path, qint64 select = 0);
    void close();
    // Lists the runs again (after a run finished), asking the history to select `select`.
    void reloadRuns(qint64 select = 0);
    // Loads run `runId` (0: none) and makes it the working run, at its own threshold.
    void selectRun(qint64 runId);
    // The threshold slider's result for the working run: the views follow it. The run's own
    // threshold stands for "no working threshold".
    void setWorkingThreshold(double threshold);
    // Audit decisions were recorded or undone in the project.
    void noteDecisionsChanged();
    // A sampled audit was drawn or one of its verdicts recorded.
    void noteAuditChanged();

  signals:
    // No run is current yet; what the panels showed of another project is gone.
    void projectOpened(const QString& path);
    void projectClosed();
    // The first listing of the project just opened failed; no project is open any more.
    void openFailed(const QString& path, const QString& why);
    // A later listing failed (the project stays open).
    void readFailed(const QString& why);
    // The project's runs, and the run the history should select (0: its own choice).
    void runsChanged(const std::vector<RunSummary>& runs, qint64 select);
    void currentRunChanged(const RunInfo& run);
    // The working threshold moved away from the run shown's own, or back (the value given).
    void thresholdChanged(double threshold);
    void decisionsChanged();
    void auditChanged();

  private:
    void forgetProject();

    JobQueue* queries_;
    JobQueue* background_;
    QString path_;
    bool listedOnce_ = false;
    std::vector<RunSummary> runs_;
    std::optional<ResumeRecord> resumable_;
    RunInfo run_;
    DatasetRecord dataset_;
    double threshold_;
    LatestRequest latestRun_;
};

}  // namespace neardup::ui
