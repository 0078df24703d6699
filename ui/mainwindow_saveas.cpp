// MainWindow's Save As: the open project (database and signature cache) copied on a worker with
// its progress in the status bar, then the copy opened on the run that was shown.
#include <QApplication>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPointer>
#include <QStatusBar>
#include <memory>

#include "jobqueue.h"
#include "mainwindow.h"
#include "project_copy.h"
#include "protected_files.h"
#include "runcontroller.h"

namespace neardup::ui {

void MainWindow::saveAsDialog() {
    if (!document_->isOpen()) return;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Save project as"), QFileInfo(document_->path()).absolutePath(),
        tr("NearDup projects (*.ndw)"), nullptr, QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty()) return;
    if (!path.endsWith(QLatin1String(".ndw"))) path += QStringLiteral(".ndw");
    saveAsChosen(path);
}

void MainWindow::saveAsChosen(const QString& path) {
    if (!QFileInfo::exists(path)) {
        saveProjectAs(path);
        return;
    }
    if (QFileInfo(path).absoluteFilePath() != document_->path() &&
        isProjectFile(path.toStdString())) {
        const QString why =
            tr("%1 is another NearDup project: Save As never replaces a project. Choose a new "
               "name.")
                .arg(path);
        auto* box = new QMessageBox(QMessageBox::Information, tr("Save project as"), why,
                                    QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("saveAsOntoProject"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        emit projectSaved(false, why);
        return;
    }
    auto* box = new QMessageBox(QMessageBox::Question, tr("Replace the file?"),
                                tr("%1 already exists. Replace it with a copy of the project?")
                                    .arg(QFileInfo(path).fileName()),
                                QMessageBox::Yes | QMessageBox::No, this);
    box->setObjectName(QStringLiteral("confirmSaveAsOverwrite"));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, path] {
        if (box->clickedButton() == box->button(QMessageBox::Yes))
            saveProjectAs(path);
        else
            emit projectSaved(false, tr("Not saved: %1 is left as it is.").arg(path));
    });
    box->open();
}

bool MainWindow::saveProjectAs(const QString& path, bool quiet) {
    QString refusal;
    if (!document_->isOpen())
        refusal = tr("No project is open.");
    else if (run_->isRunning())
        refusal = tr("A run is in progress: wait for it to finish or cancel it first.");
    else if (saving_)
        refusal = tr("A copy of the project is already being saved.");
    else if (QFileInfo(path).absoluteFilePath() == document_->path())
        refusal = tr("That is the open project itself.");
    if (!refusal.isEmpty()) {
        if (!quiet) QMessageBox::information(this, tr("Save project as"), refusal);
        emit projectSaved(false, refusal);
        return false;
    }
    saving_ = true;
    updateRunEnabled();
    const std::string from = document_->path().toStdString();
    const std::string to = QFileInfo(path).absoluteFilePath().toStdString();
    QPointer<MainWindow> self(this);
    auto lastShown = std::make_shared<QElapsedTimer>();
    lastShown->start();
    statusBar()->showMessage(tr("Saving a copy to %1\u2026").arg(path));
    document_->background()->submit<ProjectCopyResult>(
        this,
        [from, to, self, lastShown](JobContext&) {
            return copyProject(from, to, [&](uint64_t done, uint64_t total) {
                if (lastShown->elapsed() < 200 || total == 0) return;
                lastShown->restart();
                const int percent = int(100.0 * double(done) / double(total));
                QMetaObject::invokeMethod(
                    qApp,
                    [self, percent] {
                        if (self)
                            self->statusBar()->showMessage(
                                tr("Saving a copy\u2026 %1%").arg(percent));
                    },
                    Qt::QueuedConnection);
            });
        },
        [this, path](ProjectCopyResult r) {
            saving_ = false;
            reselectRun_ = document_->currentRun().runId;  // the copy shows the run that was shown
            statusBar()->showMessage(tr("Saved as %1 (%2 MB database, %n cached signature file(s))",
                                        "", int(r.sidecarFiles))
                                         .arg(path)
                                         .arg(double(r.databaseBytes) / 1e6, 0, 'f', 1),
                                     15000);
            if (openProject(path, true))
                emit projectSaved(true, document_->path());
            else
                emit projectSaved(false, tr("Saved as %1, but cannot open it.").arg(path));
        },
        [this, quiet](const QString& e) {
            saving_ = false;
            updateRunEnabled();
            statusBar()->clearMessage();
            if (!quiet)
                QMessageBox::warning(this, tr("Save project as"),
                                     tr("Cannot save the project: %1").arg(e));
            emit projectSaved(false, e);
        });
    return true;
}

}  // namespace neardup::ui
