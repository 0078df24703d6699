// The workbench window: wiring only. Each concern lives in its own panel (dock or tab) with its
// model; database work runs on job queues, the pipeline on the run controller's thread.
#pragma once

#include <QMainWindow>
#include <functional>

#include "project_queries.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QTabWidget;

namespace neardup::ui {

class BucketsPanel;
class ClustersPanel;
class DatasetPanel;
class ExportDialog;
class JobQueue;
class ParametersPanel;
class RunController;
class RunDiffDialog;
class RunHistoryPanel;
class RunMonitor;
class ThresholdPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens an existing project; false (with a message box unless quiet) when it cannot.
    bool openProject(const QString& path, bool quiet = false);
    // Creates (or opens, when it exists) a project file and opens it.
    void newProject(const QString& path);
    // Save As: copies the open project (database and signature cache) to `path` on a worker,
    // then opens the copy. Refused (false, with a message unless quiet) while a run is going,
    // without a project, or while a copy is under way. projectSaved() reports the outcome.
    bool saveProjectAs(const QString& path, bool quiet = false);
    bool isSaving() const { return saving_; }
    // A non-modal dialog listing the documents run b removes that run a keeps, and back.
    RunDiffDialog* compareRuns(qint64 a, qint64 b);
    QString projectPath() const { return project_; }
    QStringList recentProjects() const;

    // Starts a run with the dataset and parameter panels' values; false when refused.
    bool startRun();
    // Non-modal export dialog for the selected run (nullptr when none is selected).
    ExportDialog* openExportDialog();

    // Calls `then` once no job is pending, no run is going and a first run (if any) has been
    // shown, or after `timeoutMs`.
    void whenSettled(std::function<void()> then, int timeoutMs = 30000);
    bool isSettled() const;

    RunHistoryPanel* history() const { return history_; }
    ParametersPanel* parameters() const { return parameters_; }
    DatasetPanel* dataset() const { return dataset_; }
    RunMonitor* monitor() const { return monitor_; }
    ClustersPanel* clusters() const { return clusters_; }
    BucketsPanel* buckets() const { return buckets_; }
    ThresholdPanel* threshold() const { return threshold_; }
    RunController* runController() const { return run_; }
    QTabWidget* tabs() const { return tabs_; }
    const RunInfo& currentRun() const { return runInfo_; }

  signals:
    void runsLoaded();
    void runShown(qint64 runId);
    // After Save As: ok and the new path, or not ok and why.
    void projectSaved(bool ok, const QString& pathOrError);

  private:
    void buildMenus();
    void newProjectDialog();
    void openProjectDialog();
    void saveAsDialog();
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    void refreshRuns(qint64 select);
    // What exports of the listed runs remove with the dataset's decisions, for the history.
    void refreshAuditedRemovals();
    void onCurrentRunChanged(qint64 runId);
    void onRunFinished(const QString& status, qint64 runId, const QString& message);
    void useRunParameters();
    // The run re-clustered at the threshold slider's value, recorded as a new run from its
    // stored pairs (core/run/recluster.h) through the run controller.
    void saveThresholdAsRun(qint64 runId, double threshold);
    void updateRunEnabled();
    void updateTitle();
    QDockWidget* dock(const QString& title, const QString& name, QWidget* widget,
                      Qt::DockWidgetArea area);

    JobQueue* queries_;
    JobQueue* background_;
    RunController* run_;
    QString project_;
    RunInfo runInfo_;
    bool loadParamsFromNextRun_ = false;
    int runSerial_ = 0;

    DatasetPanel* dataset_;
    ParametersPanel* parameters_;
    RunHistoryPanel* history_;
    RunMonitor* monitor_;
    ClustersPanel* clusters_;
    BucketsPanel* buckets_;
    ThresholdPanel* threshold_;
    QTabWidget* tabs_;
    QDockWidget* historyDock_ = nullptr;
    QDockWidget* monitorDock_ = nullptr;
    QDockWidget* parametersDock_ = nullptr;
    QDockWidget* datasetDock_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QAction* runAction_ = nullptr;
    QAction* cancelAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* saveAsAction_ = nullptr;
    bool saving_ = false;
    qint64 reselectRun_ = 0;
    QLabel* statusProject_ = nullptr;
    QLabel* statusBusy_ = nullptr;
    bool runShownOnce_ = false;
};

}  // namespace neardup::ui
