// The workbench window on a 1280x800 screen, offscreen: it opens within the screen, and a project
// whose document ids and input paths are very long, an audit decision, a finished run and a
// failed run with a long message neither raise its minimum size past the screen nor grow it
// (long labels are elided, their full text in tooltips). Its geometry and dock layout are saved
// on close and restored by the next window (settings in a temporary folder).
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include "clusterspanel.h"
#include "comparisonview.h"
#include "datasetpanel.h"
#include "mainwindow.h"
#include "runcontroller.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "runmonitor.h"
#include "ui_window_fixture.h"

using namespace neardup;
using namespace neardup::ui;
using namespace uiwindow;

namespace {

// The window's own minimum (its layout's, menus and status bar included) and its frame fit
// the small screen, and it has not grown since `size`.
QString fitProblem(const MainWindow& w, const QSize& size) {
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
    if (min.width() > kSmallScreen.width() || min.height() > kSmallScreen.height())
        return QStringLiteral("minimum size %1x%2").arg(min.width()).arg(min.height());
    if (w.size() != size)
        return QStringLiteral("grew from %1x%2 to %3x%4")
            .arg(size.width())
            .arg(size.height())
            .arg(w.size().width())
            .arg(w.size().height());
    return {};
}

}  // namespace

class TestUiWindowFit : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_, corpus_, longFolder_;

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        isolateSettings(dir_.filePath(QStringLiteral("settings")), "test_ui_window_fit");
        // Paths and ids of a few hundred characters, as deep crawl folders and URLs give.
        longFolder_ = dir_.filePath(QString(120, QLatin1Char('f')));
        QVERIFY(QDir().mkpath(longFolder_));
        corpus_ = longFolder_ + QStringLiteral("/") + QString(100, QLatin1Char('c')) +
                  QStringLiteral(".jsonl");
        writeLongIdCorpus(corpus_, 400, 5, 320);
        project_ = longFolder_ + QStringLiteral("/") + QString(90, QLatin1Char('p')) +
                   QStringLiteral(".ndw");
        const QString problem =
            cliRun(project_, {corpus_}, {QStringLiteral("--threshold"), QStringLiteral("0.7")});
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The test runs on a screen of the smallest size the workbench supports.
    void theScreenIsSmall() {
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), kSmallScreen);
    }

    void opensWithinTheScreen() {
        QSettings().clear();  // no saved geometry: the first start
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QRect screen = w.screen()->availableGeometry();
        QVERIFY2(screen.contains(w.frameGeometry()),
                 qPrintable(QStringLiteral("frame %1x%2 on a %3x%4 screen")
                                .arg(w.frameGeometry().width())
                                .arg(w.frameGeometry().height())
                                .arg(screen.width())
                                .arg(screen.height())));
        const QString problem = fitProblem(w, w.size());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void longIdsDecisionsAndRunsNeverGrowTheWindow() {
        QSettings().clear();
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QSize size = w.size();
        QVERIFY(w.openProject(project_, true));
        QVERIFY(settle(w));
        ComparisonView* cmp = w.clusters()->comparison();
        QTRY_VERIFY(cmp->hasComparison());
        QString problem = fitProblem(w, size);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("project opened: ") + problem));
        // The long ids are shortened on screen, whole in the tooltips.
        QLabel* header = cmp->findChild<QLabel*>(QStringLiteral("leftHeader"));
        QVERIFY(header);
        QVERIFY(header->toolTip().contains(QString(200, QLatin1Char('a'))));
        QLabel* status = w.statusBar()->findChild<QLabel*>(QStringLiteral("projectStatus"));
        QVERIFY(status);
        QVERIFY(status->toolTip().contains(project_));

        QSignalSpy decided(w.clusters(), &ClustersPanel::decisionsChanged);
        QTest::mouseClick(cmp->notDuplicateButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        QVERIFY(settle(w));
        problem = fitProblem(w, size);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("decision made: ") + problem));

        QSignalSpy finished(w.runController(), &RunController::finished);
        QVERIFY(w.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(finished.front().at(0).toString(), QStringLiteral("ok"));
        QVERIFY(settle(w));
        problem = fitProblem(w, size);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("run finished: ") + problem));

        // A failed run's message names a long path.
        w.dataset()->setInputs({longFolder_ + QStringLiteral("/missing-") +
                                QString(150, QLatin1Char('m')) + QStringLiteral(".jsonl")});
        QVERIFY(w.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
        QCOMPARE(finished.back().at(0).toString(), QStringLiteral("failed"));
        QVERIFY(settle(w));
        QVERIFY(w.monitor()->statusText().contains(QStringLiteral("missing-")));
        problem = fitProblem(w, size);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("run failed: ") + problem));
    }

    // Size, docks moved or hidden: the next window comes back the same.
    void geometryAndDocksAreRestored() {
        QSettings().clear();
        const QSize chosen(1100, 700);
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.resize(chosen);
            auto* history = w.findChild<QDockWidget*>(QStringLiteral("historyDock"));
            auto* dataset = w.findChild<QDockWidget*>(QStringLiteral("datasetDock"));
            QVERIFY(history && dataset);
            w.addDockWidget(Qt::RightDockWidgetArea, history);
            dataset->hide();
            QTRY_COMPARE(w.size(), chosen);
            w.close();
        }
        QVERIFY(QFileInfo(QSettings().fileName())
                    .absoluteFilePath()
                    .startsWith(dir_.filePath(QStringLiteral("settings"))));
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.size(), chosen);
        auto* history = again.findChild<QDockWidget*>(QStringLiteral("historyDock"));
        auto* dataset = again.findChild<QDockWidget*>(QStringLiteral("datasetDock"));
        QCOMPARE(again.dockWidgetArea(history), Qt::RightDockWidgetArea);
        QVERIFY(dataset->isHidden());
    }
};

// The screen is 1280x800 (ui_window_fixture.h).
int main(int argc, char** argv) {
    return runOnSmallScreen<TestUiWindowFit>(argc, argv);
}

#else  // built without the GUI

#include <QTest>

class TestUiWindowFit : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};
QTEST_GUILESS_MAIN(TestUiWindowFit)

#endif

#include "test_ui_window_fit.moc"
