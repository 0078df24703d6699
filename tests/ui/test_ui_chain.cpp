// The workbench's chain view and diameter flag, offscreen in a real window on
// projects made by the real CLI from the chain corpus (tests/support/chain_corpus.h): a chain of
// 25 versions, each a 3 % edit of the previous one, and a star of 12 versions, each a 3 % edit
// of one original. The chain's cluster is flagged with a diameter below θ, the star's is not;
// the Chain tab lists every removal under its witness, and the kept members the cluster reaches
// only through removed ones under those; a click on a node compares it with its parent.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QCheckBox>
#include <QHeaderView>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidgetItem>
#include <QTreeWidgetItemIterator>
#include <map>

#include "chain_corpus.h"
#include "chainview.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "comparisonview.h"
#include "component_chain.h"
#include "mainwindow.h"
#include "project_queries.h"
#include "test_support.h"

using namespace neardup;
using namespace neardup::ui;

class TestUiChain : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> window_;
    QString corpus_;

    QString path(const QString& name) const { return dir_.filePath(name); }

    // `neardup run` on the corpus into NAME.ndw with the given removal rule.
    QString makeProject(const QString& name, const QString& rule) {
        const QString project = path(name + QStringLiteral(".ndw"));
        const testsupport::CliResult r = testsupport::neardup(
            {QStringLiteral("run"), corpus_, QStringLiteral("-p"), project,
             QStringLiteral("--verify"), QStringLiteral("exact"), QStringLiteral("--decide"), rule,
             QStringLiteral("-j"), QStringLiteral("2")});
        if (r.code != 0) qWarning("neardup run: exit %d: %s", r.code, qPrintable(r.err));
        return r.code == 0 ? project : QString();
    }

    // Opens the project and waits until its clusters are listed and their diameters measured.
    void openAndMeasure(const QString& project) {
        QVERIFY(window_->openProject(project, true));
        ClustersModel* m = window_->clusters()->model();
        QTRY_VERIFY_WITH_TIMEOUT(m->runId() == 1 && m->rowCount() == int(m->totalCount()) &&
                                     m->totalCount() > 0 && m->diametersMeasured() &&
                                     window_->isSettled(),
                                 20000);
    }

    // The listed cluster whose representative has this id, or null.
    const ClusterRow* clusterOf(const char* representativeId) const {
        ClustersModel* m = window_->clusters()->model();
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->clusterAt(r)->representativeId == representativeId) return m->clusterAt(r);
        return nullptr;
    }

    // Selects the cluster (the first row is selected when a listing arrives) and waits until
    // its members and chain are shown.
    void showCluster(const ClusterRow& c) {
        ClustersPanel* panel = window_->clusters();
        panel->selectClusterRow(panel->model()->rowOfCluster(c.cluster));
        QTRY_VERIFY_WITH_TIMEOUT(
            panel->currentCluster() == c.cluster && panel->chainView()->itemOf(c.representative) &&
                panel->membersTable()->rowCount() == int(c.size) && window_->isSettled(),
            20000);
    }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_chain"));
        QVERIFY(dir_.isValid());
        corpus_ = path(QStringLiteral("chain.jsonl"));
        testsupport::writeChainCorpus(corpus_.toStdString(), 12);
        window_ = std::make_unique<MainWindow>();
        window_->show();
    }

    void cleanupTestCase() { window_.reset(); }

    // The chain's component spreads far below θ and is flagged; the star's does not and is not.
    void chainIsFlaggedStarIsNot() {
        const QString project = makeProject(QStringLiteral("witness"), QStringLiteral("witness"));
        QVERIFY(!project.isEmpty());
        openAndMeasure(project);
        if (QTest::currentTestFailed()) return;
        ClustersModel* m = window_->clusters()->model();
        QCOMPARE(m->totalCount(), quint64(2));
        const ClusterRow* chain = clusterOf("v00");
        const ClusterRow* star = clusterOf("s00");
        QVERIFY(chain && star);
        QCOMPARE(chain->size, quint64(testsupport::kChainVersions));
        QCOMPARE(star->size, quint64(12));
        const double theta = 0.8;
        const ComponentDiameter* dc = m->diameterOf(chain->cluster);
        const ComponentDiameter* ds = m->diameterOf(star->cluster);
        QVERIFY(dc && ds);
        // The far end of the chain (first vs last: exact Jaccard about 0.25) is the farthest.
        QVERIFY2(dc->diameter < 0.5, qPrintable(QString::number(dc->diameter)));
        QVERIFY(dc->diameter < chainBelow(theta, 128));
        QVERIFY(dc->chain && dc->flagged() && !dc->large);
        QVERIFY2(ds->diameter >= chainBelow(theta, 128), qPrintable(QString::number(ds->diameter)));
        QVERIFY(!ds->flagged());
        // The table says so in its Diameter column, and the count line.
        const int chainRow = m->rowOfCluster(chain->cluster),
                  starRow = m->rowOfCluster(star->cluster);
        const QString chainText = m->index(chainRow, ClustersModel::Diameter).data().toString();
        const QString starText = m->index(starRow, ClustersModel::Diameter).data().toString();
        QVERIFY2(chainText.contains(QStringLiteral("\u26a0")) &&
                     chainText.contains(QStringLiteral("chain")),
                 qPrintable(chainText));
        QVERIFY2(!starText.contains(QStringLiteral("\u26a0")), qPrintable(starText));
        QCOMPARE(m->flaggedCount(), quint64(1));
    }

    // The Diameter column sorts the listing (the chain, far below θ, first ascending; the star
    // first descending, against the size order) and the "flagged" box keeps the chain alone.
    void diameterColumnSortsAndFilters() {
        ClustersPanel* panel = window_->clusters();
        ClustersModel* m = panel->model();
        QCOMPARE(m->totalCount(), quint64(2));
        auto listedFirst = [m](const char* id, quint64 count) {
            return !m->isLoading() && m->totalCount() == count && m->rowCount() == int(count) &&
                   m->clusterAt(0)->representativeId == id && m->diametersMeasured();
        };
        panel->view()->sortByColumn(ClustersModel::Diameter, Qt::AscendingOrder);
        QTRY_VERIFY_WITH_TIMEOUT(listedFirst("v00", 2), 20000);
        panel->view()->sortByColumn(ClustersModel::Diameter, Qt::DescendingOrder);
        QTRY_VERIFY_WITH_TIMEOUT(listedFirst("s00", 2), 20000);
        QVERIFY(m->diameterOf(m->clusterAt(0)->cluster)->diameter >
                m->diameterOf(m->clusterAt(1)->cluster)->diameter);

        panel->flaggedOnlyBox()->setChecked(true);
        QTRY_VERIFY_WITH_TIMEOUT(listedFirst("v00", 1), 20000);
        QVERIFY(m->diameterOf(m->clusterAt(0)->cluster)->chain);
        panel->flaggedOnlyBox()->setChecked(false);
        QTRY_VERIFY_WITH_TIMEOUT(listedFirst("s00", 2), 20000);
        panel->view()->sortByColumn(ClustersModel::Size, Qt::DescendingOrder);
        QTRY_VERIFY_WITH_TIMEOUT(listedFirst("v00", 2) && window_->isSettled(), 20000);
    }

    // The Chain tab: each removal under its witness with the pair's Jaccard (>= θ, exact); each
    // kept member other than the representative under a removed member it is linked to; a click
    // compares a node with its parent.
    void chainViewListsRemovalsUnderTheirWitness() {
        ClustersModel* m = window_->clusters()->model();
        const ClusterRow* chain = clusterOf("v00");
        QVERIFY(chain);
        showCluster(*chain);
        if (QTest::currentTestFailed()) return;
        ChainView* view = window_->clusters()->chainView();
        const std::vector<ClusterMember> members =
            ProjectQueries(window_->projectPath().toStdString()).clusterMembers(1, chain->cluster);
        QCOMPARE(int(members.size()), testsupport::kChainVersions);
        int removed = 0, keptThroughRemoved = 0;
        for (const ClusterMember& member : members) {
            QTreeWidgetItem* item = view->itemOf(member.docIndex);
            QVERIFY2(item, qPrintable(QString::fromStdString(member.docId)));
            if (member.representative) {
                QVERIFY(!item->parent());
                continue;
            }
            QVERIFY(item->parent());
            const uint32_t up = item->parent()->data(0, ChainView::kDocRole).toUInt();
            if (!member.kept) {
                ++removed;
                QCOMPARE(int64_t{up}, member.removedFor);
                QVERIFY(item->text(ChainView::Status).contains(QStringLiteral("witness")));
                // The stored pair's exact Jaccard, at least θ under --verify exact.
                const QString j = item->text(ChainView::WithParent);
                const qsizetype at = j.indexOf(QStringLiteral("exact "));
                QVERIFY2(at >= 0, qPrintable(j));
                QVERIFY2(j.mid(at + 6, 5).toDouble() >= 0.8, qPrintable(j));
            } else {
                ++keptThroughRemoved;
                bool parentRemoved = false;
                for (const ClusterMember& p : members)
                    if (p.docIndex == up) parentRemoved = !p.kept;
                QVERIFY(parentRemoved);
                QVERIFY(item->text(ChainView::Status).contains(QStringLiteral("linked through")));
                QVERIFY(!item->text(ChainView::WithRepresentative).isEmpty());
            }
        }
        QVERIFY(removed >= 10);
        QVERIFY(keptThroughRemoved >= 3);
        // A click on the last removal compares it with its witness.
        QTreeWidgetItem* last = nullptr;
        for (const ClusterMember& member : members)
            if (!member.kept) last = view->itemOf(member.docIndex);
        QVERIFY(last);
        window_->clusters()->memberTabs()->setCurrentWidget(view);
        QSignalSpy compared(window_->clusters(), &ClustersPanel::comparisonShown);
        emit view->itemClicked(last, 0);
        ComparisonView* c = window_->clusters()->comparison();
        const uint32_t doc = last->data(0, ChainView::kDocRole).toUInt();
        const uint32_t up = last->parent()->data(0, ChainView::kDocRole).toUInt();
        QTRY_VERIFY_WITH_TIMEOUT(c->hasComparison() && c->leftDocument() == std::min(doc, up) &&
                                     c->rightDocument() == std::max(doc, up),
                                 20000);
        Q_UNUSED(m);
    }

    // At 1280x800 the Members and Chain tabs show more than a few rows, and on the deep chain
    // (each version under the one before) Status and both Jaccards lie inside the view, not
    // behind a horizontal scroll bar.
    void deepChainKeepsStatusAndJaccardsInView() {
        window_->resize(1280, 800);
        const ClusterRow* chain = clusterOf("v00");
        QVERIFY(chain);
        showCluster(*chain);
        if (QTest::currentTestFailed()) return;
        ChainView* view = window_->clusters()->chainView();
        window_->clusters()->memberTabs()->setCurrentWidget(view);
        QTRY_VERIFY(view->isVisible());
        QTest::qWait(50);  // the layout after the resize
        int depth = 0;
        for (QTreeWidgetItemIterator it(view); *it; ++it) {
            int d = 0;
            for (QTreeWidgetItem* p = (*it)->parent(); p; p = p->parent())
                ++d;
            depth = std::max(depth, d);
        }
        QVERIFY2(depth >= 8, qPrintable(QString::number(depth)));
        const int rowHeight = view->visualItemRect(view->topLevelItem(0)).height();
        QVERIFY(rowHeight > 0);
        QVERIFY2(view->viewport()->height() / rowHeight >= 6,
                 qPrintable(QStringLiteral("%1 px for rows of %2 px")
                                .arg(view->viewport()->height())
                                .arg(rowHeight)));
        const QHeaderView* h = view->header();
        for (const int c : {int(ChainView::Status), int(ChainView::WithParent),
                            int(ChainView::WithRepresentative)}) {
            const int start = h->sectionViewportPosition(c), end = start + h->sectionSize(c);
            QVERIFY2(start >= 0 && end <= view->viewport()->width(),
                     qPrintable(QStringLiteral("column %1 spans %2-%3 of %4 px")
                                    .arg(c)
                                    .arg(start)
                                    .arg(end)
                                    .arg(view->viewport()->width())));
        }
        // Status is whole, not elided.
        int statusWidth = 0;
        for (QTreeWidgetItemIterator it(view); *it; ++it)
            statusWidth = std::max(
                statusWidth, view->fontMetrics().horizontalAdvance((*it)->text(ChainView::Status)));
        QVERIFY2(h->sectionSize(ChainView::Status) > statusWidth,
                 qPrintable(QStringLiteral("%1 px for %2 px of text")
                                .arg(h->sectionSize(ChainView::Status))
                                .arg(statusWidth)));
    }

    // Under --decide components every removal hangs under the representative; those without a
    // pair with it are shown as chained. The diameter is the component's, whatever the rule.
    void componentsRuleShowsChainedRemovals() {
        const QString project =
            makeProject(QStringLiteral("components"), QStringLiteral("components"));
        QVERIFY(!project.isEmpty());
        openAndMeasure(project);
        if (QTest::currentTestFailed()) return;
        ClustersModel* m = window_->clusters()->model();
        const ClusterRow* chain = clusterOf("v00");
        QVERIFY(chain);
        const ComponentDiameter* dc = m->diameterOf(chain->cluster);
        QVERIFY(dc && dc->chain);
        showCluster(*chain);
        if (QTest::currentTestFailed()) return;
        ChainView* view = window_->clusters()->chainView();
        QCOMPARE(view->topLevelItemCount(), 1);
        QTreeWidgetItem* root = view->topLevelItem(0);
        QCOMPARE(root->childCount(), testsupport::kChainVersions - 1);
        int chained = 0;
        for (int i = 0; i < root->childCount(); ++i)
            if (root->child(i)->text(ChainView::Status).contains(QStringLiteral("chained")))
                ++chained;
        QVERIFY(chained >= 15);
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiChain : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiChain)
#include "test_ui_chain.moc"
