// The workbench on a large project, measured offscreen: opening (run shown, first clusters
// page, bucket histogram and the threshold panel's counts), scrolling the clusters table
// (every page fetched, then jumps to random rows with a synchronous repaint), the threshold
// slider (value set -> counts shown), the diff of two runs, listing a bucket and Save As.
//
// By default it builds a small project so that the suite checks the harness; point it at a
// real one for the measurement quoted in docs/guide/workbench.md:
//   NEARDUP_UI_SCALE_PROJECT=/path/big.ndw QT_QPA_PLATFORM=offscreen tests/test_ui_scale
// (the project needs two runs over one dataset for the diff).
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI

#include <QEventLoop>
#include <QFile>
#include <QLabel>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <algorithm>

#include "bucketspanel.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "engine_fixture.h"
#include "mainwindow.h"
#include "numbertext.h"
#include "pipeline.h"
#include "project_queries.h"
#include "run_diff.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "thresholdpanel.h"

using namespace neardup;
using namespace neardup::ui;

namespace {

// Runs the event loop until `done` holds (checked every millisecond); false on timeout.
bool waitUntil(const std::function<bool()>& done, int timeoutMs = 60000) {
    if (done()) return true;
    QEventLoop loop;
    QTimer poll, limit;
    poll.setInterval(1);
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (done()) loop.quit();
    });
    limit.setSingleShot(true);
    QObject::connect(&limit, &QTimer::timeout, &loop, [&] { loop.quit(); });
    poll.start();
    limit.start(timeoutMs);
    loop.exec();
    return done();
}

double ms(const QElapsedTimer& t) {
    return double(t.nsecsElapsed()) / 1e6;
}

struct Stats {
    double median = 0, p95 = 0, max = 0;
};

Stats stats(std::vector<double> v) {
    Stats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.median = v[v.size() / 2];
    s.p95 = v[std::min(v.size() - 1, v.size() * 95 / 100)];
    s.max = v.back();
    return s;
}

}  // namespace

