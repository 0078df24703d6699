// MainWindow's menus: File, Run, View and Help, with the Help menu's user guide (installed or in
// the source tree) and the list of every key the workbench answers to.
#include <QAction>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

#include "mainwindow.h"
#include "runcontroller.h"
#include "runhistorypanel.h"

namespace neardup::ui {

namespace {

// The user guide's index: installed beside the executable (share/doc/neardup), else the
// source tree's docs/ when the workbench runs from its build tree. Empty when neither is there.
QString userGuidePath() {
    const QStringList candidates{
        QDir(QCoreApplication::applicationDirPath())
            .filePath(QStringLiteral("../share/doc/neardup/docs/README.md")),
        QStringLiteral(NEARDUP_DOCS_SOURCE_DIR "/README.md")};
    for (const QString& c : candidates)
        if (QFileInfo(c).isFile()) return QFileInfo(c).canonicalFilePath();
    return QString();
}

}  // namespace

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newAction =
        file->addAction(tr("&New Project\u2026"), this, &MainWindow::newProjectDialog);
    newAction->setShortcut(QKeySequence::New);
    QAction* openAction =
        file->addAction(tr("&Open Project\u2026"), this, &MainWindow::openProjectDialog);
    openAction->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    recentMenu_->setToolTipsVisible(true);
    saveAsAction_ = file->addAction(tr("Save Project &As\u2026"), this, &MainWindow::saveAsDialog);
    saveAsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    closeAction_ = file->addAction(tr("&Close Project"), this, [this] { closeProject(); });
    closeAction_->setObjectName(QStringLiteral("closeProjectAction"));
    closeAction_->setShortcut(QKeySequence::Close);
    file->addSeparator();
    exportAction_ = file->addAction(tr("&Export Run\u2026"), this, [this] { openExportDialog(); });
    exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportReportAction_ =
        file->addAction(tr("Export Re&port\u2026"), this, &MainWindow::exportReportDialog);
    exportReportAction_->setObjectName(QStringLiteral("exportReportAction"));
    exportReportAction_->setToolTip(
        tr("The run shown as one HTML file to share: parameters, counts, charts, the largest "
           "clusters, review progress and a sample of duplicate pairs with their text"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    runAction_ = run->addAction(tr("&Run"), this, [this] { startRun(); });
    runAction_->setShortcut(QKeySequence(Qt::Key_F5));
    cancelAction_ = run->addAction(tr("&Cancel"), run_, &RunController::cancel);
    cancelAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    run->addAction(resumeAction_);
    run->addSeparator();
    run->addAction(tr("Use the Selected Run's &Parameters"), this, &MainWindow::useRunParameters)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    run->addAction(tr("&Audit N Random Pairs\u2026"), this, [this] { openAuditDialog(); });
    run->addAction(tr("C&ompare the Two Selected Runs\u2026"), this, [this] {
        const QList<qint64> runs = history_->selectedRuns();
        if (runs.size() == 2)
            compareRuns(runs[0], runs[1]);
        else
            statusBar()->showMessage(
                tr("Select two runs in the run history (Ctrl+click) to compare them."), 8000);
    });

    viewMenu_ = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : findChildren<QDockWidget*>())
        viewMenu_->addAction(d->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(
            tr("&User Guide"), this,
            [this] {
                const QString guide = userGuidePath();
                if (guide.isEmpty() || !QDesktopServices::openUrl(QUrl::fromLocalFile(guide)))
                    QMessageBox::information(
                        this, tr("User Guide"),
                        tr("The user guide could not be opened. It is installed in "
                           "/usr/share/doc/neardup/docs/ (README.md is its index) and is in the "
                           "docs/ folder of the source tree."));
            })
        ->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] { showKeyboardShortcuts(); })
        ->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    help->addAction(tr("&About"), this, [this] {
        QMessageBox::about(this, tr("About NearDup Workbench"),
                           tr("<b>NearDup Workbench %1</b><p>Near-duplicate detection with "
                              "MinHash-LSH: tune, audit, export.</p>")
                               .arg(QStringLiteral(NEARDUP_VERSION)));
    });
    rebuildRecentMenu();
}

QDialog* MainWindow::showKeyboardShortcuts() {
    struct Key {
        QString keys, what;
    };
    const QList<Key> keys{
        {tr("Y"), tr("Confirm duplicate, next pair")},
        {tr("N"), tr("Not a duplicate, next pair")},
        {tr("K"), tr("Keep the removed one of the pair instead, next pair")},
        {tr("Alt+Down / Alt+Up"), tr("Next / previous pair, across clusters")},
        {tr("Alt+N"), tr("Not a duplicate, stay on the pair")},
        {tr("Alt+Left / Alt+Right"), tr("Keep the left / right document instead")},
        {tr("Alt+K"), tr("Keep all members of the cluster")},
        {tr("Ctrl+Z"), tr("Undo the latest decision")},
        {QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText),
         tr("Search the clusters")},
        {tr("D / N / U, Left / Right"),
         tr("Audit dialog: duplicate / not / unsure; previous / next pair")},
        {tr("Left / Right, Page Up / Page Down"), tr("Threshold slider: \u03b8 by 0.01 / by 0.05")},
        {tr("F5 / Shift+F5"), tr("Run / cancel the run")},
        {tr("Ctrl+L"), tr("Use the selected run's parameters")},
        {tr("Ctrl+E"), tr("Export the run")},
        {QKeySequence(QKeySequence::New).toString(QKeySequence::NativeText), tr("New project")},
        {QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText), tr("Open project")},
        {QKeySequence(QKeySequence::Close).toString(QKeySequence::NativeText), tr("Close project")},
        {tr("Ctrl+Shift+S"), tr("Save project as")},
        {QKeySequence(QKeySequence::HelpContents).toString(QKeySequence::NativeText),
         tr("User guide")},
    };
    auto* dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("keyboardShortcuts"));
    dialog->setWindowTitle(tr("Keyboard Shortcuts"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* table = new QTableWidget(int(keys.size()), 2, dialog);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Does")});
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    for (int i = 0; i < int(keys.size()); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(keys[i].keys));
        table->setItem(i, 1, new QTableWidgetItem(keys[i].what));
    }
    table->resizeColumnsToContents();
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(
        new QLabel(tr("The review keys work while the Clusters tab is shown and no "
                      "text box has the focus.")));
    layout->addWidget(table);
    dialog->resize(620, 520);
    dialog->show();
    return dialog;
}

}  // namespace neardup::ui
