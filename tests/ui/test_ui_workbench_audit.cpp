// The workbench's audit workflow driven offscreen, in a window and project of its own: keep and
// remove decisions on clusters and documents are recorded in the project, survive reopening and
// reach the exports; the search box filters clusters by id, by text and by decision.
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

#include "ui_workbench_fixture.h"

class TestUiWorkbenchAudit : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> auditWindow_;
    QString auditProject_, auditCorpus_;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_workbench_audit"));
        QVERIFY(dir_.isValid());
    }

    void cleanupTestCase() { auditWindow_.reset(); }

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
        // decisionsChanged comes as the members are asked for again: until they arrive the
        // table still lists them as before the decision (same count), so wait for the chosen
        // member to show as kept.
        const auto chosenShownKept = [&] {
            QTableWidget* t = panel->membersTable();
            if (t->rowCount() != int(big.size)) return false;
            for (int r = 0; r < t->rowCount(); ++r)
                if (t->item(r, 0)->text() == QString::number(chosen))
                    return t->item(r, 3)->text() == QStringLiteral("kept");
            return false;
        };
        QTRY_VERIFY(chosenShownKept());
        QString chosenId;
        for (int r = 0; r < panel->membersTable()->rowCount(); ++r)
            if (panel->membersTable()->item(r, 0)->text() == QString::number(chosen))
                chosenId = panel->membersTable()->item(r, 1)->text();
        for (int r = 0; r < panel->membersTable()->rowCount(); ++r) {
            const bool isChosen =
                panel->membersTable()->item(r, 0)->text() == QString::number(chosen);
            const QString status = panel->membersTable()->item(r, 3)->text();
            QCOMPARE(status == QStringLiteral("kept"), isChosen);
            // The others are removed for the chosen one (components rule), named by its id.
            if (!isChosen) QCOMPARE(status, QStringLiteral("removed (for %1)").arg(chosenId));
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
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiWorkbenchAudit : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiWorkbenchAudit)
#include "test_ui_workbench_audit.moc"
