#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QScrollArea>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>
#include <utility>

#include "auditdialog.h"
#include "backend_factory.h"
#include "bucketspanel.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "datasetpanel.h"
#include "elidedlabel.h"
#include "exportdialog.h"
#include "jobqueue.h"
#include "numbertext.h"
#include "parameterspanel.h"
#include "runcontroller.h"
#include "runhistorydiff.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "runmonitor.h"
#include "thresholdpanel.h"
#include "windowlayout.h"

namespace neardup::ui {

namespace {

struct RunView {
    RunInfo info;
    DatasetRecord dataset;
};

// A project's runs and the unfinished one Resume would run again.
struct RunListing {
    std::vector<RunSummary> runs;
    std::optional<ResumeRecord> resumable;
};

// The run a project opens on: the latest that finished, else the latest (0: none). An
// interrupted latest run has no clusters or timings to show.
qint64 runToShowFirst(const std::vector<RunSummary>& runs) {
    for (auto it = runs.rbegin(); it != runs.rend(); ++it)
        if (it->status == "ok") return it->runId;
    return runs.empty() ? 0 : runs.back().runId;
}

// Why `path` cannot be a project, before anything opens it: missing, unreadable, or not a
// SQLite database (its header).
QString projectFileProblem(const QString& path) {
    const QFileInfo info(path);
    if (!info.isFile()) return QObject::tr("%1 does not exist.").arg(path);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QObject::tr("Cannot read %1: %2").arg(path, file.errorString());
    if (file.read(16) != QByteArray("SQLite format 3", 16))
        return QObject::tr("%1 is not a NearDup project.").arg(path);
    return {};
}

QString rejectionText(const DatasetRecord& d) {
    uint64_t rejected = 0;
    for (const auto& r : d.rejections)
        rejected += r.count;
    QString text = QObject::tr("Dataset %1: %2 files, %3 lines, %4 blank, %5 rejected")
                       .arg(d.id)
                       .arg(countText(d.files.size()), countText(d.linesRead),
                            countText(d.blankLines), countText(rejected));
    for (const auto& r : d.rejections)
        text += QObject::tr("\n  %1 \u00d7 %2, first at %3:%4")
                    .arg(countText(r.count), QString::fromStdString(r.reason))
                    .arg(QFileInfo(QString::fromStdString(r.firstFile)).fileName())
                    .arg(r.firstLine);
    return text;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      queries_(new JobQueue(QStringLiteral("neardup-queries"), this)),
      background_(new JobQueue(QStringLiteral("neardup-background"), this)),
      run_(new RunController(this)) {
    setObjectName(QStringLiteral("mainWindow"));
    dataset_ = new DatasetPanel(background_);
    parameters_ = new ParametersPanel(background_);
    history_ = new RunHistoryPanel;
    monitor_ = new RunMonitor(run_);
    clusters_ = new ClustersPanel(queries_);
    buckets_ = new BucketsPanel(queries_);
    threshold_ = new ThresholdPanel(background_);
    // An audit decision changes the counts at every threshold.
    connect(clusters_, &ClustersPanel::decisionsChanged, threshold_, &ThresholdPanel::refresh);
    connect(buckets_, &BucketsPanel::documentActivated, this, [this](quint32 doc) {
        tabs_->setCurrentWidget(clusters_);
        clusters_->showDocument(doc);
    });
    connect(clusters_, &ClustersPanel::decisionsChanged, this, &MainWindow::refreshAuditedRemovals);
    // The slider is the working threshold: the table, the parameters' θ (and its S-curve) and
    // Export follow it; "Save as run" records its result as a new run.
    connect(threshold_, &ThresholdPanel::reclustered, this, [this](const ReclusterResult& r) {
        if (r.runId != runInfo_.runId) return;
        // Only a move of the slider changes the working threshold; the counts of a run just
        // shown or refreshed after a decision leave the θ box as the user left it.
        const bool own = std::abs(r.threshold - runInfo_.params.compare.threshold) < 1e-9;
        const double shown = clusters_->model()->threshold();  // NaN: the run's own
        if (own ? std::isnan(shown) : shown == r.threshold) return;
        clusters_->setThreshold(r.threshold);
        parameters_->thresholdBox()->setValue(r.threshold);
    });
    connect(threshold_, &ThresholdPanel::saveAsRunRequested, this, &MainWindow::saveThresholdAsRun);

    tabs_ = new QTabWidget;
    tabs_->addTab(clusters_, tr("Clusters"));
    tabs_->addTab(buckets_, tr("Buckets"));
    // Long ids and messages never widen the window: the tabs scroll when they cannot shrink.
    auto* central = new QWidget;
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(buildResumeBar());
    centralLayout->addWidget(scrollable(tabs_), 1);
    setCentralWidget(buildStartPage(central));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    // At 1280x800 the comparison of two documents is the main stage: the whole width goes to
    // the clusters list and the two documents, and every other panel is a tab of the bottom
    // area (the threshold slider beside them), one click away.
    historyDock_ =
        dock(tr("Run history"), QStringLiteral("historyDock"), history_, Qt::BottomDockWidgetArea);
    auto* thresholdDock = dock(tr("Threshold"), QStringLiteral("thresholdDock"), threshold_,
                               Qt::BottomDockWidgetArea);
    splitDockWidget(historyDock_, thresholdDock, Qt::Horizontal);
    monitorDock_ =
        dock(tr("Run monitor"), QStringLiteral("monitorDock"), monitor_, Qt::BottomDockWidgetArea);
    parametersDock_ = dock(tr("Parameters"), QStringLiteral("parametersDock"), parameters_,
                           Qt::BottomDockWidgetArea);
    datasetDock_ =
        dock(tr("Dataset"), QStringLiteral("datasetDock"), dataset_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(historyDock_, monitorDock_);
    tabifyDockWidget(historyDock_, parametersDock_);
    tabifyDockWidget(historyDock_, datasetDock_);
    historyDock_->raise();
    resizeDocks({historyDock_}, {250}, Qt::Vertical);
    resizeDocks({historyDock_, thresholdDock}, {1000, 300}, Qt::Horizontal);

    statusProject_ = new ElidedLabel(tr("No project open"));
    statusProject_->setObjectName(QStringLiteral("projectStatus"));
    statusBusy_ = new QLabel;
    statusBar()->addWidget(statusProject_, 1);
    statusBar()->addPermanentWidget(statusBusy_);
    for (JobQueue* q : {queries_, background_})
        connect(q, &JobQueue::busyChanged, this, [this] {
            statusBusy_->setText(
                queries_->pending() + background_->pending() > 0 ? tr("working\u2026") : QString());
        });
    for (JobQueue* q : {queries_, background_})
        connect(q, &JobQueue::jobFailed, this,
                [this](const QString& e) { statusBar()->showMessage(e, 10000); });

    buildMenus();
    connect(history_, &RunHistoryPanel::currentRunChanged, this, &MainWindow::onCurrentRunChanged);
    connect(history_, &RunHistoryPanel::compareRequested, this,
            [this](qint64 a, qint64 b) { compareRuns(a, b); });
    connect(dataset_, &DatasetPanel::runRequested, this, [this] { startRun(); });
    connect(dataset_, &DatasetPanel::inputsChanged, this, &MainWindow::updateRunEnabled);
    connect(parameters_, &ParametersPanel::changed, this, &MainWindow::updateRunEnabled);
    connect(run_, &RunController::started, this, [this] {
        monitorDock_->raise();
        updateRunEnabled();
    });
    connect(run_, &RunController::finished, this, &MainWindow::onRunFinished);

    background_->submit<GpuInventory>(
        this, [](JobContext&) { return queryGpus(); },
        [this](GpuInventory inv) {
            QString text = tr("GPUs: %1").arg(QString::fromStdString(inv.status));
            for (const GpuDevice& d : inv.devices)
                text += tr("\n  %1: %2, %3 GiB")
                            .arg(d.index)
                            .arg(QString::fromStdString(d.name))
                            .arg(double(d.totalMemory) / double(1ull << 30), 0, 'f', 1);
            parameters_->setGpuInventory(text, inv.compiledIn && !inv.devices.empty());
        });
    updateTitle();
    updateRunEnabled();
    // The size the user left, else a generous one that the screen bounds.
    placeOnScreen(this, {1600, 1000});
    restoreWindowLayout(*this);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveWindowLayout(*this);
    QMainWindow::closeEvent(event);
}

MainWindow::~MainWindow() {
    // The run thread stops first: it may still be emitting into the panels.
    delete run_;
    run_ = nullptr;
}

QDockWidget* MainWindow::dock(const QString& title, const QString& name, QWidget* widget,
                              Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(scrollable(widget));
    addDockWidget(area, d);
    return d;
}

void MainWindow::newProjectDialog() {
    QString path = QFileDialog::getSaveFileName(this, tr("New project"), QString(),
                                                tr("NearDup projects (*.ndw)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QLatin1String(".ndw"))) path += QStringLiteral(".ndw");
    newProject(path);
}

void MainWindow::openProjectDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open project"), QString(), tr("NearDup projects (*.ndw);;All files (*)"));
    if (!path.isEmpty()) openProject(path);
}

RunDiffDialog* MainWindow::compareRuns(qint64 a, qint64 b) {
    if (project_.isEmpty() || !a || !b) return nullptr;
    auto* dialog = new RunDiffDialog(queries_, std::min(a, b), std::max(a, b), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

void MainWindow::newProject(const QString& path) {
    const std::string p = path.toStdString();
    background_->submit<bool>(
        this,
        [p](JobContext&) {
            ProjectStore store(p);  // creates the schema
            return true;
        },
        [this, path](bool) {
            // The inputs already added are for this project; its parameters are the defaults
            // (set once its runs are listed, when it has none).
            const QStringList inputs = dataset_->inputs(), references = dataset_->references();
            const QString text = dataset_->textField(), id = dataset_->idField();
            if (!openProject(path) || inputs.isEmpty()) return;
            dataset_->setInputs(inputs);
            dataset_->setReferences(references);
            dataset_->setFields(text, id);
        },
        [this](const QString& e) {
            QMessageBox::warning(this, tr("New project"),
                                 tr("Cannot create the project: %1").arg(e));
        });
}

bool MainWindow::openProject(const QString& path, bool quiet) {
    const QFileInfo info(path);
    if (const QString problem = projectFileProblem(path); !problem.isEmpty()) {
        forgetRecent(path);
        if (!quiet) QMessageBox::warning(this, tr("Open project"), problem);
        return false;
    }
    if (run_->isRunning() || saving_) {
        if (!quiet)
            QMessageBox::information(this, tr("Open project"),
                                     saving_
                                         ? tr("Wait for Save As to finish first.")
                                         : tr("Wait for the run to finish or cancel it first."));
        return false;
    }
    if (!opening_) {  // the project to go back to if this one fails to list its runs
        openedBefore_ = project_;
        shownBefore_ = runInfo_.runId;
    }
    opening_ = true;
    openingQuiet_ = quiet;
    project_ = info.absoluteFilePath();
    queries_->setProject(project_);
    background_->setProject(project_);
    setResumable(std::nullopt);
    runInfo_ = RunInfo{};
    runShownOnce_ = false;
    loadParamsFromNextRun_ = true;
    clusters_->clearRun();
    threshold_->setRun(RunInfo{});
    buckets_->setRun(RunInfo{});
    dataset_->setInputs({});
    dataset_->setReferences({});
    dataset_->setDatasetInfo(QString());
    updateTitle();
    updateRunEnabled();
    refreshRuns(std::exchange(reselectRun_, 0));
    return true;
}

bool MainWindow::closeProject(bool quiet) {
    if (project_.isEmpty()) return true;
    if (run_->isRunning() || saving_) {
        if (!quiet)
            QMessageBox::information(this, tr("Close project"),
                                     saving_
                                         ? tr("Wait for Save As to finish first.")
                                         : tr("Wait for the run to finish or cancel it first."));
        return false;
    }
    project_.clear();
    opening_ = false;
    queries_->setProject(QString());
    background_->setProject(QString());
    setResumable(std::nullopt);
    latestRun_.forget();  // a run still being read is not shown
    runInfo_ = RunInfo{};
    runShownOnce_ = false;
    clusters_->clearRun();
    threshold_->setRun(RunInfo{});
    buckets_->setRun(RunInfo{});
    history_->setRuns({}, 0);
    dataset_->setInputs({});
    dataset_->setReferences({});
    dataset_->setDatasetInfo(QString());
    statusProject_->setText(tr("No project open"));
    updateTitle();
    updateRunEnabled();
    return true;
}

void MainWindow::refreshRuns(qint64 select) {
    const QString project = project_;
    queries_->submit<RunListing>(
        this,
        [](JobContext& c) {
            // Runs of processes that died since the last look show as interrupted.
            c.store().recoverStaleRuns();
            RunListing listing;
            listing.runs = c.reader().listRuns();
            listing.resumable = findResumable(c.store());
            return listing;
        },
        [this, select, project](RunListing listing) {
            if (project != project_) return;
            const auto n = listing.runs.size();
            qint64 target = select;
            if (std::exchange(opening_, false)) {
                rememberRecent(project_);
                if (n == 0 && loadParamsFromNextRun_) {
                    // No run to take them from: the documented defaults, never the
                    // previous project's.
                    loadParamsFromNextRun_ = false;
                    parameters_->setParams(RunParams{});
                }
                if (!target) target = runToShowFirst(listing.runs);
            }
            setResumable(listing.resumable);
            history_->setRuns(std::move(listing.runs), target);
            statusProject_->setText(tr("%1 \u2014 %n run(s)", "", int(n)).arg(project_));
            if (n == 0) runShownOnce_ = true;  // nothing to wait for
            refreshAuditedRemovals();
            refreshAuditEstimates();
            emit runsLoaded();
        },
        [this, project](const QString& e) {
            if (project != project_) return;
            if (opening_) {
                openFailed(project, e);
                return;
            }
            QMessageBox::warning(this, tr("Open project"),
                                 tr("Cannot read the project: %1").arg(e));
        });
}

void MainWindow::onCurrentRunChanged(qint64 runId) {
    const LatestRequest::Ticket ticket = latestRun_.next();
    if (!runId) {
        runInfo_ = RunInfo{};
        clusters_->clearRun();
        buckets_->setRun(RunInfo{});
        threshold_->setRun(RunInfo{});
        return;
    }
    queries_->submit<RunView>(
        this, ticket,
        [runId](JobContext& c) {
            RunView v;
            v.info = c.queries().runInfo(runId);
            v.dataset = c.reader().loadDataset(v.info.datasetId, nullptr);
            return v;
        },
        [this](RunView v) {
            runInfo_ = v.info;
            clusters_->setRun(v.info);
            buckets_->setRun(v.info);
            threshold_->setRun(v.info);
            dataset_->setDatasetInfo(rejectionText(v.dataset));
            if (dataset_->inputs().isEmpty()) {
                // The dataset's first files are its reference, when the run had one.
                QStringList files, references;
                for (const auto& f : v.dataset.files)
                    (f.reference ? references : files) << QString::fromStdString(f.path);
                dataset_->setInputs(files);
                dataset_->setReferences(references);
                dataset_->setFields(QString::fromStdString(v.dataset.reader.textField),
                                    QString::fromStdString(v.dataset.reader.idField));
            }
            if (loadParamsFromNextRun_) {
                loadParamsFromNextRun_ = false;
                parameters_->setParams(v.info.params);
            }
            runShownOnce_ = true;
            updateRunEnabled();
            emit runShown(v.info.runId);
        });
}

void MainWindow::useRunParameters() {
    if (!runInfo_.runId) return;
    parameters_->setParams(runInfo_.params);
    dataset_->setFields(QString::fromStdString(runInfo_.params.reader.textField),
                        QString::fromStdString(runInfo_.params.reader.idField));
}

bool MainWindow::startRun() {
    if (project_.isEmpty() || dataset_->inputs().isEmpty() || run_->isRunning()) return false;
    // Also while bands and rows are still being chosen for a new threshold.
    if (!parameters_->isValid()) {
        statusBar()->showMessage(parameters_->validationMessage(), 10000);
        return false;
    }
    RunRequest request;
    request.project = project_;
    request.params = parameters_->params();
    request.params.reader.textField = dataset_->textField().toStdString();
    request.params.reader.idField = dataset_->idField().toStdString();
    if (const std::string problem = validate(request.params, ParametersPanel::parameterNames());
        !problem.empty()) {
        statusBar()->showMessage(QString::fromStdString(problem), 10000);
        return false;
    }
    for (const QString& in : dataset_->inputs())
        request.inputs.push_back(in.toStdString());
    for (const QString& ref : dataset_->references())
        request.references.push_back(ref.toStdString());
    return run_->start(request);
}

void MainWindow::onRunFinished(const QString& status, qint64 runId, const QString& message) {
    statusBar()->showMessage(message, 15000);
    updateRunEnabled();
    refreshRuns(status == QLatin1String("ok") ? runId : 0);
    if (status == QLatin1String("ok")) historyDock_->raise();
}

void MainWindow::updateRunEnabled() {
    QString why;
    if (project_.isEmpty())
        why = tr("Open or create a project first.");
    else if (dataset_->inputs().isEmpty())
        why = tr("Add input files first.");
    else if (run_ && run_->isRunning())
        why = tr("A run is in progress.");
    else if (saving_)
        why = tr("The project is being saved under a new name.");
    else if (!parameters_->isValid())
        why = parameters_->validationMessage();
    dataset_->setRunEnabled(why.isEmpty(), why);
    if (runAction_) runAction_->setEnabled(why.isEmpty());
    if (cancelAction_) cancelAction_->setEnabled(run_ && run_->isRunning());
    if (exportAction_) exportAction_->setEnabled(runInfo_.runId != 0);
    if (exportReportAction_) exportReportAction_->setEnabled(runInfo_.runId != 0);
    if (resumeAction_)
        resumeAction_->setEnabled(resumableRun_ != 0 && !project_.isEmpty() && !saving_ &&
                                  !(run_ && run_->isRunning()));
    if (saveAsAction_)
        saveAsAction_->setEnabled(!project_.isEmpty() && !saving_ && !(run_ && run_->isRunning()));
    if (closeAction_)
        closeAction_->setEnabled(!project_.isEmpty() && !saving_ && !(run_ && run_->isRunning()));
}

void MainWindow::updateTitle() {
    setWindowTitle(project_.isEmpty()
                       ? tr("NearDup Workbench")
                       : tr("%1 \u2014 NearDup Workbench").arg(QFileInfo(project_).fileName()));
    setWindowFilePath(project_);
    showStartPageWhenNoProject();
}

AuditDialog* MainWindow::openAuditDialog() {
    if (!runInfo_.runId) return nullptr;
    auto* dialog = new AuditDialog(queries_, runInfo_, this);
    // Drawn at the working threshold, as the table, counts and Export are, and still when the
    // slider moves while the dialog is open.
    dialog->setThreshold(threshold_->workingThreshold());
    connect(threshold_, &ThresholdPanel::reclustered, dialog,
            [this, dialog] { dialog->setThreshold(threshold_->workingThreshold()); });
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Verdicts applied as decisions reach the table, the slider and the history like a
    // decision made in the comparison view.
    connect(dialog, &AuditDialog::verdictsApplied, this, [this](bool recorded) {
        if (recorded) clusters_->reloadDecisions();
    });
    connect(dialog, &AuditDialog::verdictRecorded, clusters_,
            &ClustersPanel::refreshReviewProgress);
    connect(dialog, &AuditDialog::verdictRecorded, this, &MainWindow::refreshAuditEstimates);
    connect(dialog, &AuditDialog::sampleLoaded, this, &MainWindow::refreshAuditEstimates);
    dialog->show();
    return dialog;
}

ExportDialog* MainWindow::openExportDialog() {
    if (!runInfo_.runId) return nullptr;
    auto* dialog = new ExportDialog(background_, runInfo_.runId, this);
    dialog->setThreshold(threshold_->workingThreshold());
    dialog->setRunThreshold(runInfo_.params.compare.threshold);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setOutputDirectory(QFileInfo(project_).absolutePath());
    dialog->setProjectName(QFileInfo(project_).completeBaseName());
    dialog->show();
    return dialog;
}

bool MainWindow::isSettled() const {
    return queries_->pending() == 0 && background_->pending() == 0 && !run_->isRunning() &&
           !saving_ && (project_.isEmpty() || runShownOnce_);
}

void MainWindow::whenSettled(std::function<void()> then, int timeoutMs) {
    auto* timer = new QTimer(this);
    auto clock = std::make_shared<QElapsedTimer>();
    auto quietTicks = std::make_shared<int>(0);
    clock->start();
    timer->setInterval(100);
    connect(timer, &QTimer::timeout, this, [this, timer, clock, quietTicks, then, timeoutMs] {
        // Settled for several ticks in a row: chained jobs (run -> clusters -> comparison)
        // start one another, so one idle moment is not enough.
        *quietTicks = isSettled() ? *quietTicks + 1 : 0;
        if (*quietTicks >= 5 || clock->elapsed() > timeoutMs) {
            timer->stop();
            timer->deleteLater();
            then();
        }
    });
    timer->start();
}

}  // namespace neardup::ui
