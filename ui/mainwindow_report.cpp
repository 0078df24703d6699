// MainWindow's File > Export Report…: the run shown as one self-contained HTML file, written by
// core/report (the same function as `neardup report`) on the background queue. A file that
// exists is replaced only after the user says so; an input that changed since the run read it
// is named, and the user may write the report without document texts instead.
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

#include "jobqueue.h"
#include "mainwindow.h"
#include "run_report.h"

namespace neardup::ui {

namespace {

struct ReportOutcome {
    bool ok = false;
    bool changedInput = false;  // texts could not be quoted: an input changed
    QString message;            // the error, or what was written
};

}  // namespace

void MainWindow::exportReportDialog() {
    if (!runInfo_.runId || project_.isEmpty()) return;
    const QFileInfo project(project_);
    const QString suggested = project.absoluteDir().filePath(QStringLiteral("%1-run-%2-report.html")
                                                                 .arg(project.completeBaseName())
                                                                 .arg(runInfo_.runId));
    // The question about an existing file is ours (exportReport), the same for every caller.
    QString path = QFileDialog::getSaveFileName(this, tr("Export report"), suggested,
                                                tr("HTML files (*.html)"), nullptr,
                                                QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty()) return;
    if (!path.endsWith(QLatin1String(".html"), Qt::CaseInsensitive))
        path += QStringLiteral(".html");
    exportReport(path);
}

bool MainWindow::exportReport(const QString& path) {
    if (!runInfo_.runId || project_.isEmpty()) return false;
    if (!QFileInfo::exists(path)) {
        writeReport(path, true);
        return true;
    }
    auto* box =
        new QMessageBox(QMessageBox::Question, tr("Replace the report?"),
                        tr("%1 already exists. Replace it?").arg(QFileInfo(path).fileName()),
                        QMessageBox::Yes | QMessageBox::No, this);
    box->setObjectName(QStringLiteral("confirmReportOverwrite"));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, path] {
        if (box->clickedButton() == box->button(QMessageBox::Yes))
            writeReport(path, true);
        else
            emit reportExported(false, tr("Not exported: %1 is left as it is.").arg(path));
    });
    box->open();
    return true;
}

void MainWindow::writeReport(const QString& path, bool withTexts) {
    report::ReportOptions options;
    options.runId = runInfo_.runId;
    options.withTexts = withTexts;
    const std::string project = project_.toStdString();
    const std::string out = path.toStdString();
    statusBar()->showMessage(tr("Writing the report of run %1\u2026").arg(runInfo_.runId));
    background_->submit<ReportOutcome>(
        this,
        [project, out, options](JobContext&) {
            ReportOutcome outcome;
            try {
                const report::ReportWritten w = report::writeRunReport(project, out, options);
                outcome.ok = true;
                outcome.message = tr("Wrote the report of run %1 (%2 pairs shown) to %3")
                                      .arg(w.runId)
                                      .arg(w.pairsShown)
                                      .arg(QString::fromStdString(out));
            } catch (const report::ChangedInputError& e) {
                outcome.changedInput = true;
                outcome.message = QString::fromStdString(e.what());
            } catch (const std::exception& e) {
                outcome.message = QString::fromStdString(e.what());
            }
            return outcome;
        },
        [this, path](ReportOutcome outcome) {
            statusBar()->showMessage(outcome.ok ? outcome.message : tr("Report not written"),
                                     10000);
            if (outcome.changedInput) {
                askReportWithoutTexts(path, outcome.message);
                return;
            }
            if (!outcome.ok) {  // told without blocking the window, as the questions are
                auto* box = new QMessageBox(QMessageBox::Warning, tr("Export report"),
                                            outcome.message, QMessageBox::Ok, this);
                box->setObjectName(QStringLiteral("reportFailed"));
                box->setAttribute(Qt::WA_DeleteOnClose);
                box->open();
            }
            emit reportExported(outcome.ok, outcome.ok ? path : outcome.message);
        });
}

void MainWindow::askReportWithoutTexts(const QString& path, const QString& why) {
    auto* box = new QMessageBox(
        QMessageBox::Warning, tr("Export report"),
        tr("The report quotes duplicate pairs from the inputs, but %1. Write the report "
           "without document texts?")
            .arg(why),
        QMessageBox::Yes | QMessageBox::No, this);
    box->setObjectName(QStringLiteral("reportWithoutTexts"));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, path, why] {
        if (box->clickedButton() == box->button(QMessageBox::Yes))
            writeReport(path, false);
        else
            emit reportExported(false, why);
    });
    box->open();
}

}  // namespace neardup::ui
