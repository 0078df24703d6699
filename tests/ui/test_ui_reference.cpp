// A run against a reference (`neardup run NEW --reference REF`) in the workbench: a project made
// by the CLI from a generated corpus split in two shows the reference's documents as such (the
// members' status "reference", never "kept" or "removed"; the clusters table's representative
// marked, and so are the chain view's and a bucket's), the side-by-side view puts the
// reference's document on the left and the new one on the right, the "matched the reference"
// filter lists the clusters with a reference member, the run history gives the run's reference
// counts, the inputs and the reference come back in the dataset panel, a listing at another
// threshold or after a decision keeps the reference first, and a run started from the workbench
// with a reference records it.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QCheckBox>
#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidgetItem>
#include <cmath>
#include <limits>

#include "backend_factory.h"
#include "bucket_members.h"
#include "bucketspanel.h"
#include "chainview.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "comparisonview.h"
#include "datasetpanel.h"
#include "mainwindow.h"
#include "numbertext.h"
#include "project_queries.h"
#include "project_store.h"
#include "runcontroller.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "test_support.h"
#include "thresholdpanel.h"
#include "ui_window_fixture.h"

using namespace neardup;
using namespace neardup::ui;
using testsupport::readFile;
using testsupport::writeFile;

namespace {

// Every cluster of a listing, a page at a time.
std::vector<ClusterRow> allClusters(ProjectQueries& q, int64_t run, const ClusterFilter& f) {
    std::vector<ClusterRow> out;
    for (uint64_t offset = 0;; offset += 500) {
        const std::vector<ClusterRow> page =
            q.clusters(run, f, ClusterSort::Cluster, false, offset, 500);
        out.insert(out.end(), page.begin(), page.end());
        if (page.size() < 500) return out;
    }
}

}  // namespace

