// The workbench driven offscreen: open a project made by the engine, validate parameters and
// the S-curve, run the pipeline through the GUI worker (watching that the GUI thread keeps
// turning), browse clusters and compare two members, buckets, the threshold slider, export,
// and cancel. (Audit decisions and the search box: test_ui_workbench_audit.cpp.)
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QAbstractItemModel>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <ctime>
#include <fstream>
#include <set>

#include "bucketspanel.h"
#include "clustering.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "comparisonview.h"
#include "corpus_generator.h"
#include "datasetpanel.h"
#include "engine_fixture.h"
#include "exportdialog.h"
#include "lsh_buckets.h"
#include "lsh_tuning.h"
#include "mainwindow.h"
#include "pair_verifier.h"
#include "parameterspanel.h"
#include "pipeline.h"
#include "project_queries.h"
#include "runcontroller.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "runmonitor.h"
#include "scurveplot.h"
#include "thresholdpanel.h"

using namespace neardup;
using namespace neardup::ui;

#include "ui_workbench_fixture.h"

class TestUiWorkbench : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_, corpusA_, corpusB_;
    std::unique_ptr<MainWindow> window_;
    qint64 guiRun_ = 0;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_workbench"));
        QVERIFY(dir_.isValid());
        project_ = path("fixture.ndw");
        corpusA_ = path("a.jsonl");
        corpusB_ = path("b.jsonl");
        writeCorpus(corpusA_.toStdString(), 500, 3);
        writeCorpus(corpusB_.toStdString(), 2000, 8);
        RunParams params;
        params.compare.threshold = 0.7;
        const RunResult r =
            testsupport::runEngine(project_.toStdString(), {corpusA_.toStdString()}, params);
        QVERIFY(r.counts.clusters > 5);
        window_ = std::make_unique<MainWindow>();
        window_->show();
    }

    void cleanupTestCase() { window_.reset(); }

    void openProjectShowsItsRuns() {
        MainWindow& w = *window_;
        QVERIFY(!w.openProject(path("missing.ndw"), true));
        QVERIFY(w.openProject(project_, true));
        QVERIFY(w.windowTitle().contains(QStringLiteral("fixture.ndw")));
        QTRY_COMPARE(w.history()->model()->rowCount(), 1);
        QTRY_COMPARE(w.currentRun().runId, qint64{1});
        QCOMPARE(w.history()->currentRun(), qint64{1});
        ProjectQueries q(project_.toStdString());
        const RunInfo info = q.runInfo(1);
        QTRY_COMPARE(w.clusters()->model()->totalCount(), quint64(info.clusters));
        // Parameters and inputs come from the project's run.
        QCOMPARE(w.parameters()->thresholdBox()->value(), 0.7);
        QCOMPARE(w.dataset()->inputs(), QStringList{corpusA_});
        QVERIFY(w.recentProjects().contains(project_));
        // The history row carries the run's counts.
        const QModelIndex removed = w.history()->model()->index(0, RunHistoryModel::Removed);
        QCOMPARE(removed.data(Qt::UserRole).toULongLong(), quint64(info.removed));
        QVERIFY(w.history()
                    ->model()
                    ->index(0, RunHistoryModel::Parameters)
                    .data()
                    .toString()
                    .contains(QStringLiteral("%1\u00d7%2")
                                  .arg(RunParams{}.lsh.bands)
                                  .arg(RunParams{}.lsh.rows)));
    }

    void parameterValidation() {
        ParametersPanel* p = window_->parameters();
        // Values as given (pinned): chosen ones could not break these rules.
        p->autoBandsRowsBox()->setChecked(false);
        p->autoStoreFloorBox()->setChecked(false);
        p->hashesBox()->setValue(128);
        p->bandsBox()->setValue(20);
        p->rowsBox()->setValue(10);
        QVERIFY(!p->isValid());
        // Worded with the panel's labels, not the CLI's options.
        QVERIFY2(p->validationLabel()->text().contains(
                     QStringLiteral("Bands x rows (200) must not exceed Hashes H (128)")),
                 qPrintable(p->validationLabel()->text()));
        QVERIFY(!p->validationLabel()->text().contains(QStringLiteral("--")));
        QVERIFY(!window_->dataset()->runButton()->isEnabled());
        p->rowsBox()->setValue(6);
        QVERIFY2(p->isValid(), qPrintable(p->validationMessage()));
        QVERIFY(window_->dataset()->runButton()->isEnabled());
        // A threshold under the store floor cannot be served by the stored pairs.
        p->thresholdBox()->setValue(0.3);
        QVERIFY2(p->validationLabel()->text().contains(
                     QStringLiteral("The store floor must be in (0, Threshold \u03b8]")),
                 qPrintable(p->validationLabel()->text()));
        QVERIFY(!window_->dataset()->runButton()->isEnabled());
        p->thresholdBox()->setValue(0.7);
        QVERIFY(p->isValid());
    }

    void sCurveFollowsEveryEdit() {
        ParametersPanel* p = window_->parameters();
        p->autoBandsRowsBox()->setChecked(false);
        p->bandsBox()->setValue(16);
        p->rowsBox()->setValue(8);
        p->thresholdBox()->setValue(0.8);
        SCurvePlot* plot = p->plot();
        QVERIFY(std::abs(plot->plottedValueAt(0.8) - candidateProbability(0.8, 16, 8)) < 1e-12);
        QVERIFY(std::abs(plot->plottedValueAt(0.5) - candidateProbability(0.5, 16, 8)) < 1e-12);
        QVERIFY(std::abs(plot->missRate() - (1 - candidateProbability(0.8, 16, 8))) < 1e-12);
        QVERIFY(std::abs(plot->lowCandidateRate() - candidateProbability(0.6, 16, 8)) < 1e-12);
        p->rowsBox()->setValue(4);
        QVERIFY(std::abs(plot->plottedValueAt(0.5) - candidateProbability(0.5, 16, 4)) < 1e-12);
        QVERIFY(plot->ratesText().contains(QStringLiteral("r = 4")));
        // The suggestion for theta 0.8 and H 128 is the CLI's choice, which keeps the miss rate
        // at theta under 2 % (not datasketch's 9 x 13, which misses 60 % there), applied at once.
        p->suggestButton()->click();
        const LshSuggestion s = chooseBandsRows(0.8, 128);
        QTRY_COMPARE(p->bandsBox()->value(), s.bands);
        QCOMPARE(p->rowsBox()->value(), s.rows);
        QVERIFY(p->suggestionLabel()->text().contains(
            QStringLiteral("b = %1, r = %2").arg(s.bands).arg(s.rows)));
        QVERIFY2(plot->missRate() <= 0.02, qPrintable(plot->ratesText()));
        QVERIFY(std::abs(plot->plottedValueAt(0.8) - candidateProbability(0.8, s.bands, s.rows)) <
                1e-12);
    }

    // The rates are written above the axes, never over the curve: no point of the curve lies
    // in their rectangle, on a narrow plot at a θ where the curve rises under the old spot.
    void sCurveTextLeavesTheCurveClear() {
        SCurvePlot plot;
        plot.resize(420, 220);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setCurve(20, 5, 0.5);
        plot.replot();
        const QRectF text = plot.ratesRect();
        QVERIFY(!text.isEmpty());
        QVERIFY(!text.intersects(QRectF(plot.axesRect())));
        for (int i = 0; i <= 100; ++i) {
            const double x = i / 100.0;
            const QPointF at(plot.xAxis->coordToPixel(x),
                             plot.yAxis->coordToPixel(candidateProbability(x, 20, 5)));
            QVERIFY2(!text.contains(at), qPrintable(QStringLiteral("s = %1").arg(x)));
        }
        plot.close();
        window_->activateWindow();  // the keys of the tests after this go to the window
        QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    }

    // Without -b/-r and --store-floor the CLI chooses bands, rows and the store floor for the
    // run's threshold; with "auto" ticked the panel does the same whenever θ or H change, and
    // the run cannot start with the previous threshold's choice while a new one is computed.
    void choicesFollowTheThreshold() {
        ParametersPanel* p = window_->parameters();
        p->setParams(RunParams{});  // the defaults are the choices for the default θ and H
        QVERIFY(p->autoBandsRowsBox()->isChecked());
        QVERIFY(p->autoStoreFloorBox()->isChecked());
        QVERIFY(!p->bandsBox()->isEnabled() && !p->rowsBox()->isEnabled());
        QVERIFY(!p->storeFloorBox()->isEnabled());
        QVERIFY(p->params().lsh.chosen);
        QVERIFY2(p->isValid(), qPrintable(p->validationMessage()));
        for (const double theta : {0.5, 0.6, 0.9}) {
            p->thresholdBox()->setValue(theta);
            // Chosen off the GUI thread: until the choice arrives, no run.
            QVERIFY(!p->isValid());
            QVERIFY(!window_->dataset()->runButton()->isEnabled());
            const LshSuggestion s = chooseBandsRows(theta, 128);
            QTRY_VERIFY2(p->isValid(), qPrintable(p->validationMessage()));
            QCOMPARE(p->bandsBox()->value(), s.bands);
            QCOMPARE(p->rowsBox()->value(), s.rows);
            QCOMPARE(p->params().compare.storeFloor,
                     defaultStoreFloor(theta, 128, VerifyMode::Borderline));
            QCOMPARE(p->plot()->missRate(), 1 - candidateProbability(theta, s.bands, s.rows));
        }
        // Below θ 0.63 borderline verification reaches under 0.5, and so does the floor.
        p->thresholdBox()->setValue(0.5);
        QTRY_VERIFY(p->isValid());
        QVERIFY(p->params().compare.storeFloor < 0.4);
        p->hashesBox()->setValue(256);
        QTRY_VERIFY(p->isValid());
        QCOMPARE(p->bandsBox()->value(), chooseBandsRows(0.5, 256).bands);
        QCOMPARE(p->rowsBox()->value(), chooseBandsRows(0.5, 256).rows);
        QCOMPARE(p->params().compare.storeFloor,
                 defaultStoreFloor(0.5, 256, VerifyMode::Borderline));

        // Unticked: the values stay as they are and are the run's as given.
        p->autoBandsRowsBox()->setChecked(false);
        p->autoStoreFloorBox()->setChecked(false);
        QVERIFY(p->bandsBox()->isEnabled() && p->storeFloorBox()->isEnabled());
        const int bands = p->bandsBox()->value(), rows = p->rowsBox()->value();
        const double floor = p->storeFloorBox()->value();
        p->thresholdBox()->setValue(0.85);
        QVERIFY(p->isValid());
        QCOMPARE(p->bandsBox()->value(), bands);
        QCOMPARE(p->rowsBox()->value(), rows);
        QCOMPARE(p->params().compare.storeFloor, floor);
        QVERIFY(!p->params().lsh.chosen);

        // A run's parameters: "auto" where its values are the choices, pinned where not.
        RunParams pinned;
        pinned.compare.threshold = 0.7;  // the default 18 x 7 is not 0.7's choice
        p->setParams(pinned);
        QVERIFY(!p->autoBandsRowsBox()->isChecked());
        QVERIFY(p->autoStoreFloorBox()->isChecked());
        QCOMPARE(p->bandsBox()->value(), 18);
        QVERIFY(p->isValid());
        RunParams chosen = pinned;
        chosen.lsh.bands = chooseBandsRows(0.7, 128).bands;
        chosen.lsh.rows = chooseBandsRows(0.7, 128).rows;
        chosen.compare.storeFloor = 0.45;
        p->setParams(chosen);
        QVERIFY(p->autoBandsRowsBox()->isChecked());
        QVERIFY(!p->autoStoreFloorBox()->isChecked());
        QCOMPARE(p->params().compare.storeFloor, 0.45);
        QVERIFY(p->isValid());
    }

    // The sketch is a run parameter like the others: a new panel starts from core's default
    // (oph), a run's sketch is shown and kept, and the rolling family, which only the classic
    // sketch uses, switches to it as the CLI's --hash rolling does.
    void sketchFollowsTheRun() {
        ParametersPanel* p = window_->parameters();
        auto* sketch = p->findChild<QComboBox*>(QStringLiteral("sketch"));
        QVERIFY(sketch);
        p->setParams(RunParams{});
        QCOMPARE(sketch->currentText(), QStringLiteral("oph"));
        QCOMPARE(p->params().signature.sketch, SketchKind::Oph);
        RunParams classic;
        classic.signature.sketch = SketchKind::Classic;
        p->setParams(classic);
        QCOMPARE(sketch->currentText(), QStringLiteral("classic"));
        QCOMPARE(p->params().signature.sketch, SketchKind::Classic);
        p->setParams(RunParams{});
        auto* family = p->findChild<QComboBox*>(QStringLiteral("family"));
        QVERIFY(family);
        family->setCurrentText(QStringLiteral("rolling"));
        QCOMPARE(p->params().signature.family, HashFamily::Rolling);
        QCOMPARE(p->params().signature.sketch, SketchKind::Classic);
        QTRY_VERIFY2(p->isValid(), qPrintable(p->validationMessage()));
        // Naming oph with the rolling family is refused in the panel's words.
        sketch->setCurrentText(QStringLiteral("oph"));
        QVERIFY(!p->isValid());
        QVERIFY2(p->validationMessage().contains(QStringLiteral("oph")),
                 qPrintable(p->validationMessage()));
        p->setParams(RunParams{});
        QTRY_VERIFY(p->isValid());
    }

    void runThroughTheGuiWorker() {
        MainWindow& w = *window_;
        RunParams params;
        params.threads = 2;
        params.compare.threshold = 0.75;
        w.parameters()->setParams(params);
        w.dataset()->setInputs({corpusB_});
        QTRY_VERIFY(w.dataset()->preview().fields.contains(QStringLiteral("text")));
        QCOMPARE(w.dataset()->previewTable()->rowCount(), 20);
        w.dataset()->setFields(QStringLiteral("text"), QStringLiteral("id"));

        // The GUI thread must keep turning while the engine works on its thread. Between two
        // ticks of a 5 ms timer, the CPU time the GUI thread itself used is the time it was
        // busy (blocked for the user); wall time also counts the scheduler's preemption on a
        // loaded machine, so it is reported but not asserted.
        QElapsedTimer sinceTick;
        qint64 longestGap = 0;
        double longestBusyMs = 0, lastCpuMs = threadCpuMs();
        QTimer ticker;
        ticker.setInterval(5);
        connect(&ticker, &QTimer::timeout, this, [&] {
            longestGap = std::max(longestGap, sinceTick.restart());
            const double cpu = threadCpuMs();
            longestBusyMs = std::max(longestBusyMs, cpu - lastCpuMs);
            lastCpuMs = cpu;
        });
        QSignalSpy finished(w.runController(), &RunController::finished);
        QVERIFY(w.dataset()->runButton()->isEnabled());
        sinceTick.start();
        lastCpuMs = threadCpuMs();
        ticker.start();
        QTest::mouseClick(w.dataset()->runButton(), Qt::LeftButton);
        QVERIFY(w.runController()->isRunning());
        QVERIFY(!w.dataset()->runButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20000);
        ticker.stop();
        const QList<QVariant> args = finished.front();
        QCOMPARE(args.at(0).toString(), QStringLiteral("ok"));
        guiRun_ = args.at(1).toLongLong();
        QCOMPARE(guiRun_, qint64{2});
        qInfo(
            "GUI thread during the run: longest busy stretch %.1f ms CPU, longest wall gap "
            "between 5 ms ticks %lld ms",
            longestBusyMs, longestGap);
        QVERIFY2(longestBusyMs < 100,
                 qPrintable(QStringLiteral("GUI thread busy %1 ms").arg(longestBusyMs)));
        for (const char* phase : {"read", "signatures", "buckets", "compare", "union"})
            QCOMPARE(w.monitor()->phaseState(QLatin1String(phase)), QStringLiteral("done"));
        QVERIFY(w.monitor()->statusText().contains(QStringLiteral("finished")));
        // The new run appears in the history and becomes the current run.
        QTRY_COMPARE(w.history()->model()->rowCount(), 2);
        QTRY_COMPARE(w.currentRun().runId, guiRun_);
        QCOMPARE(w.currentRun().params.compare.threshold, 0.75);
    }

    void clustersAndComparison() {
        MainWindow& w = *window_;
        ProjectQueries q(project_.toStdString());
        const RunInfo info = q.runInfo(guiRun_);
        QVERIFY(info.clusters > 3);
        ClustersPanel* panel = w.clusters();
        QTRY_COMPARE(panel->model()->totalCount(), quint64(info.clusters));
        QTRY_VERIFY(panel->model()->rowCount() > 0);
        // Sorted by size, largest first.
        const ClusterRow* first = panel->model()->clusterAt(0);
        const auto bySize = q.clusters(guiRun_, {}, ClusterSort::Size, true, 0, 1);
        QCOMPARE(first->cluster, bySize.front().cluster);
        QTRY_COMPARE(panel->currentCluster(), first->cluster);
        QTRY_COMPARE(panel->membersTable()->rowCount(), int(first->size));
        QTRY_VERIFY(!panel->comparison()->leftText().isEmpty());
        QVERIFY(!panel->comparison()->rightText().isEmpty());
        QVERIFY(panel->comparison()->summaryText().contains(QStringLiteral("estimated J")));
        // The texts are the documents of the cluster's first pair of a removed member and its
        // witness.
        const auto pairs = q.clusterPairs(guiRun_, first->cluster);
        QVERIFY(!pairs.empty());
        const std::size_t start =
            witnessPairIndex(q.clusterMembers(guiRun_, first->cluster), pairs);
        QVERIFY(start < pairs.size());
        const DatasetSource src = q.datasetSource(info.datasetId);
        DocumentFetcher fetcher(src.files, src.reader);
        const auto a = fetcher.fetch(q.documentLocation(info.datasetId, pairs[start].a));
        const auto b = fetcher.fetch(q.documentLocation(info.datasetId, pairs[start].b));
        QTRY_COMPARE(panel->comparison()->leftText(), QString::fromStdString(a.text));
        QCOMPARE(panel->comparison()->rightText(), QString::fromStdString(b.text));
        QCOMPARE(panel->currentPair(), int(start));
        // Next pair with the keyboard, then back.
        QSignalSpy shown(panel, &ClustersPanel::comparisonShown);
        QTest::keyClick(&w, Qt::Key_Down, Qt::AltModifier);
        QTRY_VERIFY(shown.size() >= 1);
        if (start + 1 < pairs.size()) {
            QCOMPARE(panel->currentPair(), int(start) + 1);
            const auto b1 = fetcher.fetch(q.documentLocation(info.datasetId, pairs[start + 1].b));
            QTRY_COMPARE(panel->comparison()->rightText(), QString::fromStdString(b1.text));
            QTest::keyClick(&w, Qt::Key_Up, Qt::AltModifier);
            QTRY_COMPARE(panel->currentPair(), int(start));
        }
        // Sorting by another column re-queries.
        panel->view()->sortByColumn(ClustersModel::Cluster, Qt::AscendingOrder);
        QTRY_VERIFY(panel->model()->rowCount() > 0 && panel->model()->clusterAt(0)->cluster == 0);
        // Searching by a member id narrows the list to its cluster.
        const auto members = q.clusterMembers(guiRun_, first->cluster);
        panel->model()->setFilter(QString::fromStdString(members.back().docId), 0);
        QTRY_VERIFY(panel->model()->rowCount() >= 1 && !panel->model()->isLoading());
        bool found = false;
        for (int r = 0; r < panel->model()->rowCount(); ++r)
            found = found || panel->model()->clusterAt(r)->cluster == first->cluster;
        QVERIFY(found);
        panel->model()->setFilter({}, 0);
        QTRY_COMPARE(panel->model()->totalCount(), quint64(info.clusters));
    }

    void bucketsView() {
        MainWindow& w = *window_;
        w.tabs()->setCurrentIndex(1);
        ProjectQueries q(project_.toStdString());
        BucketsPanel* b = w.buckets();
        QTRY_VERIFY(b->drawnBins() > 0);
        QTRY_COMPARE(b->outlierModel()->rowCount(), int(q.outliers(guiRun_, -1).size()));
        const SizeMoments m = q.bucketSizeMoments(guiRun_, -1);
        QVERIFY(std::abs(b->markerSize() - (m.mean + 2 * m.stddev)) < 1e-9);
        QSignalSpy loaded(b, &BucketsPanel::loaded);
        b->bandBox()->setCurrentIndex(2);  // band 1
        QTRY_COMPARE(loaded.size(), 1);
        QCOMPARE(b->band(), 1);
        QCOMPARE(b->outlierModel()->rowCount(), int(q.outliers(guiRun_, 1).size()));
        w.tabs()->setCurrentIndex(0);
    }

    void thresholdSliderReclusters() {
        MainWindow& w = *window_;
        ThresholdPanel* t = w.threshold();
        QVERIFY(t->slider()->isEnabled());
        t->setThreshold(0.9);
        QTRY_VERIFY(t->lastResult() && std::abs(t->lastResult()->threshold - 0.9) < 1e-3);
        // Same counts as clustering the stored pairs directly.
        ProjectStore store(project_.toStdString());
        const auto pairs = store.loadPairs(guiRun_);
        DocumentTable docs;
        ProjectQueries q(project_.toStdString());
        const RunInfo info = q.runInfo(guiRun_);
        store.loadDataset(info.datasetId, &docs);
        RunResult direct;
        clusterDocuments(pairs, 128, t->lastResult()->threshold, KeepPolicy::First,
                         info.params.decide, docs, direct);
        QCOMPARE(t->lastResult()->clusters, quint64(direct.counts.clusters));
        QCOMPARE(t->lastResult()->removed, quint64(direct.counts.removed));
        QVERIFY(direct.counts.removed < info.removed);  // a higher threshold removes fewer
        // Back at the run's own threshold, the run's counts.
        t->setThreshold(0.75);
        QTRY_VERIFY(t->lastResult() && std::abs(t->lastResult()->threshold - 0.75) < 1e-3);
        QCOMPARE(t->lastResult()->removed, quint64(info.removed));
        QCOMPARE(t->lastResult()->clusters, quint64(info.clusters));
        QVERIFY(t->resultText().contains(QStringLiteral("clusters")));
    }

    void exportWritesTheFiles() {
        MainWindow& w = *window_;
        ExportDialog* d = w.openExportDialog();
        QVERIFY(d);
        QTemporaryDir out;
        d->setOutputDirectory(out.path());
        QSignalSpy done(d, &ExportDialog::exported);
        d->startExport();
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 10000);
        QVERIFY2(done.front().at(0).toBool(), qPrintable(d->resultText()));
        const QStringList files = d->plannedFiles();
        QCOMPARE(files.size(), 5);
        for (const QString& f : files)
            QVERIFY2(QFile::exists(f), qPrintable(f));
        ProjectQueries q(project_.toStdString());
        const RunInfo info = q.runInfo(guiRun_);
        QCOMPARE(countLines(files[0]), int(info.kept));     // kept ids
        QCOMPARE(countLines(files[1]), int(info.removed));  // removed ids
        QCOMPARE(countLines(files[3]), int(info.kept));     // deduplicated JSONL
        // No temporary file is left behind.
        QCOMPARE(QDir(out.path()).entryList(QDir::Files).size(), 5);
        d->close();
    }

    void cancelStopsARun() {
        MainWindow& w = *window_;
        w.dataset()->setInputs({corpusA_, corpusB_});  // a new dataset: must read everything
        QSignalSpy finished(w.runController(), &RunController::finished);
        QVERIFY(w.startRun());
        w.runController()->cancel();  // before the worker can get far
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20000);
        QCOMPARE(finished.front().at(0).toString(), QStringLiteral("interrupted"));
        QVERIFY(!w.runController()->isRunning());
        QTRY_VERIFY(w.dataset()->runButton()->isEnabled());
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiWorkbench : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiWorkbench)
#include "test_ui_workbench.moc"
