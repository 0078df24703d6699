// MainWindow's start page (shown while no project is open) and "Open the sample": the bundled
// sample corpus copied to a folder of the user's, a project made beside it and run once with
// the default parameters.
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStandardPaths>
#include <memory>

#include "datasetpanel.h"
#include "mainwindow.h"
#include "parameterspanel.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "startpage.h"

namespace neardup::ui {

QWidget* MainWindow::buildStartPage(QWidget* workArea) {
    startPage_ = new StartPage;
    connect(startPage_, &StartPage::newProjectRequested, this, &MainWindow::newProjectDialog);
    connect(startPage_, &StartPage::openProjectRequested, this, &MainWindow::openProjectDialog);
    connect(startPage_, &StartPage::recentChosen, this, [this](const QString& path) {
        // A click and an activation of one item open it once.
        if (QFileInfo(path).absoluteFilePath() != document_->path()) openProject(path);
    });
    connect(startPage_, &StartPage::sampleRequested, this, [this] { openSample(); });
    pages_ = new QStackedWidget;
    pages_->addWidget(startPage_);
    pages_->addWidget(workArea);
    return pages_;
}

void MainWindow::showStartPageWhenNoProject() {
    if (!pages_) return;
    pages_->setCurrentIndex(document_->isOpen() ? 1 : 0);
}

bool MainWindow::openSample(const QString& folder) {
    const QString dir =
        folder.isEmpty() ? QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                               .filePath(QStringLiteral("sample"))
                         : folder;
    const QString corpus = writeSampleCorpus(dir);
    if (corpus.isEmpty()) {
        QMessageBox::warning(this, tr("Open the sample"),
                             tr("Cannot write the sample to %1.").arg(dir));
        return false;
    }
    const QString project = QDir(dir).filePath(QStringLiteral("sample.ndw"));
    if (QFileInfo::exists(project)) return openProject(project);
    // A new project of the sample with the default parameters, run once its (empty) run
    // history is listed.
    dataset_->setInputs({corpus});
    dataset_->setFields(QStringLiteral("text"), QStringLiteral("id"));
    const QString projectPath = QFileInfo(project).absoluteFilePath();
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = connect(this, &MainWindow::runsLoaded, this, [this, once, projectPath] {
        if (document_->path() != projectPath) return;
        disconnect(*once);
        if (history_->model()->rowCount() == 0) startRun();
    });
    newProject(project);
    return true;
}

}  // namespace neardup::ui
