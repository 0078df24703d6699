// The workbench window: wiring only. The open project is one ProjectDocument that every panel
// (dock or tab) observes; the window creates, lays out and wires them, and keeps the commands
// (menus, dialogs, runs, Save As, reports). Database work runs on the document's job queues, the
// pipeline on the run controller's thread.
#pragma once

#include <QMainWindow>
#include <functional>
#include <optional>

#include "jobqueue.h"
#include "project_queries.h"
#include "projectdocument.h"
#include "run_lock.h"

class QAction;
class QDialog;
class QDockWidget;
class QLabel;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace neardup::ui {

class BucketsPanel;
class ClustersPanel;
class DatasetPanel;
class ElidedLabel;
class AuditDialog;
class ExportDialog;
class JobQueue;
class ParametersPanel;
class StartPage;
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

    // Opens an existing project; false (with a message box unless quiet) when it cannot. A
    // file that turns out not to be a project once read goes back to the project open before
    // (message box unless quiet); only projects that opened go into Open Recent.
    bool openProject(const QString& path, bool quiet = false);
    // Creates (or opens, when it exists) a project file and opens it, keeping the inputs
    // already added; a project without runs starts from the default parameters.
    void newProject(const QString& path);
    // Save As: copies the open project (database and signature cache) to `path` on a worker,
    // then opens the copy. Refused (false, with a message unless quiet) while a run is going,
    // without a project, or while a copy is under way. projectSaved() reports the outcome.
    bool saveProjectAs(const QString& path, bool quiet = false);
    // The Save As dialog's choice: onto another NearDup project it is refused with a message
    // (saveAsOntoProject) before anything is asked, Save As never replaces a project; onto any
    // other existing file it asks first (confirmSaveAsOverwrite); then saveProjectAs. The
    // question is ours, not the file dialog's, so that it is asked of the name with .ndw added.
    void saveAsChosen(const QString& path);
    bool isSaving() const { return saving_; }
    // File ▸ Close Project: back to the start page with no project open; refused (false, with a
    // message unless quiet) while a run or Save As is going.
    bool closeProject(bool quiet = false);
    // Help ▸ Keyboard Shortcuts: a non-modal list of every key the workbench answers to.
    QDialog* showKeyboardShortcuts();
    // A non-modal dialog listing the documents run b removes that run a keeps, and back.
    RunDiffDialog* compareRuns(qint64 a, qint64 b);
    QString projectPath() const { return document_->path(); }
    QStringList recentProjects() const;

    // Starts a run with the dataset and parameter panels' values; false when refused.
    bool startRun();
    // Non-modal export dialog for the selected run (nullptr when none is selected).
    ExportDialog* openExportDialog();
    // File ▸ Export Report…: writes the run shown as one HTML file (core/report, as `neardup
    // report`) on the background queue; asks first when `path` exists, and offers a report
    // without document texts when an input changed. reportExported() tells the outcome. False
    // when no run is shown.
    // With `clustersCsv`, the run's clusters are written there too (core/report/cluster_csv.h),
    // and the question names whichever of the two files exists.
    bool exportReport(const QString& path, const QString& clustersCsv = {});
    // The clusters CSV the Export Report dialog proposes beside `reportPath`:
    // "P-run-1-report.html" gives "P-run-1-clusters.csv".
    static QString clustersCsvBeside(const QString& reportPath);
    // Run ▸ Audit N Random Pairs…: the sampled audit of the run shown (nullptr when none).
    AuditDialog* openAuditDialog();
    // Runs the project's latest unfinished run again with its inputs and parameters (as
    // `neardup run --resume`); false when there is none or a run is going.
    bool resumeRun();
    // Makes a project of the bundled sample in `folder` (default: the user's application data)
    // and runs it with the default parameters; opens it when it exists already.
    bool openSample(const QString& folder = {});
    StartPage* startPage() const { return startPage_; }
    // "Resume run N", enabled while the project has an unfinished run to resume.
    QAction* resumeAction() const { return resumeAction_; }

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
    ProjectDocument* document() const { return document_; }
    const RunInfo& currentRun() const { return document_->currentRun(); }

  signals:
    void runsLoaded();
    void runShown(qint64 runId);
    // After Save As: ok and the new path, or not ok and why.
    void projectSaved(bool ok, const QString& pathOrError);
    // After Export Report: ok and the file written, or not ok and why (refused, failed, or
    // the user kept an existing file).
    void reportExported(bool ok, const QString& pathOrError);

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    void buildMenus();
    QWidget* buildResumeBar();
    QWidget* buildStartPage(QWidget* workArea);
    void showStartPageWhenNoProject();
    void setResumable(const std::optional<ResumeRecord>& record);
    void openFailed(const QString& path, const QString& why);
    void forgetRecent(const QString& path);
    void newProjectDialog();
    void openProjectDialog();
    void saveAsDialog();
    void exportReportDialog();
    void writeReport(const QString& path, bool withTexts, const QString& clustersCsv);
    void askReportWithoutTexts(const QString& path, const QString& why, const QString& clustersCsv);
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    void observeDocument();
    void onRunFinished(const QString& status, qint64 runId, const QString& message);
    void useRunParameters();
    // The run re-clustered at the threshold slider's value, recorded as a new run from its
    // stored pairs (core/run/recluster.h) through the run controller.
    void saveThresholdAsRun(qint64 runId, double threshold);
    void updateRunEnabled();
    void updateTitle();
    QDockWidget* dock(const QString& title, const QString& name, QWidget* widget,
                      Qt::DockWidgetArea area);

    ProjectDocument* document_;
    RunController* run_;

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
    QAction* exportReportAction_ = nullptr;
    QAction* saveAsAction_ = nullptr;
    QAction* closeAction_ = nullptr;
    bool saving_ = false;
    qint64 reselectRun_ = 0;
    ElidedLabel* statusProject_ = nullptr;
    QLabel* statusBusy_ = nullptr;
    bool runShownOnce_ = false;
    // While a project's first listing of runs is pending: where to go back if it fails.
    bool opening_ = false;
    bool openingQuiet_ = false;
    QString openedBefore_;
    qint64 shownBefore_ = 0;
    // The unfinished run that Resume runs again (0: none).
    qint64 resumableRun_ = 0;
    QAction* resumeAction_ = nullptr;
    QWidget* resumeBar_ = nullptr;
    QLabel* resumeText_ = nullptr;
    StartPage* startPage_ = nullptr;
    QStackedWidget* pages_ = nullptr;
};

}  // namespace neardup::ui
