// The workbench driven offscreen: open a project made by the engine, validate parameters and
// the S-curve, run the pipeline through the GUI worker (watching that the GUI thread keeps
// turning), browse clusters and compare two members, buckets, the threshold slider, export,
// and cancel.
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
#include "exportdialog.h"
#include "lsh_buckets.h"
#include "mainwindow.h"
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

namespace {

int countLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return -1;
    int n = 0;
    while (!f.atEnd()) {
        f.readLine();
        ++n;
    }
    return n;
}

QStringList readLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QStringList lines;
    while (!f.atEnd())
        lines << QString::fromUtf8(f.readLine()).trimmed();
    return lines;
}

// CPU time used by the calling thread, in milliseconds.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

void writeCorpus(const std::string& path, uint64_t docs, uint64_t seed) {
    GeneratorOptions gen;
    gen.documents = docs;
    gen.seed = seed;
    gen.meanChars = 700;
    GroundTruth truth;
    std::ofstream out(path, std::ios::binary);
    generateCorpus(gen, out, truth);
}

// The pair the clusters panel shows first: the first stored pair of a removed member and the
// kept document it is removed for (its witness), else the first pair.
std::size_t witnessPairIndex(const std::vector<neardup::ClusterMember>& members,
                             const std::vector<neardup::PairRow>& pairs) {
    for (std::size_t i = 0; i < pairs.size(); ++i)
        for (const auto& m : members)
            if ((m.docIndex == pairs[i].a && m.removedFor == int64_t{pairs[i].b}) ||
                (m.docIndex == pairs[i].b && m.removedFor == int64_t{pairs[i].a}))
                return i;
    return 0;
}

}  // namespace

