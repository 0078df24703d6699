// The sampled audit at the workbench's working threshold, offscreen in a real window on a real
// project: with the threshold slider moved off the run's θ, Run ▸ Audit N Random Pairs draws
// the pairs at the slider's θ (every drawn estimate at or above it), stores the sample with it
// and shows the estimate with its θ in the dialog, the history and the clusters panel; "Apply
// verdicts as decisions" records the verdicts as review decisions (skipping a pair already
// decided, and saying so), the views follow, and `neardup export` honours them.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "audit_sample.h"
#include "auditdialog.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "engine_fixture.h"
#include "mainwindow.h"
#include "pipeline.h"
#include "project_queries.h"
#include "project_store.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "test_support.h"
#include "thresholdpanel.h"
#include "ui_window_fixture.h"

using namespace neardup;
using namespace neardup::ui;

namespace {

bool near(double a, double b) {
    return std::abs(a - b) < 1e-9;
}

}  // namespace

class TestUiAudit : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> window_;
    QString project_;
    RunResult run_;
    static constexpr double kWorking = 0.85;  // the slider's θ; the run's is 0.6

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

    // `neardup export` of run 1 with its clusters and summary; the summary's object.
    QJsonObject exportWithCli(const char* clusters, const char* summary) {
        const testsupport::CliResult r =
            testsupport::neardup({QStringLiteral("export"), QStringLiteral("-p"), project_,
                                  QStringLiteral("--out-clusters"), path(clusters),
                                  QStringLiteral("--summary-json"), path(summary)});
        if (r.code != 0) qWarning("%s", qPrintable(r.err));
        return QJsonDocument::fromJson(testsupport::readFile(path(summary))).object();
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        uiwindow::isolateSettings(path("settings"), "test_ui_audit");
        project_ = path("audit.ndw");
        const std::string corpus = path("audit.jsonl").toStdString();
        testsupport::writeGeneratedCorpus(corpus, {.documents = 500, .seed = 9, .meanChars = 600});
        RunParams params;
        params.compare.threshold = 0.6;
        // Unverified: a pair is a duplicate by its estimate, which the audit shows.
        params.compare.verify = VerifyMode::None;
        run_ = testsupport::runEngine(project_.toStdString(), {corpus}, params);
        QVERIFY(run_.counts.clusters > 5);
        // The run has duplicate pairs below the working θ: an audit at the run's θ draws some.
        const AuditDraw atRun =
            drawAuditSample(run_.pairs, run_.params.signature.hashes, 0.6, 12, 3);
        QVERIFY(std::any_of(atRun.pairs.begin(), atRun.pairs.end(),
                            [](const AuditPair& p) { return p.estimated < kWorking; }));
        window_ = std::make_unique<MainWindow>();
        QVERIFY(uiwindow::openActive(*window_, project_));
    }

    void cleanupTestCase() { window_.reset(); }

    // The slider moved to 0.85: the audit draws there, stores 0.85, and says "at θ 0.85".
    void auditDrawsAtTheWorkingThreshold() {
        MainWindow& w = *window_;
        w.threshold()->setThreshold(kWorking);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.threshold()->lastResult() && near(w.threshold()->lastResult()->threshold, kWorking),
            20000);
        QTRY_VERIFY_WITH_TIMEOUT(near(w.clusters()->model()->threshold(), kWorking) &&
                                     !w.clusters()->model()->isLoading() && w.isSettled(),
                                 20000);
        AuditDialog* dialog = w.openAuditDialog();
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QVERIFY(near(dialog->drawThreshold(), kWorking));
        QVERIFY(dialog->drawButton()->text().contains(QStringLiteral("\u03b8 0.85")));
        dialog->sizeBox()->setValue(12);
        dialog->seedBox()->setValue(3);
        QSignalSpy loaded(dialog, &AuditDialog::sampleLoaded);
        QTest::mouseClick(dialog->drawButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 20000);
        QVERIFY(dialog->sample());
        const AuditDraw& drawn = dialog->sample()->draw;
        QVERIFY(drawn.pairs.size() >= 4);
        for (const AuditPair& p : drawn.pairs)
            QVERIFY2(p.estimated >= kWorking - 1e-9, qPrintable(QString::number(p.estimated)));
        QVERIFY(near(drawn.threshold, kWorking));
        const auto stored = ProjectQueries(project_.toStdString()).latestAudit(run_.runId);
        QVERIFY(stored);
        QVERIFY(near(stored->draw.threshold, kWorking));

        // Verdicts by key: duplicate, not, duplicate, not.
        for (const Qt::Key key : {Qt::Key_D, Qt::Key_N, Qt::Key_D, Qt::Key_N}) {
            QSignalSpy recorded(dialog, &AuditDialog::verdictRecorded);
            QTest::keyClick(dialog, key);
            QTRY_COMPARE_WITH_TIMEOUT(recorded.size(), 1, 20000);
        }
        QCOMPARE(dialog->estimate().judged, uint64_t{4});
        QVERIFY(near(dialog->estimate().threshold, kWorking));
        QVERIFY2(dialog->estimateText().contains(QStringLiteral("at \u03b8 0.85")),
                 qPrintable(dialog->estimateText()));
        QTRY_VERIFY(w.history()
                        ->model()
                        ->index(0, RunHistoryModel::Precision)
                        .data()
                        .toString()
                        .endsWith(QStringLiteral(" at \u03b8 0.85")));
        QTRY_VERIFY(w.clusters()->reviewProgressText().contains(QStringLiteral("at \u03b8 0.85")));
    }

    // "Apply verdicts as decisions": two not_duplicate and one confirmed_duplicate recorded, the
    // pair decided before skipped; the clusters panel follows, and `neardup export` cuts the
    // two pairs judged "not a duplicate".
    void verdictsBecomeDecisions() {
        MainWindow& w = *window_;
        auto* dialog = w.findChild<AuditDialog*>();
        QVERIFY(dialog && dialog->sample());
        const std::vector<AuditPair> pairs = dialog->sample()->draw.pairs;
        // Pair 2 (judged "duplicate") was marked "not a duplicate" before: it stays so.
        {
            ProjectStore store(project_.toStdString());
            store.recordDecision(run_.datasetId, DecisionKind::NotDuplicate, pairs[2].a,
                                 pairs[2].b);
        }
        const QJsonObject before = exportWithCli("before.jsonl", "before.json");
        QCOMPARE(before.value(QStringLiteral("decisions_applied")).toInteger(), 1);

        QVERIFY(dialog->applyButton()->isEnabled());
        QSignalSpy applied(dialog, &AuditDialog::verdictsApplied);
        QSignalSpy changed(w.clusters(), &ClustersPanel::decisionsChanged);
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 20000);
        QVERIFY(applied.front().at(0).toBool());
        QVERIFY2(dialog->applyText().contains(QStringLiteral(
                     "Recorded 3 decision(s): 2 not a duplicate, 1 confirmed duplicate")),
                 qPrintable(dialog->applyText()));
        QVERIFY(dialog->applyText().contains(QStringLiteral("Skipped 1 pair(s)")));
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 20000);
        QTRY_COMPARE(w.clusters()->decisionCount(), 4);

        const std::vector<Decision> decisions =
            ProjectQueries(project_.toStdString()).decisions(run_.datasetId);
        QCOMPARE(decisions.size(), std::size_t{4});
        auto decided = [&](const AuditPair& p, DecisionKind kind) {
            return std::count_if(decisions.begin(), decisions.end(), [&](const Decision& d) {
                       return d.kind == kind && d.a == std::min(p.a, p.b) &&
                              d.b == std::max(p.a, p.b);
                   }) == 1;
        };
        QVERIFY(decided(pairs[0], DecisionKind::ConfirmedDuplicate));
        QVERIFY(decided(pairs[1], DecisionKind::NotDuplicate));
        QVERIFY(decided(pairs[2], DecisionKind::NotDuplicate));  // the earlier one, kept
        QVERIFY(decided(pairs[3], DecisionKind::NotDuplicate));

        // The CLI export honours them: both new cuts count, and no cut pair vouches for a
        // removal in the clusters it writes.
        const QJsonObject after = exportWithCli("after.jsonl", "after.json");
        QCOMPARE(after.value(QStringLiteral("decisions_applied")).toInteger(), 3);
        DocumentTable docs;
        ProjectStore(project_.toStdString(), ProjectStore::Mode::ReadOnly)
            .loadDataset(run_.datasetId, &docs);
        QFile clusters(path("after.jsonl"));
        QVERIFY(clusters.open(QIODevice::ReadOnly));
        while (!clusters.atEnd()) {
            const QJsonObject o = QJsonDocument::fromJson(clusters.readLine()).object();
            const QString id = o.value(QStringLiteral("id")).toString();
            const QString witness = o.value(QStringLiteral("witness")).toString();
            for (const AuditPair* p : {&pairs[1], &pairs[3]}) {
                const QString a = QString::fromUtf8(docs.id(p->a).data(), docs.id(p->a).size());
                const QString b = QString::fromUtf8(docs.id(p->b).data(), docs.id(p->b).size());
                QVERIFY(!((id == a && witness == b) || (id == b && witness == a)));
            }
        }

        // Applied again, nothing more is recorded: every judged pair has its decision.
        applied.clear();
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 20000);
        QVERIFY(!applied.front().at(0).toBool());
        QVERIFY(dialog->applyText().contains(QStringLiteral("Recorded 0 decision(s)")));
        QVERIFY(dialog->applyText().contains(QStringLiteral("Skipped 4 pair(s)")));
        QCOMPARE(ProjectQueries(project_.toStdString()).decisions(run_.datasetId).size(),
                 std::size_t{4});

        // The slider moved while the dialog is open: the next sample is drawn there, and the
        // dialog says that the sample shown is at another θ.
        w.threshold()->setThreshold(0.9);
        QTRY_VERIFY_WITH_TIMEOUT(near(dialog->drawThreshold(), 0.9), 20000);
        QVERIFY(dialog->drawButton()->text().contains(QStringLiteral("\u03b8 0.9")));
        QVERIFY2(dialog->estimateText().contains(QStringLiteral("The working threshold is 0.9")),
                 qPrintable(dialog->estimateText()));
        dialog->close();
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiAudit : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the workbench (Qt Widgets)"); }
};

#endif

QTEST_MAIN(TestUiAudit)
#include "test_ui_audit.moc"