class TestUiReference : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString ref_, new_, project_;
    int refDocs_ = 0;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        uiwindow::isolateSettings(path("settings"), "test_ui_reference");
        const QString all = path("all.jsonl");
        const auto gen = testsupport::neardup({QStringLiteral("gen"), QStringLiteral("--docs"),
                                               QStringLiteral("1200"), QStringLiteral("--seed"),
                                               QStringLiteral("11"), QStringLiteral("--out"), all,
                                               QStringLiteral("--truth"), path("truth.json")});
        QVERIFY2(gen.code == 0, qPrintable(gen.err));
        // Alternate lines to each half, so that planted variants fall on both sides.
        std::string ref, fresh;
        int i = 0;
        for (const QByteArray& l : readFile(all).split('\n')) {
            if (l.isEmpty()) continue;
            (i++ % 2 == 0 ? ref : fresh) += l.toStdString() + "\n";
        }
        refDocs_ = (i + 1) / 2;
        ref_ = path("reference.jsonl");
        new_ = path("new.jsonl");
        writeFile(ref_.toStdString(), ref);
        writeFile(new_.toStdString(), fresh);
        project_ = path("cli.ndw");
        // Longest first: without the reference put first, a longer new document would be kept
        // in place of a reference one.
        const QString err = uiwindow::cliRun(project_, {new_},
                                             {QStringLiteral("--reference"), ref_,
                                              QStringLiteral("--keep"), QStringLiteral("longest")});
        QVERIFY2(err.isEmpty(), qPrintable(err));
    }

    // The read-only queries: the run's reference counts, the members' reference flag, the
    // filter, and the reference kept first at another threshold.
    void queriesKnowTheReference() {
        ProjectQueries q(project_.toStdString());
        const RunInfo info = q.runInfo(1);
        QCOMPARE(info.referenceDocuments, uint64_t(refDocs_));
        QVERIFY(info.removedByReference > 0);
        QVERIFY(info.reference(0));
        QVERIFY(!info.reference(uint64_t(refDocs_)));
        for (const double threshold :
             {std::numeric_limits<double>::quiet_NaN(), info.params.compare.threshold - 0.1}) {
            ClusterFilter all;
            all.threshold = threshold;
            ClusterFilter matched = all;
            matched.referenceOnly = true;
            const std::vector<ClusterRow> rows = allClusters(q, 1, all);
            const std::vector<ClusterRow> filtered = allClusters(q, 1, matched);
            QCOMPARE(q.clusterCount(1, matched), uint64_t(filtered.size()));
            QVERIFY(!filtered.empty());
            QVERIFY(filtered.size() < rows.size());  // new documents duplicate each other too
            std::size_t withReference = 0;
            for (const ClusterRow& row : rows) {
                const std::vector<ClusterMember> members = q.clusterMembers(1, row.cluster);
                bool any = false;
                for (const ClusterMember& m : members) {
                    QCOMPARE(m.reference, info.reference(m.docIndex));
                    if (!m.reference) continue;
                    any = true;
                    // Never removed, whatever the keep policy or the threshold.
                    QVERIFY2(m.removedFor < 0 && m.kept, qPrintable(QString::number(m.docIndex)));
                }
                QCOMPARE(row.reference, any);
                // A cluster with a reference member keeps a reference document first.
                if (any) QVERIFY(info.reference(row.representative));
                withReference += any ? 1 : 0;
            }
            QCOMPARE(filtered.size(), withReference);
            for (const ClusterRow& row : filtered)
                QVERIFY(row.reference);
        }
    }

    // A "keep this one instead" on a new member of a cluster that matched the reference
    // changes nothing there: the audited pieces keep the reference first and never remove it.
    void decisionsKeepTheReference() {
        const QString copy = path("decided.ndw");
        QVERIFY(QFile::copy(project_, copy));
        ClusterFilter matched;
        matched.referenceOnly = true;
        int64_t datasetId = 0;
        uint32_t fresh = 0;
        {
            ProjectQueries q(copy.toStdString());
            datasetId = q.runInfo(1).datasetId;
            for (const ClusterRow& row : allClusters(q, 1, matched)) {
                for (const ClusterMember& m : q.clusterMembers(1, row.cluster))
                    if (!m.reference) fresh = m.docIndex;
                if (fresh) break;
            }
        }
        QVERIFY(fresh != 0);
        {
            ProjectStore store(copy.toStdString());
            store.recordDecision(datasetId, DecisionKind::KeepInstead, fresh);
        }
        ProjectQueries q(copy.toStdString());
        const RunInfo info = q.runInfo(1);
        const int64_t cluster = q.clusterOfDocument(1, fresh);
        QVERIFY(cluster >= 0);
        bool any = false;
        for (const ClusterMember& m : q.clusterMembers(1, cluster)) {
            if (!m.reference) continue;
            any = true;
            QVERIFY2(m.removedFor < 0, qPrintable(QString::number(m.docIndex)));
        }
        QVERIFY(any);
        bool listed = false;
        for (const ClusterRow& row : allClusters(q, 1, matched))
            if (row.cluster == cluster) {
                listed = true;
                QVERIFY(info.reference(row.representative));
            }
        QVERIFY(listed);
    }

    void windowMarksTheReference() {
        MainWindow w;
        w.show();
        QVERIFY(w.openProject(project_, true));
        QTRY_COMPARE_WITH_TIMEOUT(w.currentRun().runId, qint64{1}, 30000);
        QVERIFY(uiwindow::settle(w));
        const RunInfo& info = w.currentRun();
        QCOMPARE(info.referenceDocuments, uint64_t(refDocs_));

        // The inputs and the reference come back apart.
        QCOMPARE(w.dataset()->inputs(), QStringList{new_});
        QCOMPARE(w.dataset()->references(), QStringList{ref_});

        // The run history's Reference column.
        RunHistoryModel* history = w.history()->model();
        const QModelIndex cell = history->index(0, RunHistoryModel::Reference);
        QCOMPARE(cell.data(Qt::UserRole).toULongLong(), qulonglong(refDocs_));
        QCOMPARE(cell.data().toString(),
                 QStringLiteral("%1 (%2 removed for it)")
                     .arg(countText(quint64(refDocs_)), countText(info.removedByReference)));
        QVERIFY(!w.history()
                     ->findChild<QTableView*>(QStringLiteral("runHistoryView"))
                     ->isColumnHidden(RunHistoryModel::Reference));

        // The filter: only clusters with a reference member, each marked.
        ClustersPanel* panel = w.clusters();
        ClustersModel* model = panel->model();
        QVERIFY(!panel->referenceOnlyBox()->isHidden());
        const quint64 total = model->totalCount();
        ProjectQueries q(project_.toStdString());
        ClusterFilter matched;
        matched.referenceOnly = true;
        const quint64 expected = q.clusterCount(1, matched);
        QSignalSpy reloaded(model, &ClustersModel::reloaded);
        panel->referenceOnlyBox()->setChecked(true);
        QVERIFY(reloaded.wait(20000));
        QCOMPARE(model->totalCount(), expected);
        QVERIFY(expected < total);
        for (int r = 0; r < model->rowCount(); ++r) {
            QVERIFY(model->clusterAt(r)->reference);
            QVERIFY(model->index(r, ClustersModel::Representative)
                        .data()
                        .toString()
                        .endsWith(QStringLiteral(" (reference)")));
        }

        // A new document removed for a reference one: its members list and the comparison.
        uint32_t doc = 0, witness = 0;
        for (const ClusterRow& row : allClusters(q, 1, matched)) {
            for (const ClusterMember& m : q.clusterMembers(1, row.cluster))
                if (m.removedFor >= 0 && info.reference(uint64_t(m.removedFor))) {
                    doc = m.docIndex;
                    witness = uint32_t(m.removedFor);
                    break;
                }
            if (doc) break;
        }
        QVERIFY(doc != 0);
        panel->showDocument(doc);
        ComparisonView* cmp = panel->comparison();
        QTRY_VERIFY_WITH_TIMEOUT(cmp->hasComparison() && cmp->rightDocument() == doc, 20000);
        QCOMPARE(cmp->leftDocument(), witness);
        QVERIFY(cmp->leftReference());
        QVERIFY(!cmp->rightReference());
        const QString left = cmp->findChild<QLabel*>(QStringLiteral("leftHeader"))->text();
        const QString right = cmp->findChild<QLabel*>(QStringLiteral("rightHeader"))->text();
        QVERIFY2(left.contains(QStringLiteral("Reference")), qPrintable(left));
        QVERIFY2(!right.contains(QStringLiteral("Reference")), qPrintable(right));
        QVERIFY2(right.contains(QStringLiteral("removed")), qPrintable(right));
        // No new document is kept in place of the reference's.
        QVERIFY(!cmp->keepLeftButton()->isEnabled());
        QVERIFY(!cmp->keepRightButton()->isEnabled());
        // The members list: the reference's documents read "reference", never "kept".
        QTableWidget* members = panel->membersTable();
        int references = 0;
        for (int r = 0; r < members->rowCount(); ++r) {
            const uint32_t d = members->item(r, 0)->text().toUInt();
            const QString status = members->item(r, 3)->text();
            if (info.reference(d)) {
                QCOMPARE(status, QStringLiteral("reference"));
                ++references;
            } else {
                QVERIFY2(status != QStringLiteral("reference"), qPrintable(status));
            }
        }
        QVERIFY(references > 0);
        // The chain of who vouches for whom: the reference's document heads it, as such.
        QTreeWidgetItem* node = panel->chainView()->itemOf(witness);
        QVERIFY(node);
        QCOMPARE(node->text(ChainView::Status), QStringLiteral("reference (never removed)"));

        // A bucket holding both: the buckets panel marks the reference's document.
        {
            ProjectStore store(project_.toStdString());
            const auto backend = makeBackend("cpu", 1);
            BandKeyTable keys;
            QVERIFY2(keys.load(store, 1, *backend), keys.why().c_str());
            int band = -1;
            for (int b = 0; b < keys.bands() && band < 0; ++b)
                if (keys.key(doc, b) == keys.key(witness, b)) band = b;
            QVERIFY(band >= 0);
            QSignalSpy listed(w.buckets(), &BucketsPanel::membersListed);
            w.buckets()->showBucket(band, keys.key(doc, band));
            QVERIFY(listed.wait(20000));
            QVERIFY(listed.at(0).at(0).toBool());
            auto* table = w.buckets()->findChild<QTableView*>(QStringLiteral("bucketMembersTable"));
            QVERIFY(table);
            QStringList ids;
            for (int r = 0; r < table->model()->rowCount(); ++r)
                ids << table->model()->index(r, 0).data().toString();
            const QString witnessId = QString::fromStdString(q.documentId(info.datasetId, witness));
            const QString docId = QString::fromStdString(q.documentId(info.datasetId, doc));
            QVERIFY2(ids.contains(witnessId + QStringLiteral(" (reference)")),
                     qPrintable(ids.join(QLatin1Char(','))));
            QVERIFY2(ids.contains(docId), qPrintable(ids.join(QLatin1Char(','))));
        }

        // The threshold slider counts the removals made for the reference.
        {
            ThresholdPanel* slider = w.threshold();
            const double theta = info.params.compare.threshold - 0.05;
            slider->setThreshold(theta);
            QTRY_VERIFY_WITH_TIMEOUT(
                slider->lastResult() &&
                    std::abs(slider->lastResult()->threshold - slider->threshold()) < 1e-9 &&
                    slider->threshold() < info.params.compare.threshold,
                20000);
            QVERIFY(slider->lastResult()->forReference > 0);
            QVERIFY(slider->lastResult()->forReference <= slider->lastResult()->removed);
            QVERIFY2(slider->resultText().contains(QStringLiteral("for a reference document")),
                     qPrintable(slider->resultText()));
            slider->setThreshold(info.params.compare.threshold);
            QVERIFY(uiwindow::settle(w));
        }

        // Off again: every cluster.
        panel->referenceOnlyBox()->setChecked(false);
        QVERIFY(reloaded.wait(20000));
        QCOMPARE(model->totalCount(), total);
    }

    // A run started in the workbench with a reference in the dataset panel records it.
    void runFromTheWorkbenchTakesTheReference() {
        const QString project = path("ui.ndw");
        { ProjectStore store(project.toStdString()); }
        MainWindow w;
        w.show();
        QVERIFY(w.openProject(project, true));
        QVERIFY(uiwindow::settle(w));
        w.dataset()->setInputs({new_});
        w.dataset()->setReferences({ref_});
        QCOMPARE(w.dataset()->referenceList()->count(), 1);
        QSignalSpy finished(w.runController(), &RunController::finished);
        QVERIFY(w.startRun());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.at(0).at(0).toString(), QStringLiteral("ok"));
        const qint64 runId = finished.at(0).at(1).toLongLong();
        ProjectQueries q(project.toStdString());
        const RunInfo info = q.runInfo(runId);
        QCOMPARE(info.referenceDocuments, uint64_t(refDocs_));
        QVERIFY(info.removedByReference > 0);
        QCOMPARE(info.documents, uint64_t(1200));
    }

    // The run controller passes the request's reference to the engine.
    void runControllerPassesTheReference() {
        RunRequest request;
        request.project = path("controller.ndw");
        request.inputs = {new_.toStdString()};
        request.references = {ref_.toStdString()};
        request.params.threads = 2;
        RunController controller;
        QSignalSpy finished(&controller, &RunController::finished);
        QVERIFY(controller.start(request));
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.at(0).at(0).toString(), QStringLiteral("ok"));
        ProjectQueries q(request.project.toStdString());
        QCOMPARE(q.runInfo(finished.at(0).at(1).toLongLong()).referenceDocuments,
                 uint64_t(refDocs_));
    }
};

QTEST_MAIN(TestUiReference)

#else  // built without the GUI

#include <QTest>

class TestUiReference : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};
QTEST_GUILESS_MAIN(TestUiReference)

#endif

#include "test_ui_reference.moc"