class TestUiScale : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_;
    std::unique_ptr<MainWindow> window_;
    std::vector<qint64> runs_;
    RunInfo info_;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_scale"));
        QVERIFY(dir_.isValid());
        project_ = qEnvironmentVariable("NEARDUP_UI_SCALE_PROJECT");
        if (project_.isEmpty()) {
            project_ = dir_.filePath(QStringLiteral("scale.ndw"));
            const std::string corpus = dir_.filePath(QStringLiteral("c.jsonl")).toStdString();
            testsupport::writeGeneratedCorpus(corpus,
                                              {.documents = 4000, .seed = 17, .meanChars = 300});
            RunParams params;
            params.compare.threshold = 0.7;
            testsupport::runEngine(project_.toStdString(), {corpus}, params);
            params.lsh.bands = 20;
            params.lsh.rows = 5;
            params.keep = KeepPolicy::Longest;
            testsupport::runEngine(project_.toStdString(), {corpus}, params);
        }
        ProjectQueries q(project_.toStdString());
        for (const int64_t id : q.runIds())
            if (q.runInfo(id).status == "ok") runs_.push_back(id);
        QVERIFY(!runs_.empty());
        info_ = q.runInfo(runs_.back());
        qInfo("project %s: run %lld, %llu documents, %llu clusters, %llu stored pairs",
              qPrintable(project_), static_cast<long long>(info_.runId),
              static_cast<unsigned long long>(info_.documents),
              static_cast<unsigned long long>(info_.clusters),
              static_cast<unsigned long long>(info_.storedPairs));
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }

    void cleanupTestCase() { window_.reset(); }

    void openProject() {
        MainWindow& w = *window_;
        QSignalSpy shownSpy(&w, &MainWindow::runShown);
        QSignalSpy bucketsSpy(w.buckets(), &BucketsPanel::loaded);
        double shownMs = 0;
        QElapsedTimer clock;
        clock.start();
        QVERIFY(w.openProject(project_, true));
        QVERIFY(waitUntil([&] {
            if (shownMs == 0 && !shownSpy.isEmpty()) shownMs = ms(clock);
            const auto& t = w.threshold()->lastResult();
            return !shownSpy.isEmpty() && w.clusters()->model()->rowCount() > 0 &&
                   !w.clusters()->model()->isLoading() && !bucketsSpy.isEmpty() && t &&
                   t->runId == info_.runId;
        }));
        const double openMs = ms(clock);
        // The Diameter column fills in after the first page (a job of its own).
        QVERIFY(waitUntil([&] { return w.clusters()->model()->diametersMeasured(); }));
        const double diametersMs = ms(clock);
        QCOMPARE(w.currentRun().runId, info_.runId);
        QCOMPARE(w.clusters()->model()->totalCount(), quint64(info_.clusters));
        QCOMPARE(w.threshold()->lastResult()->clusters, quint64(info_.clusters));
        qInfo(
            "open: run shown after %.0f ms; clusters page, bucket histogram and threshold "
            "counts after %.0f ms (loading the pairs for the slider: %.0f ms of it); every "
            "component's diameter after %.0f ms (%llu flagged)",
            shownMs, openMs, w.threshold()->lastResult()->loadMilliseconds, diametersMs,
            static_cast<unsigned long long>(w.clusters()->model()->flaggedCount()));
    }

    void scrollClusters() {
        MainWindow& w = *window_;
        ClustersModel* model = w.clusters()->model();
        QTableView* view = w.clusters()->view();
        QVERIFY(waitUntil([&] { return w.isSettled(); }));
        // Scrolling to the end fetches page after page, as a user dragging the bar does.
        std::vector<double> pages;
        QElapsedTimer all;
        all.start();
        while (quint64(model->rowCount()) < model->totalCount()) {
            const int before = model->rowCount();
            QElapsedTimer page;
            page.start();
            view->scrollToBottom();
            QVERIFY(waitUntil([&] { return model->rowCount() > before && !model->isLoading(); },
                              30000));
            view->viewport()->repaint();
            pages.push_back(ms(page));
        }
        const double allMs = ms(all);
        QCOMPARE(quint64(model->rowCount()), quint64(info_.clusters));
        // Then jumps anywhere in the table: scroll and paint synchronously.
        std::vector<double> jumps;
        QRandomGenerator rng(3);
        for (int i = 0; i < 300; ++i) {
            const int row = int(rng.bounded(model->rowCount()));
            QElapsedTimer jump;
            jump.start();
            view->scrollTo(model->index(row, 0), QAbstractItemView::PositionAtCenter);
            view->viewport()->repaint();
            jumps.push_back(ms(jump));
            QCOMPARE(model->clusterAt(row) != nullptr, true);
        }
        const Stats p = stats(pages), j = stats(jumps);
        qInfo(
            "clusters table: %d rows in %zu pages of %d, %.0f ms in all; per page (fetch + "
            "paint) median %.1f ms, p95 %.1f, max %.1f; 300 jumps to random rows (scroll + "
            "repaint) median %.2f ms, p95 %.2f, max %.2f",
            model->rowCount(), pages.size(), ClustersModel::kPageSize, allMs, p.median, p.p95,
            p.max, j.median, j.p95, j.max);
    }

    void thresholdSlider() {
        MainWindow& w = *window_;
        ThresholdPanel* t = w.threshold();
        QVERIFY(waitUntil([&] { return w.isSettled(); }));
        std::vector<double> times;
        const double floor = info_.params.compare.storeFloor;
        for (const double v : {0.95, 0.9, 0.85, 0.8, 0.75, 0.72, 0.9, 0.99, floor + 0.01}) {
            QSignalSpy spy(t, &ThresholdPanel::reclustered);
            QElapsedTimer clock;
            clock.start();
            t->setThreshold(v);
            const double target = t->threshold();
            QVERIFY(waitUntil([&] {
                return t->lastResult() && std::abs(t->lastResult()->threshold - target) < 1e-9;
            }));
            times.push_back(ms(clock));
            QVERIFY(t->resultText().contains(QString::number(t->lastResult()->clusters)) ||
                    t->resultText().contains(countText(t->lastResult()->clusters)));
        }
        const Stats s = stats(times);
        qInfo(
            "threshold slider: value set -> counts shown, 9 moves: median %.1f ms, max %.1f ms "
            "(re-clustering alone %.1f ms the last time)",
            s.median, s.max, t->lastResult()->milliseconds);
    }

    void diffAndBucketAndSaveAs() {
        MainWindow& w = *window_;
        if (runs_.size() >= 2) {
            QElapsedTimer clock;
            clock.start();
            const RunDiff d =
                diffRuns(project_.toStdString(), runs_[runs_.size() - 2], runs_.back());
            qInfo("run diff %lld -> %lld: %zu newly removed, %zu no longer removed in %.0f ms",
                  static_cast<long long>(d.runA), static_cast<long long>(d.runB),
                  d.newlyRemoved.size(), d.noLongerRemoved.size(), ms(clock));
        }
        BucketsPanel* b = w.buckets();
        if (b->outlierModel()->rowCount() > 0) {
            QSignalSpy listed(b, &BucketsPanel::membersListed);
            const int band = b->outlierModel()->item(0, 0)->data(Qt::UserRole).toInt();
            const quint64 key = b->outlierModel()->item(0, 1)->data(Qt::UserRole + 1).toULongLong();
            QElapsedTimer clock;
            clock.start();
            b->showBucket(band, key);
            QVERIFY(waitUntil([&] { return !listed.isEmpty(); }));
            const double first = ms(clock);
            clock.restart();
            b->showBucket(band, key);
            QVERIFY(waitUntil([&] { return listed.size() == 2; }));
            qInfo(
                "bucket members: %d documents listed; first click %.0f ms (signatures loaded, "
                "band keys computed), next click %.0f ms (%s)",
                b->memberModel()->rowCount(), first, ms(clock),
                qPrintable(b->membersLabel()->text()));
        }
        QSignalSpy saved(&w, &MainWindow::projectSaved);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(w.saveProjectAs(dir_.filePath(QStringLiteral("copy.ndw")), true));
        QVERIFY(waitUntil([&] { return !saved.isEmpty(); }));
        QVERIFY2(saved.front().at(0).toBool(), qPrintable(saved.front().at(1).toString()));
        qInfo("save as: %.0f ms (database %lld bytes)", ms(clock),
              static_cast<long long>(QFile(project_).size()));
    }
};

#else

#include <QTest>

class TestUiScale : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiScale)
#include "test_ui_scale.moc"
