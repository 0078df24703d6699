// The threshold slider as the workbench's working threshold, driven offscreen in a real window
// on projects made by the real CLI: the panel forgets the previous project's pairs when another
// project opens; moving the slider re-clusters the cluster table, the counts, the parameters'
// θ box (and its S-curve) and Export, with the run's removal rule and the audit decisions, to
// exactly what `neardup run` at that threshold gives; "Save as run" stores that result as a new
// run without comparing again; Export and the audit follow the θ the table shows, not the
// slider running ahead of it.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <set>

#include "auditdialog.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "decisions.h"
#include "exportdialog.h"
#include "mainwindow.h"
#include "numbertext.h"
#include "parameterspanel.h"
#include "project_queries.h"
#include "project_store.h"
#include "projectdocument.h"
#include "runcontroller.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "test_support.h"
#include "thresholdpanel.h"

using namespace neardup;
using namespace neardup::ui;

#include "ui_workbench_fixture.h"

namespace {

bool near(double a, double b) {
    return std::abs(a - b) < 1e-3;
}

// Runs the CLI; on failure the test reports its stderr.
QString runCli(const QStringList& args) {
    const testsupport::CliResult r = testsupport::neardup(args);
    return r.code == 0 ? QString()
                       : QStringLiteral("neardup %1: exit %2: %3")
                             .arg(args.join(QLatin1Char(' ')))
                             .arg(r.code)
                             .arg(r.err);
}

std::set<QString> lineSet(const QString& path) {
    const QStringList lines = readLines(path);
    return {lines.begin(), lines.end()};
}

}  // namespace

