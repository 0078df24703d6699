// Keyboard-only review in a real window on a real project, offscreen: Y confirms, N rejects
// and K keeps the other document, each going on to the next pair (and on to the next cluster
// after a cluster's last pair); the review progress follows ("reviewed 2 of N clusters");
// Ctrl+F focuses the search, whose hits are marked in the comparison; a double-click in a
// cluster's or a bucket's document list opens the side-by-side view on that document; the
// sampled audit draws a sample, takes verdicts by key and shows the estimated precision.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextEdit>

#include "audit_sample.h"
#include "auditdialog.h"
#include "bucket_members.h"
#include "bucketspanel.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "comparisonview.h"
#include "engine_fixture.h"
#include "mainwindow.h"
#include "numbertext.h"
#include "pipeline.h"
#include "project_queries.h"
#include "project_store.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "ui_window_fixture.h"

using namespace neardup;
using namespace neardup::ui;

class TestUiReview : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> window_;
    QString project_;
    RunResult run_;

    std::pair<uint32_t, uint32_t> shownPair() const {
        const ComparisonView* c = window_->clusters()->comparison();
        return {c->leftDocument(), c->rightDocument()};
    }

    // Presses `key` in the window and waits for the decision and the comparison after it.
    void press(Qt::Key key) {
        ClustersPanel* panel = window_->clusters();
        QSignalSpy decided(panel, &ClustersPanel::decisionsChanged);
        QSignalSpy shown(panel, &ClustersPanel::comparisonShown);
        QTest::keyClick(window_.get(), key);
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(shown.size() >= 1 && panel->comparison()->hasComparison(), 20000);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        uiwindow::isolateSettings(dir_.filePath(QStringLiteral("settings")), "test_ui_review");
        project_ = dir_.filePath(QStringLiteral("review.ndw"));
        const std::string corpus = dir_.filePath(QStringLiteral("review.jsonl")).toStdString();
        testsupport::writeGeneratedCorpus(corpus, {.documents = 500, .seed = 9, .meanChars = 600});
        RunParams params;
        params.compare.threshold = 0.7;
        params.decide = DecideRule::Components;
        run_ = testsupport::runEngine(project_.toStdString(), {corpus}, params);
        QVERIFY(run_.counts.clusters > 5);
        window_ = std::make_unique<MainWindow>();
        QVERIFY(uiwindow::openActive(*window_, project_));
    }

    void cleanupTestCase() { window_.reset(); }

    void keysReviewPairAfterPair() {
        MainWindow& w = *window_;
        ClustersPanel* panel = w.clusters();
        const QString total = countText(run_.counts.clusters);
        QTRY_COMPARE(panel->reviewProgressText(),
                     QStringLiteral("reviewed 0 of %1 clusters").arg(total));
        // The largest cluster first (the table's default order): it has several pairs.
        QTRY_VERIFY(panel->comparison()->hasComparison() && panel->pairCount() > 2);
        const qint64 cluster = panel->currentCluster();
        QCOMPARE(panel->currentPair(), 0);
        panel->view()->setFocus();
        const auto first = shownPair();

        // Y: confirmed, nothing changes, the next pair of the same cluster is shown.
        press(Qt::Key_Y);
        QTRY_COMPARE(panel->currentPair(), 1);
        QCOMPARE(panel->currentCluster(), cluster);
        QVERIFY(shownPair() != first);
        QTRY_COMPARE(panel->reviewProgressText(),
                     QStringLiteral("reviewed 1 of %1 clusters").arg(total));
        ProjectQueries q(project_.toStdString());
        auto decisions = q.decisions(run_.datasetId);
        QCOMPARE(decisions.size(), std::size_t{1});
        QCOMPARE(decisions[0].kind, DecisionKind::ConfirmedDuplicate);
        QCOMPARE(std::make_pair(decisions[0].a, decisions[0].b), first);
        QCOMPARE(panel->model()->totalCount(), quint64(run_.counts.clusters));

        // K: the removed one of the pair is kept instead, and the review goes on.
        const auto second = shownPair();
        press(Qt::Key_K);
        decisions = q.decisions(run_.datasetId);
        QCOMPARE(decisions.size(), std::size_t{2});
        QCOMPARE(decisions[1].kind, DecisionKind::KeepInstead);
        QVERIFY(decisions[1].a == second.first || decisions[1].a == second.second);
        QTRY_VERIFY(shownPair() != second);

        // To the cluster's last pair, then Y moves on to the next cluster.
        while (panel->currentPair() + 1 < panel->pairCount()) {
            QSignalSpy shown(panel, &ClustersPanel::comparisonShown);
            QTest::keyClick(&w, Qt::Key_Down, Qt::AltModifier);
            QTRY_COMPARE(shown.size(), 1);
        }
        QCOMPARE(panel->currentCluster(), cluster);
        press(Qt::Key_Y);
        QTRY_VERIFY(panel->currentCluster() != cluster);
        QCOMPARE(panel->currentPair(), 0);
        // The review moved on: the message still confirms the key just pressed.
        QVERIFY2(panel->comparison()->decisionMessage().startsWith(
                     QStringLiteral("Recorded: confirmed duplicate")),
                 qPrintable(panel->comparison()->decisionMessage()));

        // N: not a duplicate; the cluster may split; the review goes on from there.
        const auto rejected = shownPair();
        press(Qt::Key_N);
        decisions = q.decisions(run_.datasetId);
        QCOMPARE(decisions.back().kind, DecisionKind::NotDuplicate);
        QCOMPARE(std::make_pair(decisions.back().a, decisions.back().b), rejected);
        QTRY_VERIFY(shownPair() != rejected);
        const ReviewProgress progress = q.reviewProgress(run_.runId);
        QTRY_COMPARE(panel->reviewProgressText(), QStringLiteral("reviewed %1 of %2 clusters")
                                                      .arg(progress.reviewed)
                                                      .arg(countText(progress.clusters)));
        QVERIFY(progress.reviewed >= 2);
        // The buttons' tooltips name the keys.
        QVERIFY(panel->comparison()->confirmButton()->toolTip().contains(QStringLiteral("(Y)")));
        QVERIFY(
            panel->comparison()->notDuplicateButton()->toolTip().contains(QStringLiteral("(N)")));
    }

    // Ctrl+F focuses the search box; a text typed there is marked in both documents.
    void findFocusesSearchAndMarksHits() {
        MainWindow& w = *window_;
        ClustersPanel* panel = w.clusters();
        panel->setSearchMode(ClustersPanel::SearchMode::Text);
        panel->view()->setFocus();
        QVERIFY(!panel->searchBox()->hasFocus());
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(panel->searchBox()->hasFocus());
        // A word of the left document (letters only, five or more).
        const QStringList words = panel->comparison()->leftText().split(QLatin1Char(' '));
        QString word;
        for (const QString& x : words)
            if (x.size() >= 5 &&
                std::all_of(x.begin(), x.end(), [](QChar c) { return c.isLetter(); }))
                word = x;
        QVERIFY(!word.isEmpty());
        QTest::keyClicks(panel->searchBox(), word);
        QVERIFY(panel->comparison()->highlightCount() >= 1);
        QVERIFY(!panel->comparison()->leftView()->extraSelections().isEmpty());
        // Letters typed into the search box are text, not review keys.
        QCOMPARE(ProjectQueries(project_.toStdString()).decisions(run_.datasetId).size(),
                 std::size_t{4});
        panel->searchBox()->clear();
        QCOMPARE(panel->comparison()->highlightCount(), 0);
        panel->setSearchMode(ClustersPanel::SearchMode::Ids);
    }

    // A double-click on a member opens its comparison with the document it is removed for.
    void doubleClickAMember() {
        QVERIFY(uiwindow::settle(*window_));
        ClustersPanel* panel = window_->clusters();
        QTableWidget* members = panel->membersTable();
        QTRY_VERIFY(members->rowCount() >= 2);
        int row = -1;
        for (int r = 0; r < members->rowCount() && row < 0; ++r)
            if (members->item(r, 3)->text().startsWith(QStringLiteral("removed"))) row = r;
        QVERIFY(row >= 0);
        const uint32_t doc = members->item(row, 0)->text().toUInt();
        members->scrollTo(members->model()->index(row, 1));
        const QRect cell = members->visualRect(members->model()->index(row, 1));
        QTest::mouseClick(members->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(members->viewport(), Qt::LeftButton, {}, cell.center());
        QTRY_VERIFY(shownPair().first == doc || shownPair().second == doc);
    }

    // A double-click on a document of a bucket goes to the Clusters tab and compares it there.
    void doubleClickABucketDocument() {
        QVERIFY(uiwindow::settle(*window_));
        MainWindow& w = *window_;
        w.tabs()->setCurrentWidget(w.buckets());
        uint32_t doc = 0;
        for (uint32_t d = 0; d < run_.clusterOf.size(); ++d)
            if (run_.removed(d)) {
                doc = d;
                break;
            }
        QVERIFY(run_.removed(doc));
        uint64_t key = 0;
        {
            ProjectStore store(project_.toStdString(), ProjectStore::Mode::ReadOnly);
            auto backend = makeCpuBackend(1);
            BandKeyTable keys;
            QVERIFY(keys.load(store, run_.runId, *backend));
            key = keys.key(doc, 0);
        }
        BucketsPanel* b = w.buckets();
        QSignalSpy listed(b, &BucketsPanel::membersListed);
        b->showBucket(0, key);
        QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 1, 20000);
        QVERIFY(listed.front().at(0).toBool());
        QTableView* table = b->membersTable();
        int row = -1;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            if (table->model()->index(r, 0).data(Qt::UserRole + 1).toUInt() == doc) row = r;
        QVERIFY(row >= 0);
        ClustersPanel* panel = w.clusters();
        table->scrollTo(table->model()->index(row, 0));
        const QRect cell = table->visualRect(table->model()->index(row, 0));
        // As a user's double-click arrives: a click, then the double-click event.
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QTRY_COMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(panel));
        QTRY_VERIFY_WITH_TIMEOUT(shownPair().first == doc || shownPair().second == doc, 20000);
    }

    // A decision's message names the documents by their ids and speaks of its own cluster:
    // another cluster selected clears it (the undo line keeps the last decision).
    void decisionMessageFollowsTheCluster() {
        QVERIFY(uiwindow::settle(*window_));
        ClustersPanel* panel = window_->clusters();
        QTRY_VERIFY(panel->comparison()->hasComparison() && panel->model()->rowCount() > 2);
        panel->selectClusterRow(0);
        QTRY_VERIFY_WITH_TIMEOUT(panel->comparison()->hasComparison(), 20000);
        QVERIFY(uiwindow::settle(*window_));
        const uint32_t left = panel->comparison()->leftDocument();
        QString id;
        QTableWidget* members = panel->membersTable();
        for (int r = 0; r < members->rowCount(); ++r)
            if (members->item(r, 0)->text().toUInt() == left) id = members->item(r, 1)->text();
        QVERIFY(!id.isEmpty() && id != QString::number(left));
        QSignalSpy decided(panel, &ClustersPanel::decisionsChanged);
        QTest::mouseClick(panel->comparison()->notDuplicateButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 20000);
        QVERIFY(uiwindow::settle(*window_));
        const QString message = panel->comparison()->decisionMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Recorded: not a duplicate ")) &&
                     message.contains(id),
                 qPrintable(message + QStringLiteral(" lacks ") + id));
        const qint64 decidedCluster = panel->currentCluster();
        int other = 0;
        while (panel->model()->clusterAt(other)->cluster == decidedCluster)
            ++other;
        QSignalSpy shown(panel, &ClustersPanel::clusterShown);
        panel->selectClusterRow(other);
        QTRY_VERIFY_WITH_TIMEOUT(shown.size() >= 1, 20000);
        QCOMPARE(panel->currentCluster(), panel->model()->clusterAt(other)->cluster);
        QVERIFY2(panel->comparison()->decisionMessage().isEmpty(),
                 qPrintable(panel->comparison()->decisionMessage()));
    }

    // Run ▸ Audit N Random Pairs: a sample drawn as core draws it, verdicts by key (D, N, U),
    // the estimate in the dialog, beside the run in the history and in the clusters panel;
    // opened again, the dialog goes on with the same sample.
    void sampledAuditByKeys() {
        QVERIFY(uiwindow::settle(*window_));
        MainWindow& w = *window_;
        AuditDialog* dialog = w.openAuditDialog();
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        dialog->sizeBox()->setValue(12);
        dialog->seedBox()->setValue(3);
        QSignalSpy loaded(dialog, &AuditDialog::sampleLoaded);
        QTest::mouseClick(dialog->drawButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 20000);
        const AuditDraw expected = drawAuditSample(run_.pairs, run_.params.signature.hashes,
                                                   run_.params.compare.threshold, 12, 3);
        QVERIFY(dialog->sample());
        QCOMPARE(dialog->sample()->draw.pairs.size(), expected.pairs.size());
        for (std::size_t i = 0; i < expected.pairs.size(); ++i)
            QVERIFY(dialog->sample()->draw.pairs[i].a == expected.pairs[i].a &&
                    dialog->sample()->draw.pairs[i].b == expected.pairs[i].b);
        QCOMPARE(dialog->currentIndex(), 0);
        const Qt::Key keys[] = {Qt::Key_D, Qt::Key_D, Qt::Key_N, Qt::Key_U, Qt::Key_D};
        for (const Qt::Key key : keys) {
            QSignalSpy recorded(dialog, &AuditDialog::verdictRecorded);
            QTest::keyClick(dialog, key);
            QTRY_COMPARE_WITH_TIMEOUT(recorded.size(), 1, 20000);
        }
        QCOMPARE(dialog->currentIndex(), 5);
        const PrecisionEstimate e = dialog->estimate();
        QCOMPARE(e.judged, uint64_t{4});
        QCOMPARE(e.duplicates, uint64_t{3});
        QCOMPARE(e.unsure, uint64_t{1});
        // The same estimate from what the project stores.
        ProjectQueries q(project_.toStdString());
        const auto stored = q.latestAudit(run_.runId);
        QVERIFY(stored);
        const PrecisionEstimate again = estimatePrecision(stored->draw.strata, stored->draw.pairs);
        QCOMPARE(again.precision, e.precision);
        QCOMPARE(again.low, e.low);
        QVERIFY(dialog->estimateText().contains(precisionText(e)));
        const QString shown = QString::number(e.precision, 'f', 3);
        QTRY_VERIFY(w.history()
                        ->model()
                        ->index(0, RunHistoryModel::Precision)
                        .data()
                        .toString()
                        .startsWith(shown));
        QTRY_VERIFY(w.clusters()->reviewProgressText().contains(precisionText(e)));
        dialog->close();

        AuditDialog* reopened = w.openAuditDialog();
        QSignalSpy reloaded(reopened, &AuditDialog::sampleLoaded);
        QTRY_COMPARE_WITH_TIMEOUT(reloaded.size(), 1, 20000);
        QCOMPARE(reopened->sample()->sampleId, stored->sampleId);
        QCOMPARE(reopened->currentIndex(), 5);
        QCOMPARE(reopened->estimate().judged, uint64_t{4});
        reopened->close();
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiReview : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the workbench (Qt Widgets)"); }
};

#endif

QTEST_MAIN(TestUiReview)
#include "test_ui_review.moc"
