// MainWindow's Open Recent list: the projects that opened, newest first, kept in QSettings. A
// project is added only once its runs were listed, and a path that fails to open is dropped, so
// files that are not projects never push good ones out.
#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

#include "mainwindow.h"
#include "startpage.h"

namespace neardup::ui {

namespace {

const QString kRecentKey = QStringLiteral("recentProjects");
constexpr int kMaxRecent = 8;

}  // namespace

QStringList MainWindow::recentProjects() const {
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::rememberRecent(const QString& path) {
    QSettings settings;
    QStringList list = settings.value(kRecentKey).toStringList();
    const QString abs = QFileInfo(path).absoluteFilePath();
    list.removeAll(abs);
    list.prepend(abs);
    while (list.size() > kMaxRecent)
        list.removeLast();
    settings.setValue(kRecentKey, list);
    rebuildRecentMenu();
}

void MainWindow::forgetRecent(const QString& path) {
    QSettings settings;
    QStringList list = settings.value(kRecentKey).toStringList();
    if (list.removeAll(QFileInfo(path).absoluteFilePath()) == 0) return;
    settings.setValue(kRecentKey, list);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList list = recentProjects();
    for (const QString& p : list) {
        // The file name, with the folder elided: a long path never widens the menu past the
        // screen; the whole path is the tooltip.
        const QString folder =
            fontMetrics().elidedText(QFileInfo(p).absolutePath(), Qt::ElideMiddle, 480);
        QAction* a =
            recentMenu_->addAction(QFileInfo(p).fileName() + QStringLiteral("  \u2014  ") + folder,
                                   this, [this, p] { openProject(p); });
        a->setToolTip(p);
    }
    recentMenu_->setEnabled(!list.isEmpty());
    if (startPage_) startPage_->setRecentProjects(list);
}

}  // namespace neardup::ui
