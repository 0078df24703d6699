#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDockWidget>
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
#include <utility>

#include "auditdialog.h"
#include "backend_factory.h"
#include "bucketspanel.h"
#include "clusterspanel.h"
#include "datasetpanel.h"
#include "elidedlabel.h"
#include "exportdialog.h"
#include "jobqueue.h"
#include "parameterspanel.h"
#include "projectdocument.h"
#include "runcontroller.h"
#include "runhistorydiff.h"
#include "runhistorypanel.h"
#include "runmonitor.h"
#include "thresholdpanel.h"
#include "windowlayout.h"

namespace neardup::ui {

namespace {

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

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), document_(new ProjectDocument(this)), run_(new RunController(this)) {
    setObjectName(QStringLiteral("mainWindow"));
    // Each panel observes the document: the project, its runs, the working run and threshold.
    dataset_ = new DatasetPanel(document_);
    parameters_ = new ParametersPanel(document_);
    history_ = new RunHistoryPanel(document_);
    monitor_ = new RunMonitor(run_);
    clusters_ = new ClustersPanel(document_);
    buckets_ = new BucketsPanel(document_);
    threshold_ = new ThresholdPanel(document_);
    connect(buckets_, &BucketsPanel::documentActivated, this, [this](quint32 doc) {
        tabs_->setCurrentWidget(clusters_);
        clusters_->showDocument(doc);
    });
    // "Save as run" records the slider's result as a new run.
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
    for (JobQueue* q : {document_->queries(), document_->background()})
        connect(q, &JobQueue::busyChanged, this, [this] {
            statusBusy_->setText(
                document_->queries()->pending() + document_->background()->pending() > 0
                    ? tr("working\u2026")
                    : QString());
        });
    for (JobQueue* q : {document_->queries(), document_->background()})
        connect(q, &JobQueue::jobFailed, this,
                [this](const QString& e) { statusBar()->showMessage(e, 10000); });

    buildMenus();
    observeDocument();
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

    document_->background()->submit<GpuInventory>(
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
    if (!document_->isOpen() || !a || !b) return nullptr;
    auto* dialog = new RunDiffDialog(document_->queries(), std::min(a, b), std::max(a, b), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

void MainWindow::newProject(const QString& path) {
    const std::string p = path.toStdString();
    document_->background()->submit<bool>(
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
        openedBefore_ = document_->path();
        shownBefore_ = document_->currentRun().runId;
    }
    opening_ = true;
    openingQuiet_ = quiet;
    setResumable(std::nullopt);
    runShownOnce_ = false;
    document_->open(info.absoluteFilePath(), std::exchange(reselectRun_, 0));
    updateTitle();
    updateRunEnabled();
    return true;
}

bool MainWindow::closeProject(bool quiet) {
    if (!document_->isOpen()) return true;
    if (run_->isRunning() || saving_) {
        if (!quiet)
            QMessageBox::information(this, tr("Close project"),
                                     saving_
                                         ? tr("Wait for Save As to finish first.")
                                         : tr("Wait for the run to finish or cancel it first."));
        return false;
    }
    opening_ = false;
    setResumable(std::nullopt);
    runShownOnce_ = false;
    document_->close();
    statusProject_->setText(tr("No project open"));
    updateTitle();
    updateRunEnabled();
    return true;
}

// The window's own part in the document's changes: Open Recent, Resume, the status line and the
// actions that need a project or a run. The panels observe the document themselves.
void MainWindow::observeDocument() {
    connect(document_, &ProjectDocument::runsChanged, this,
            [this](const std::vector<RunSummary>& runs) {
                if (std::exchange(opening_, false)) rememberRecent(document_->path());
                setResumable(document_->resumable());
                statusProject_->setText(
                    tr("%1 \u2014 %n run(s)", "", int(runs.size())).arg(document_->path()));
                if (runs.empty()) runShownOnce_ = true;  // nothing to wait for
                emit runsLoaded();
            });
    connect(document_, &ProjectDocument::currentRunChanged, this, [this](const RunInfo& run) {
        updateRunEnabled();
        if (!run.runId) return;
        runShownOnce_ = true;
        emit runShown(run.runId);
    });
    connect(document_, &ProjectDocument::openFailed, this, &MainWindow::openFailed);
    connect(document_, &ProjectDocument::readFailed, this, [this](const QString& e) {
        QMessageBox::warning(this, tr("Open project"), tr("Cannot read the project: %1").arg(e));
    });
}

void MainWindow::useRunParameters() {
    const RunInfo& run = document_->currentRun();
    if (!run.runId) return;
    parameters_->setParams(run.params);
    dataset_->setFields(QString::fromStdString(run.params.reader.textField),
                        QString::fromStdString(run.params.reader.idField));
}

bool MainWindow::startRun() {
    if (!document_->isOpen() || dataset_->inputs().isEmpty() || run_->isRunning()) return false;
    // Also while bands and rows are still being chosen for a new threshold.
    if (!parameters_->isValid()) {
        statusBar()->showMessage(parameters_->validationMessage(), 10000);
        return false;
    }
    RunRequest request;
    request.project = document_->path();
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
    document_->reloadRuns(status == QLatin1String("ok") ? runId : 0);
    if (status == QLatin1String("ok")) historyDock_->raise();
}

void MainWindow::updateRunEnabled() {
    const bool open = document_->isOpen(), shown = document_->currentRun().runId != 0;
    QString why;
    if (!open)
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
    if (exportAction_) exportAction_->setEnabled(shown);
    if (exportReportAction_) exportReportAction_->setEnabled(shown);
    if (resumeAction_)
        resumeAction_->setEnabled(resumableRun_ != 0 && open && !saving_ &&
                                  !(run_ && run_->isRunning()));
    if (saveAsAction_) saveAsAction_->setEnabled(open && !saving_ && !(run_ && run_->isRunning()));
    if (closeAction_) closeAction_->setEnabled(open && !saving_ && !(run_ && run_->isRunning()));
}

void MainWindow::updateTitle() {
    const QString project = document_->path();
    setWindowTitle(project.isEmpty()
                       ? tr("NearDup Workbench")
                       : tr("%1 \u2014 NearDup Workbench").arg(QFileInfo(project).fileName()));
    setWindowFilePath(project);
    showStartPageWhenNoProject();
}

AuditDialog* MainWindow::openAuditDialog() {
    if (!document_->currentRun().runId) return nullptr;
    auto* dialog = new AuditDialog(document_->queries(), document_->currentRun(), this);
    // Drawn at the document's working threshold, the one whose clusters the table shows (the
    // slider runs ahead of it while it re-clusters), and still when it moves while the dialog is
    // open.
    dialog->setThreshold(document_->workingThreshold());
    connect(document_, &ProjectDocument::thresholdChanged, dialog,
            [this, dialog] { dialog->setThreshold(document_->workingThreshold()); });
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Verdicts applied as decisions reach the table, the slider and the history like a
    // decision made in the comparison view.
    connect(dialog, &AuditDialog::verdictsApplied, this, [this](bool recorded) {
        if (recorded) clusters_->reloadDecisions();
    });
    // A sample drawn or a verdict recorded: the review progress and the history's precision.
    connect(dialog, &AuditDialog::verdictRecorded, document_, &ProjectDocument::noteAuditChanged);
    connect(dialog, &AuditDialog::sampleLoaded, document_, &ProjectDocument::noteAuditChanged);
    dialog->show();
    return dialog;
}

ExportDialog* MainWindow::openExportDialog() {
    const RunInfo& run = document_->currentRun();
    if (!run.runId) return nullptr;
    auto* dialog = new ExportDialog(document_->background(), run.runId, this);
    // Exports the clusters the table shows: at the document's working threshold, as the audit.
    dialog->setThreshold(document_->workingThreshold());
    connect(document_, &ProjectDocument::thresholdChanged, dialog,
            [this, dialog] { dialog->setThreshold(document_->workingThreshold()); });
    dialog->setRunThreshold(run.params.compare.threshold);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setOutputDirectory(QFileInfo(document_->path()).absolutePath());
    dialog->setProjectName(QFileInfo(document_->path()).completeBaseName());
    dialog->show();
    return dialog;
}

bool MainWindow::isSettled() const {
    return document_->queries()->pending() == 0 && document_->background()->pending() == 0 &&
           !run_->isRunning() && !saving_ && (!document_->isOpen() || runShownOnce_);
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
