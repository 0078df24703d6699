// MainWindow's File > Export Report…: the run shown as one self-contained HTML file, and on
// request its clusters as CSV beside it, written by core/report (the same function as `neardup
// report --clusters-csv`) on the background queue. A file that exists is replaced only after
// the user says so; an input that changed since the run read it is named, and the user may
// write the report without document texts instead.
#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

#include "exportdialog.h"
#include "jobqueue.h"
#include "mainwindow.h"
#include "numbertext.h"
#include "run_report.h"
#include "thresholdpanel.h"

namespace neardup::ui {

namespace {

struct ReportOutcome {
    bool ok = false;
    bool changedInput = false;  // texts could not be quoted: an input changed
    QString message;            // the error, or what was written
};

}  // namespace

void MainWindow::exportReportDialog() {
    if (!document_->currentRun().runId || !document_->isOpen()) return;
    const QFileInfo project(document_->path());
    const QString suggested =
        project.absoluteDir().filePath(QStringLiteral("%1-run-%2-report.html")
                                           .arg(project.completeBaseName())
                                           .arg(document_->currentRun().runId));
    // The question about an existing file is ours (exportReport), the same for every caller.
    // Qt's own dialog (not the platform's), so that it can hold the CSV check box.
    QFileDialog dialog(this, tr("Export report"), suggested, tr("HTML files (*.html)"));
    dialog.setObjectName(QStringLiteral("exportReportDialog"));
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setOptions(QFileDialog::DontConfirmOverwrite | QFileDialog::DontUseNativeDialog);
    auto* csv = new QCheckBox(
        tr("Also write the clusters as CSV beside the report (NAME-clusters.csv: one row per "
           "member, for a spreadsheet)"));
    csv->setObjectName(QStringLiteral("reportClustersCsv"));
    // Which θ the report shows, beside the working one when the slider moved it (Export follows
    // that one).
    auto* theta = new QLabel(thresholdNote(document_->currentRun().params.compare.threshold,
                                           document_->workingThreshold(), true));
    theta->setObjectName(QStringLiteral("reportThetaNote"));
    theta->setWordWrap(true);
    if (auto* grid = qobject_cast<QGridLayout*>(dialog.layout())) {
        grid->addWidget(theta, grid->rowCount(), 0, 1, grid->columnCount());
        grid->addWidget(csv, grid->rowCount(), 0, 1, grid->columnCount());
    }
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return;
    QString path = dialog.selectedFiles().front();
    if (!path.endsWith(QLatin1String(".html"), Qt::CaseInsensitive))
        path += QStringLiteral(".html");
    exportReport(path, csv->isChecked() ? clustersCsvBeside(path) : QString());
}

QString MainWindow::clustersCsvBeside(const QString& reportPath) {
    QString base = reportPath;
    if (base.endsWith(QLatin1String(".html"), Qt::CaseInsensitive)) base.chop(5);
    if (base.endsWith(QLatin1String("-report"))) base.chop(7);
    return base + QStringLiteral("-clusters.csv");
}

bool MainWindow::exportReport(const QString& path, const QString& clustersCsv) {
    if (!document_->currentRun().runId || !document_->isOpen()) return false;
    QStringList existing;
    for (const QString& file : {path, clustersCsv})
        if (!file.isEmpty() && QFileInfo::exists(file)) existing << QFileInfo(file).fileName();
    if (existing.isEmpty()) {
        writeReport(path, true, clustersCsv);
        return true;
    }
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Replace the report?"),
        tr("%1 already exist(s). Replace?").arg(existing.join(QStringLiteral(" and "))),
        QMessageBox::Yes | QMessageBox::No, this);
    box->setObjectName(QStringLiteral("confirmReportOverwrite"));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, path, clustersCsv] {
        if (box->clickedButton() == box->button(QMessageBox::Yes))
            writeReport(path, true, clustersCsv);
        else
            emit reportExported(false, tr("Not exported: %1 is left as it is.").arg(path));
    });
    box->open();
    return true;
}

void MainWindow::writeReport(const QString& path, bool withTexts, const QString& clustersCsv) {
    report::ReportOptions options;
    options.runId = document_->currentRun().runId;
    options.withTexts = withTexts;
    const std::string project = document_->path().toStdString();
    const std::string out = path.toStdString();
    const std::string csv = clustersCsv.toStdString();
    statusBar()->showMessage(
        tr("Writing the report of run %1\u2026").arg(document_->currentRun().runId));
    document_->background()->submit<ReportOutcome>(
        this,
        [project, out, csv, options](JobContext&) {
            ReportOutcome outcome;
            try {
                const report::ReportWritten w = report::writeRunReport(project, out, options, csv);
                outcome.ok = true;
                outcome.message = tr("Wrote the report of run %1 (%2 pairs shown) to %3")
                                      .arg(w.runId)
                                      .arg(countText(w.pairsShown))
                                      .arg(QString::fromStdString(out));
                if (!csv.empty())
                    outcome.message += tr(", its clusters (%1 rows) to %2")
                                           .arg(countText(w.csvRows))
                                           .arg(QString::fromStdString(csv));
            } catch (const report::ChangedInputError& e) {
                outcome.changedInput = true;
                outcome.message = QString::fromStdString(e.what());
            } catch (const std::exception& e) {
                outcome.message = QString::fromStdString(e.what());
            }
            return outcome;
        },
        [this, path, clustersCsv](ReportOutcome outcome) {
            statusBar()->showMessage(outcome.ok ? outcome.message : tr("Report not written"),
                                     10000);
            if (outcome.changedInput) {
                askReportWithoutTexts(path, outcome.message, clustersCsv);
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

void MainWindow::askReportWithoutTexts(const QString& path, const QString& why,
                                       const QString& clustersCsv) {
    auto* box = new QMessageBox(
        QMessageBox::Warning, tr("Export report"),
        tr("The report quotes duplicate pairs from the inputs, but %1. Write the report "
           "without document texts?")
            .arg(why),
        QMessageBox::Yes | QMessageBox::No, this);
    box->setObjectName(QStringLiteral("reportWithoutTexts"));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, path, why, clustersCsv] {
        if (box->clickedButton() == box->button(QMessageBox::Yes))
            writeReport(path, false, clustersCsv);
        else
            emit reportExported(false, why);
    });
    box->open();
}

}  // namespace neardup::ui
