// MainWindow when a project or a run did not go as planned: a file that fails to open as a
// project (the window goes back to the project it had), and the project's latest unfinished
// run, offered for Resume in a bar above the tabs and in the Run menu (as `neardup run
// --resume`: its inputs and parameters, the work it had done reused).
#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QStatusBar>
#include <QToolButton>

#include "datasetpanel.h"
#include "elidedlabel.h"
#include "input_pin.h"
#include "jobqueue.h"
#include "mainwindow.h"
#include "parameterspanel.h"
#include "runcontroller.h"

namespace neardup::ui {

QWidget* MainWindow::buildResumeBar() {
    resumeAction_ = new QAction(tr("Resume Interrupted Run"), this);
    resumeAction_->setObjectName(QStringLiteral("resumeAction"));
    resumeAction_->setEnabled(false);
    connect(resumeAction_, &QAction::triggered, this, [this] { resumeRun(); });
    resumeBar_ = new QWidget;
    resumeBar_->setObjectName(QStringLiteral("resumeBar"));
    resumeBar_->setAutoFillBackground(true);
    QPalette tint = resumeBar_->palette();
    tint.setColor(QPalette::Window, QColor(255, 243, 205));
    tint.setColor(QPalette::WindowText, QColor(90, 60, 0));
    resumeBar_->setPalette(tint);
    // Wrapped, never elided: the sentence is read whole, not cut in the middle of a word.
    resumeText_ = new QLabel;
    resumeText_->setObjectName(QStringLiteral("resumeText"));
    resumeText_->setWordWrap(true);
    resumeText_->setTextFormat(Qt::PlainText);
    auto* button = new QToolButton;
    button->setDefaultAction(resumeAction_);
    auto* layout = new QHBoxLayout(resumeBar_);
    layout->setContentsMargins(8, 3, 8, 3);
    layout->addWidget(resumeText_, 1);
    layout->addWidget(button);
    resumeBar_->hide();
    return resumeBar_;
}

void MainWindow::setResumable(const std::optional<ResumeRecord>& record) {
    resumableRun_ = record ? record->runId : 0;
    if (record) {
        resumeAction_->setText(tr("Resume run %1").arg(record->runId));
        QString why = QString::fromStdString(record->status);
        if (!record->error.empty())
            why += QStringLiteral(": ") + QString::fromStdString(record->error);
        const QString whole =
            tr("Run %1 did not finish (%2). Resume runs it again with its inputs and "
               "parameters, reusing the work it had done.")
                .arg(record->runId)
                .arg(why);
        // A long error (a path, a library's message) is cut at a word, whole in the tooltip.
        constexpr qsizetype kMaxWhy = 160;
        if (why.size() > kMaxWhy) {
            qsizetype cut = why.lastIndexOf(QLatin1Char(' '), kMaxWhy);
            if (cut < kMaxWhy / 2) cut = kMaxWhy;
            why = why.left(cut) + QStringLiteral(" \u2026");
        }
        resumeText_->setText(
            tr("Run %1 did not finish (%2). Resume runs it again with its inputs and "
               "parameters, reusing the work it had done.")
                .arg(record->runId)
                .arg(why));
        resumeText_->setToolTip(whole);
    } else {
        resumeAction_->setText(tr("Resume Interrupted Run"));
        resumeText_->clear();
        resumeText_->setToolTip(QString());
    }
    resumeBar_->setVisible(record.has_value());
    updateRunEnabled();
}

bool MainWindow::resumeRun() {
    if (!resumableRun_ || !document_->isOpen() || run_->isRunning() || saving_) return false;
    // How to run it comes from the panel (as the CLI's execution options); what it finds
    // comes from the unfinished run.
    const RunParams execution = parameters_->params();
    const QString project = document_->path();
    resumeAction_->setEnabled(false);
    document_->background()->submit<ResumeRecord>(
        this,
        [](JobContext& c) {
            const std::optional<ResumeRecord> record = findResumable(c.store());
            if (!record) throw std::runtime_error("nothing to resume in this project");
            // Offsets read by the unfinished run are reused only on the very files they came
            // from.
            try {
                const RunResult unfinished = c.reader().loadRun(record->runId);
                const DatasetRecord dataset = c.reader().loadDataset(unfinished.datasetId, nullptr);
                if (const std::string problem = pinProblem(dataset.files); !problem.empty())
                    throw std::runtime_error("cannot resume run " + std::to_string(record->runId) +
                                             ": " + problem);
            } catch (const StoreError&) {
                // No dataset yet: the run stopped before it had one.
            }
            return *record;
        },
        [this, execution, project](ResumeRecord record) {
            if (project != document_->path() || run_->isRunning()) return updateRunEnabled();
            RunRequest request;
            request.project = document_->path();
            request.params = record.params;
            request.params.threads = execution.threads;
            request.params.backend = execution.backend;
            request.params.workers = execution.workers;
            request.params.devices = execution.devices;
            request.params.maxRejected = execution.maxRejected;
            for (const std::string& input : record.inputs)
                request.inputs.push_back(input);
            request.references = record.references;
            request.resumes = record.runId;
            statusBar()->showMessage(tr("Resuming run %1\u2026").arg(record.runId), 10000);
            if (!run_->start(request)) updateRunEnabled();
        },
        [this](const QString& e) {
            updateRunEnabled();
            QMessageBox::warning(this, tr("Resume"), e);
        });
    return true;
}

void MainWindow::openFailed(const QString& path, const QString& why) {
    opening_ = false;
    const bool quiet = openingQuiet_;
    forgetRecent(path);
    const QString message = tr("Cannot open %1: %2").arg(path, why);
    const QString back = openedBefore_ == path ? QString() : openedBefore_;
    setResumable(std::nullopt);
    updateTitle();
    statusProject_->setText(tr("No project open"));
    updateRunEnabled();
    // Back to the project that was open, on the run it showed.
    reselectRun_ = shownBefore_;
    if (back.isEmpty() || !openProject(back, true)) {
        reselectRun_ = 0;
        runShownOnce_ = true;
    }
    if (quiet)
        statusBar()->showMessage(message, 15000);
    else
        QMessageBox::warning(this, tr("Open project"), message);
}

}  // namespace neardup::ui