class TestUiWorkbench : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_, corpusA_, corpusB_;
    std::unique_ptr<MainWindow> window_;
    qint64 guiRun_ = 0;
    // The audit tests' own window and project.
    std::unique_ptr<MainWindow> auditWindow_;
    QString auditProject_, auditCorpus_;

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
        ProjectStore store(project_.toStdString());
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(store, *backend);
        RunParams params;
        params.compare.threshold = 0.7;
        const RunResult r = pipeline.run({corpusA_.toStdString()}, params);
        QVERIFY(r.counts.clusters > 5);
        window_ = std::make_unique<MainWindow>();
        window_->show();
    }

    void cleanupTestCase() {
        auditWindow_.reset();
        window_.reset();
    }

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
                    .contains(QStringLiteral("16\u00d78")));
    }

    void parameterValidation() {
        ParametersPanel* p = window_->parameters();
        p->hashesBox()->setValue(128);
        p->bandsBox()->setValue(20);
        p->rowsBox()->setValue(10);
        QVERIFY(!p->isValid());
        QVERIFY(p->validationLabel()->text().contains(QStringLiteral("must not exceed")));
        QVERIFY(p->validationLabel()->text().contains(QStringLiteral("200")));
        QVERIFY(!window_->dataset()->runButton()->isEnabled());
        p->rowsBox()->setValue(6);
        QVERIFY2(p->isValid(), qPrintable(p->validationMessage()));
        QVERIFY(window_->dataset()->runButton()->isEnabled());
        // A threshold under the store floor cannot be served by the stored pairs.
        p->thresholdBox()->setValue(0.3);
        QVERIFY(p->validationLabel()->text().contains(QStringLiteral("store-floor")));
        QVERIFY(!window_->dataset()->runButton()->isEnabled());
        p->thresholdBox()->setValue(0.7);
        QVERIFY(p->isValid());
    }

    void sCurveFollowsEveryEdit() {
        ParametersPanel* p = window_->parameters();
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
        // The suggestion for theta 0.8 and H 128 is datasketch's (9, 13), applied at once.
        p->suggestButton()->click();
        QTRY_COMPARE(p->bandsBox()->value(), 9);
        QCOMPARE(p->rowsBox()->value(), 13);
        QVERIFY(p->suggestionLabel()->text().contains(QStringLiteral("b = 9, r = 13")));
        QVERIFY(std::abs(plot->plottedValueAt(0.8) - candidateProbability(0.8, 9, 13)) < 1e-12);
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

    // The audit flow in a window of its own on a new project: run on a generated corpus, open
    // a cluster, record "not a duplicate" with a click and "keep this one instead" with the
    // keyboard, undo one, export through the dialog and check the files; reopen the project
    // and find the decisions again.
    void auditDecisionsAreRecordedAndExported() {
        auditProject_ = path("audit.ndw");
        auditCorpus_ = path("audit.jsonl");
        writeCorpus(auditCorpus_.toStdString(), 600, 17);
        auditWindow_ = std::make_unique<MainWindow>();
        MainWindow& w = *auditWindow_;
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.newProject(auditProject_);
        QTRY_COMPARE(w.projectPath(), QFileInfo(auditProject_).absoluteFilePath());
        RunParams params;
        params.threads = 2;
        params.compare.threshold = 0.7;
        // The audit steps below count one kept member per cluster: the components rule.
        params.decide = DecideRule::Components;
        w.parameters()->setParams(params);
        QCOMPARE(w.parameters()->params().decide, DecideRule::Components);
        w.dataset()->setInputs({auditCorpus_});
        QTRY_VERIFY(w.dataset()->preview().fields.contains(QStringLiteral("text")));
        w.dataset()->setFields(QStringLiteral("text"), QStringLiteral("id"));
        QSignalSpy finished(w.runController(), &RunController::finished);
        QTRY_VERIFY(w.dataset()->runButton()->isEnabled());
        QTest::mouseClick(w.dataset()->runButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(finished.front().at(0).toString(), QStringLiteral("ok"));
        const qint64 runId = finished.front().at(1).toLongLong();
        QTRY_COMPARE(w.currentRun().runId, runId);
        const RunInfo info = ProjectQueries(auditProject_.toStdString()).runInfo(runId);
        QVERIFY(info.clusters > 5);
        ClustersPanel* panel = w.clusters();
        ComparisonView* cmp = panel->comparison();
        QTRY_COMPARE(panel->model()->totalCount(), quint64(info.clusters));
        QCOMPARE(panel->decisionCount(), 0);
        QVERIFY(!cmp->undoButton()->isEnabled());

        // A cluster of two, its only pair shown: "not a duplicate" splits it off.
        panel->view()->sortByColumn(ClustersModel::Size, Qt::AscendingOrder);
        QTRY_VERIFY(panel->model()->rowCount() > 0 && !panel->model()->isLoading() &&
                    panel->model()->clusterAt(0)->size == 2);
        const ClusterRow pairCluster = *panel->model()->clusterAt(0);
        std::vector<PairRow> pairs;
        {
            ProjectQueries q(auditProject_.toStdString());
            pairs = q.clusterPairs(runId, pairCluster.cluster);
        }
        QCOMPARE(pairs.size(), std::size_t{1});
        const uint32_t cutA = pairs[0].a, cutB = pairs[0].b;
        QTRY_VERIFY(cmp->hasComparison() && cmp->leftDocument() == cutA &&
                    cmp->rightDocument() == cutB);
        QVERIFY(cmp->notDuplicateButton()->isEnabled());
        QSignalSpy decided(panel, &ClustersPanel::decisionsChanged);
        QTest::mouseClick(cmp->notDuplicateButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        QCOMPARE(panel->model()->totalCount(), quint64(info.clusters - 1));
        QTRY_COMPARE(panel->decisionCount(), 1);
        QVERIFY(cmp->decisionMessage().contains(QStringLiteral("not a duplicate")));
        QVERIFY(cmp->undoButton()->isEnabled());
        for (int r = 0; r < panel->model()->rowCount(); ++r)
            QVERIFY(panel->model()->clusterAt(r)->cluster != pairCluster.cluster ||
                    panel->model()->clusterAt(r)->representative != pairCluster.representative);
        {
            ProjectQueries q(auditProject_.toStdString());
            QCOMPARE(q.clusterOfDocument(runId, cutA), int64_t{-1});
            QCOMPARE(q.clusterOfDocument(runId, cutB), int64_t{-1});
        }

        // The largest cluster: keep the removed side of its first pair instead, by keyboard.
        panel->view()->sortByColumn(ClustersModel::Size, Qt::DescendingOrder);
        QTRY_VERIFY(panel->model()->rowCount() > 0 && !panel->model()->isLoading() &&
                    panel->model()->clusterAt(0)->size >= 3);
        const ClusterRow big = *panel->model()->clusterAt(0);
        std::size_t shownFirst = 0;
        {
            ProjectQueries q(auditProject_.toStdString());
            pairs = q.clusterPairs(runId, big.cluster);
            shownFirst = witnessPairIndex(q.clusterMembers(runId, big.cluster), pairs);
        }
        QVERIFY(shownFirst < pairs.size());
        const PairRow firstShown = pairs[shownFirst];
        QTRY_VERIFY(panel->currentCluster() == big.cluster && cmp->hasComparison() &&
                    cmp->leftDocument() == firstShown.a && cmp->rightDocument() == firstShown.b);
        const bool keepRight = firstShown.a == big.representative;
        const uint32_t chosen = keepRight ? firstShown.b : firstShown.a;
        QVERIFY(chosen != big.representative);
        QTest::keyClick(&w, keepRight ? Qt::Key_Right : Qt::Key_Left, Qt::AltModifier);
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 2, 10000);
        QTRY_COMPARE(panel->decisionCount(), 2);
        const int bigRow = panel->model()->rowOfCluster(big.cluster);
        QVERIFY(bigRow >= 0);
        QCOMPARE(panel->model()->clusterAt(bigRow)->representative, chosen);
        QVERIFY(panel->model()
                    ->index(bigRow, ClustersModel::Decision)
                    .data()
                    .toString()
                    .contains(QStringLiteral("keep instead")));
        QTRY_VERIFY(panel->membersTable()->rowCount() == int(big.size));
        for (int r = 0; r < panel->membersTable()->rowCount(); ++r) {
            const bool isChosen =
                panel->membersTable()->item(r, 0)->text() == QString::number(chosen);
            const QString status = panel->membersTable()->item(r, 3)->text();
            QCOMPARE(status == QStringLiteral("kept"), isChosen);
            // The others are removed for the chosen one (components rule).
            if (!isChosen) QCOMPARE(status, QStringLiteral("removed (for %1)").arg(chosen));
        }
        // The threshold panel re-clusters with the decisions too.
        QTRY_VERIFY(w.threshold()->lastResult() &&
                    w.threshold()->lastResult()->decisionsApplied == 2);
        QCOMPARE(w.threshold()->lastResult()->removed, quint64(info.removed - 1));

        // Keep all, then take it back with the keyboard.
        QTest::keyClick(&w, Qt::Key_K, Qt::AltModifier);
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 3, 10000);
        QTRY_COMPARE(panel->decisionCount(), 3);
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        // QTest leaves Control in the application's modifier state, which would turn later
        // programmatic selections (ExtendedSelection views) into toggles: clear it.
        QTest::keyClick(&w, Qt::Key_Escape);
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 4, 10000);
        QTRY_COMPARE(panel->decisionCount(), 2);
        QVERIFY(cmp->decisionMessage().contains(QStringLiteral("Undone")));

        // Export through the dialog: every file reflects the two decisions.
        ExportDialog* d = w.openExportDialog();
        QVERIFY(d);
        QTemporaryDir out;
        d->setOutputDirectory(out.path());
        QSignalSpy done(d, &ExportDialog::exported);
        d->startExport();
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 10000);
        QVERIFY2(done.front().at(0).toBool(), qPrintable(d->resultText()));
        QString keptFile, removedFile, clustersFile, dedupFile, summaryFile;
        for (const QString& f : d->plannedFiles()) {
            if (f.endsWith(QLatin1String("-kept.txt"))) keptFile = f;
            if (f.endsWith(QLatin1String("-removed.txt"))) removedFile = f;
            if (f.endsWith(QLatin1String("-clusters.jsonl"))) clustersFile = f;
            if (f.endsWith(QLatin1String("-dedup.jsonl"))) dedupFile = f;
            if (f.endsWith(QLatin1String("-summary.json"))) summaryFile = f;
        }
        d->close();
        DocumentTable docs;
        RunResult audited;
        {
            ProjectStore store(auditProject_.toStdString());
            store.loadDataset(info.datasetId, &docs);
            audited = store.loadRun(runId);
        }
        QCOMPARE(audited.decisionsApplied, uint64_t{2});
        const QStringList kept = readLines(keptFile), removed = readLines(removedFile);
        QCOMPARE(quint64(kept.size() + removed.size()), quint64(docs.size()));
        QCOMPARE(quint64(removed.size()), info.removed - 1);  // the cut pair keeps both
        auto id = [&](uint32_t doc) { return QString::fromStdString(std::string(docs.id(doc))); };
        for (const uint32_t doc : {cutA, cutB, chosen})
            QVERIFY2(kept.contains(id(doc)), qPrintable(id(doc)));
        QVERIFY(removed.contains(id(big.representative)));
        QCOMPARE(countLines(dedupFile), int(kept.size()));
        uint64_t clustered = 0;
        for (const uint32_t c : audited.clusterOf)
            clustered += c != RunResult::kNoCluster ? 1 : 0;
        const QStringList clusterLines = readLines(clustersFile);
        QCOMPARE(quint64(clusterLines.size()), clustered);
        for (const QString& line : clusterLines) {
            QVERIFY(!line.contains(QLatin1Char('"') + id(cutA) + QLatin1Char('"')));
            // The chosen member's own line (others name it as the document they are removed for).
            if (line.contains(QStringLiteral("\"id\":\"") + id(chosen) + QLatin1Char('"')))
                QVERIFY(line.contains(QStringLiteral("\"representative\":true")));
        }
        QVERIFY(readLines(summaryFile)
                    .join(QLatin1Char('\n'))
                    .contains(QStringLiteral("\"decisions_applied\": 2")));

        // Reopened in a new window, the decisions are still there.
        auditWindow_.reset();
        auditWindow_ = std::make_unique<MainWindow>();
        MainWindow& again = *auditWindow_;
        again.show();
        again.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&again));
        QVERIFY(again.openProject(auditProject_, true));
        QTRY_COMPARE(again.currentRun().runId, runId);
        QTRY_COMPARE(again.clusters()->model()->totalCount(), quint64(info.clusters - 1));
        QTRY_COMPARE(again.clusters()->decisionCount(), 2);
        QVERIFY(again.clusters()->comparison()->undoButton()->isEnabled());
    }

    // The search box: ids as you type, texts on Enter (read back on a thread, with progress),
    // and the filter by decision.
    void searchBoxFiltersClusters() {
        QVERIFY(auditWindow_);
        MainWindow& w = *auditWindow_;
        ClustersPanel* panel = w.clusters();
        const qint64 runId = w.currentRun().runId;
        const quint64 all = panel->model()->totalCount();
        ProjectQueries q(auditProject_.toStdString());
        const ClusterRow big = q.clusters(runId, {}, ClusterSort::Size, true, 0, 1).front();
        const auto members = q.clusterMembers(runId, big.cluster);
        // Ids: typing a member's id narrows the table to clusters with such an id.
        panel->searchBox()->setFocus();
        QTest::keyClicks(panel->searchBox(), QString::fromStdString(members.back().docId));
        QTRY_VERIFY(panel->model()->totalCount() < all && !panel->model()->isLoading());
        bool found = false;
        for (int r = 0; r < panel->model()->rowCount(); ++r)
            found = found || panel->model()->clusterAt(r)->cluster == big.cluster;
        QVERIFY(found);
        panel->searchBox()->clear();
        QTRY_COMPARE(panel->model()->totalCount(), all);

        // Text: a piece of a member's text, in other case; Enter starts the search.
        const DatasetSource src = q.datasetSource(w.currentRun().datasetId);
        DocumentFetcher fetcher(src.files, src.reader);
        const FetchedDocument doc = fetcher.fetch(members.front().location);
        QVERIFY(doc.ok && doc.text.size() > 80);
        const QString needle = QString::fromStdString(doc.text.substr(40, 30)).toUpper();
        const TextSearchResult expected =
            searchTexts(fetcher, q.clusteredDocuments(runId), needle.toStdString());
        std::set<int64_t> expectedClusters;
        for (const uint32_t m : expected.matches)
            if (q.clusterOfDocument(runId, m) >= 0)
                expectedClusters.insert(q.clusterOfDocument(runId, m));
        QVERIFY(expectedClusters.count(big.cluster));
        panel->setSearchMode(ClustersPanel::SearchMode::Text);
        QSignalSpy searched(panel, &ClustersPanel::textSearchFinished);
        QTRY_VERIFY(!panel->model()->isLoading() && panel->model()->totalCount() == all);
        QTest::keyClicks(panel->searchBox(), needle);
        QTest::qWait(400);  // longer than the id search's pause: typing alone searches nothing
        QVERIFY(!panel->model()->isLoading());
        QCOMPARE(panel->model()->totalCount(), all);
        QTest::keyClick(panel->searchBox(), Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(searched.size(), 1, 10000);
        QCOMPARE(searched.front().at(0).toULongLong(), quint64(expected.matches.size()));
        QTRY_VERIFY(!panel->model()->isLoading() &&
                    panel->model()->totalCount() == quint64(expectedClusters.size()));
        for (int r = 0; r < panel->model()->rowCount(); ++r)
            QVERIFY(expectedClusters.count(panel->model()->clusterAt(r)->cluster));
        QVERIFY(panel->searchStatus().contains(QStringLiteral("match")));
        panel->searchBox()->clear();
        QTRY_COMPARE(panel->model()->totalCount(), all);
        panel->setSearchMode(ClustersPanel::SearchMode::Ids);

        // Only clusters shaped by a decision: the one whose representative was chosen.
        QTest::mouseClick(panel->decidedOnlyBox(), Qt::LeftButton);
        QTRY_VERIFY(!panel->model()->isLoading() && panel->model()->totalCount() == 1);
        QVERIFY(panel->model()->clusterAt(0)->decisions & kMarkKeepInstead);
        QTest::mouseClick(panel->decidedOnlyBox(), Qt::LeftButton);
        QTRY_COMPARE(panel->model()->totalCount(), all);
        auditWindow_.reset();
        window_->activateWindow();
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