class TestUiThreshold : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> window_;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

    // A project made by `neardup run` on a generated corpus.
    QString makeProject(const char* name, uint64_t docs, uint64_t seed, const QStringList& extra) {
        const QString corpus = path(name) + QStringLiteral(".jsonl");
        writeCorpus(corpus.toStdString(), docs, seed);
        const QString project = path(name) + QStringLiteral(".ndw");
        const QString problem =
            runCli(QStringList{QStringLiteral("run"), corpus, QStringLiteral("-p"), project,
                               QStringLiteral("-j"), QStringLiteral("2")} +
                   extra);
        if (!problem.isEmpty()) qWarning("%s", qPrintable(problem));
        return problem.isEmpty() ? project : QString();
    }

    // Opens `project` and waits until its latest run and the panel's counts are shown.
    void openAndSettle(const QString& project) {
        MainWindow& w = *window_;
        QVERIFY(w.openProject(project, true));
        const RunInfo info = ProjectQueries(project.toStdString())
                                 .runInfo(ProjectQueries(project.toStdString()).runIds().back());
        QTRY_VERIFY_WITH_TIMEOUT(w.currentRun().runId == info.runId &&
                                     w.projectPath() == QFileInfo(project).absoluteFilePath(),
                                 20000);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.threshold()->lastResult() &&
                near(w.threshold()->lastResult()->threshold, info.params.compare.threshold) &&
                w.isSettled(),
            20000);
    }

    // Moves the slider to `t` and waits until the table shows the clusters at `t`.
    void moveSlider(double t) {
        MainWindow& w = *window_;
        w.threshold()->setThreshold(t);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.threshold()->lastResult() && near(w.threshold()->lastResult()->threshold, t), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(near(w.clusters()->model()->threshold(), t) &&
                                     !w.clusters()->model()->isLoading() && w.isSettled(),
                                 20000);
    }

    // Exports the removed ids of the run shown through the Export dialog.
    QString exportRemoved(const char* folder) {
        MainWindow& w = *window_;
        ExportDialog* d = w.openExportDialog();
        if (!d) return {};
        QDir().mkpath(path(folder));
        d->setOutputDirectory(path(folder));
        QSignalSpy done(d, &ExportDialog::exported);
        d->startExport();
        if (!QTest::qWaitFor([&] { return done.size() == 1; }, 20000)) return {};
        if (!done.front().at(0).toBool()) {
            qWarning("%s", qPrintable(d->resultText()));
            return {};
        }
        const QStringList files = d->plannedFiles();
        d->close();
        return files.value(1);  // removed ids
    }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_threshold"));
        QVERIFY(dir_.isValid());
        window_ = std::make_unique<MainWindow>();
        window_->show();
    }

    void cleanupTestCase() { window_.reset(); }

    // Defect 1: both projects have a run 1; the panel must show the second one's counts, not
    // the first one's pairs re-clustered.
    void switchingProjectsForgetsThePairs() {
        const QString small =
            makeProject("small", 400, 3, {QStringLiteral("--threshold"), QStringLiteral("0.7")});
        const QString large =
            makeProject("large", 1500, 9, {QStringLiteral("--threshold"), QStringLiteral("0.7")});
        QVERIFY(!small.isEmpty() && !large.isEmpty());
        const RunInfo smallRun = ProjectQueries(small.toStdString()).runInfo(1);
        const RunInfo largeRun = ProjectQueries(large.toStdString()).runInfo(1);
        QVERIFY(smallRun.clusters != largeRun.clusters);
        openAndSettle(small);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(window_->threshold()->lastResult()->clusters, quint64(smallRun.clusters));
        openAndSettle(large);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(window_->threshold()->lastResult()->clusters, quint64(largeRun.clusters));
        QCOMPARE(window_->threshold()->lastResult()->removed, quint64(largeRun.removed));
        QCOMPARE(window_->clusters()->model()->totalCount(), quint64(largeRun.clusters));
        // And back.
        openAndSettle(small);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(window_->threshold()->lastResult()->clusters, quint64(smallRun.clusters));
        QCOMPARE(window_->threshold()->lastResult()->removed, quint64(smallRun.removed));
    }

    // Defect 3: the slider is the working threshold. On a project with an audit decision, the
    // table, the counts, the θ box and Export at the slider's threshold equal what `neardup
    // run` at that threshold gives (its pairs reused, its rule, the decision honoured); "Save
    // as run" records the same result as a new run without comparing again.
    void sliderIsTheWorkingThreshold() {
        const QString project = makeProject("work", 1500, 11,
                                            {QStringLiteral("--threshold"), QStringLiteral("0.7"),
                                             QStringLiteral("--verify"), QStringLiteral("none")});
        QVERIFY(!project.isEmpty());
        const double t = 0.85;
        // "Not a duplicate" on a pair that is a duplicate at t: the decision must count.
        {
            ProjectStore store(project.toStdString());
            const RunResult run = store.loadRun(1);
            const ScoredPair* cut = nullptr;
            for (const ScoredPair& p : run.pairs)
                if (double(p.matches) / run.params.signature.hashes >= 0.9 &&
                    p.matches < uint32_t(run.params.signature.hashes))
                    cut = &p;
            QVERIFY(cut);
            recordDecision(store, run.datasetId, DecisionKind::NotDuplicate, cut->a, cut->b);
        }
        // What the CLI gives at t on a copy of the project (same dataset, pairs, decision).
        const QString copy = path("work-copy.ndw");
        QVERIFY(QFile::copy(project, copy));
        const QString expectedRemoved = path("expected-removed.txt");
        QCOMPARE(
            runCli({QStringLiteral("run"), path("work") + QStringLiteral(".jsonl"),
                    QStringLiteral("-p"), copy, QStringLiteral("--threshold"), QString::number(t),
                    QStringLiteral("--verify"), QStringLiteral("none"), QStringLiteral("-j"),
                    QStringLiteral("2"), QStringLiteral("--out-removed"), expectedRemoved}),
            QString());
        QCOMPARE(
            testsupport::sqlRows(copy.toStdString(), "SELECT pairs_reused FROM runs WHERE id = 2"),
            QStringList{QStringLiteral("1")});
        const uint64_t expectedClusters =
            ProjectQueries(copy.toStdString()).clusterCount(2, ClusterFilter{});
        const std::set<QString> expected = lineSet(expectedRemoved);
        const RunInfo own = ProjectQueries(project.toStdString()).runInfo(1);
        QVERIFY(expected.size() < own.removed);  // the threshold matters on this corpus

        openAndSettle(project);
        if (QTest::currentTestFailed()) return;
        MainWindow& w = *window_;
        // The history's Removed says what an export removes with the decision.
        const uint64_t audited = ProjectStore(project.toStdString()).loadRun(1).counts.removed;
        const QString removedText = audited == own.removed
                                        ? countText(own.removed)
                                        : QStringLiteral("%1 (%2 after decisions)")
                                              .arg(countText(own.removed), countText(audited));
        QTRY_COMPARE(w.history()->model()->index(0, RunHistoryModel::Removed).data().toString(),
                     removedText);
        moveSlider(t);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(w.threshold()->lastResult()->removed, quint64(expected.size()));
        QCOMPARE(w.threshold()->lastResult()->clusters, quint64(expectedClusters));
        QCOMPARE(w.threshold()->lastResult()->decisionsApplied, quint64(1));
        QCOMPARE(w.clusters()->model()->totalCount(), quint64(expectedClusters));
        QCOMPARE(w.parameters()->thresholdBox()->value(), t);
        const QString removed = exportRemoved("export-at-t");
        QVERIFY(!removed.isEmpty());
        QCOMPARE(lineSet(removed), expected);

        // Save as run: a new run at t, from the stored pairs.
        QSignalSpy finished(w.runController(), &RunController::finished);
        QVERIFY(w.threshold()->saveButton()->isEnabled());
        QTest::mouseClick(w.threshold()->saveButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(finished.front().at(0).toString(), QStringLiteral("ok"));
        const qint64 saved = finished.front().at(1).toLongLong();
        QCOMPARE(saved, qint64{2});
        QCOMPARE(testsupport::sqlRows(project.toStdString(),
                                      "SELECT pairs_reused, threshold FROM runs WHERE id = 2"),
                 QStringList{QStringLiteral("1|0.85")});
        const QString savedRemoved = path("saved-removed.txt");
        QCOMPARE(runCli({QStringLiteral("export"), QStringLiteral("-p"), project,
                         QStringLiteral("--run"), QStringLiteral("2"),
                         QStringLiteral("--out-removed"), savedRemoved}),
                 QString());
        QCOMPARE(lineSet(savedRemoved), expected);
        // The new run is shown, at its own threshold.
        QTRY_VERIFY_WITH_TIMEOUT(w.currentRun().runId == saved && w.isSettled(), 20000);
        QTRY_COMPARE(w.clusters()->model()->totalCount(), quint64(expectedClusters));
    }

    // Defect 8: the history names seed, verify, keep and rule; a click in its empty space
    // keeps the run shown (it used to blank every view).
    void historyKeepsTheRunAndNamesItsParameters() {
        MainWindow& w = *window_;
        const qint64 shown = w.currentRun().runId;
        QVERIFY(shown != 0);
        const QString params =
            w.history()->model()->index(0, RunHistoryModel::Parameters).data().toString();
        for (const char* word : {"seed", "verify none", "keep first", "witness"})
            QVERIFY2(params.contains(QLatin1String(word)), qPrintable(params));
        QTableView* view = w.history()->view();
        const QPoint empty(5, view->viewport()->height() - 3);
        QVERIFY(!view->indexAt(empty).isValid());
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, empty);
        QTRY_VERIFY(w.isSettled());
        QCOMPARE(w.currentRun().runId, shown);
        QCOMPARE(w.history()->currentRun(), shown);
        QVERIFY(w.clusters()->model()->totalCount() > 0);
    }

    // `neardup recluster` records the same run as `neardup run` at that threshold.
    void reclusterCommandMatchesARun() {
        const QString project = path("work.ndw");
        const QString copy = path("work-cli.ndw");
        QFile::remove(copy);
        QVERIFY(QFile::copy(project, copy));
        const QString out = path("recluster-removed.txt");
        QCOMPARE(runCli({QStringLiteral("recluster"), QStringLiteral("-p"), copy,
                         QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("-t"),
                         QStringLiteral("0.85"), QStringLiteral("--out-removed"), out}),
                 QString());
        QCOMPARE(lineSet(out), lineSet(path("expected-removed.txt")));
        QCOMPARE(testsupport::sqlRows(copy.toStdString(), "SELECT max(id), pairs_reused FROM runs"),
                 QStringList{QStringLiteral("3|1")});
        // Below the store floor there are no stored pairs to re-cluster.
        const testsupport::CliResult low = testsupport::neardup(
            {QStringLiteral("recluster"), QStringLiteral("-p"), copy, QStringLiteral("--run"),
             QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("0.2")});
        QCOMPARE(low.code, 2);
        QVERIFY2(low.err.contains(QStringLiteral("store floor")), qPrintable(low.err));
    }

    // Export and the audit work at the document's working threshold, the θ of the clusters the
    // table shows. The slider runs ahead of it while it re-clusters: a dialog opened meanwhile
    // must not export or draw at a θ whose clusters are not on screen, and follows once they are.
    void dialogsUseTheDocumentsThreshold() {
        openAndSettle(path("small.ndw"));
        if (QTest::currentTestFailed()) return;
        MainWindow& w = *window_;
        const double own = w.currentRun().params.compare.threshold;
        // Re-clusters on a worker thread: its result cannot arrive before the event loop runs.
        w.threshold()->setThreshold(0.9);
        QVERIFY(std::isnan(w.document()->workingThreshold()));
        ExportDialog* exportDialog = w.openExportDialog();
        AuditDialog* auditDialog = w.openAuditDialog();
        QVERIFY(exportDialog && auditDialog);
        QVERIFY2(std::isnan(exportDialog->threshold()), qPrintable(exportDialog->windowTitle()));
        QCOMPARE(auditDialog->drawThreshold(), own);
        QTRY_VERIFY_WITH_TIMEOUT(near(w.document()->workingThreshold(), 0.9) && w.isSettled(),
                                 20000);
        QVERIFY(near(exportDialog->threshold(), 0.9));
        QVERIFY(near(auditDialog->drawThreshold(), 0.9));
        exportDialog->close();
        auditDialog->close();
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiThreshold : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiThreshold)
#include "test_ui_threshold.moc"
