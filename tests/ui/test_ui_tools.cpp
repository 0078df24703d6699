// The workbench's project tools, offscreen: Save As (copy, switch, refusal during a run), the
// diff of two runs from the run history, listing an outlier bucket's documents, and cancelling
// an export (no file left); the job queue's "latest request wins" tickets and progress reports.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "bucket_members.h"
#include "bucketspanel.h"
#include "datasetpanel.h"
#include "engine_fixture.h"
#include "exportdialog.h"
#include "jobqueue.h"
#include "mainwindow.h"
#include "numbertext.h"
#include "pipeline.h"
#include "project_queries.h"
#include "run_diff.h"
#include "runcontroller.h"
#include "runhistorydiff.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "test_support.h"

using namespace neardup;
using namespace neardup::ui;

class TestUiTools : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_, corpus_;
    std::unique_ptr<MainWindow> window_;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_tools"));
        QVERIFY(dir_.isValid());
        project_ = path("tools.ndw");
        corpus_ = path("corpus.jsonl");
        testsupport::writeGeneratedCorpus(corpus_.toStdString(),
                                          {.documents = 1200, .seed = 9, .meanChars = 500});
        RunParams params;
        params.compare.threshold = 0.7;
        QVERIFY(testsupport::runEngine(project_.toStdString(), {corpus_.toStdString()}, params)
                    .counts.removed > 0);
        params.keep = KeepPolicy::Longest;  // run 2: other representatives, same clusters
        testsupport::runEngine(project_.toStdString(), {corpus_.toStdString()}, params);
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(window_->openProject(project_, true));
        QTRY_COMPARE(window_->history()->model()->rowCount(), 2);
        QTRY_COMPARE(window_->currentRun().runId, qint64{2});
    }

    void cleanupTestCase() { window_.reset(); }

    void compareTwoRuns() {
        MainWindow& w = *window_;
        RunHistoryPanel* h = w.history();
        QVERIFY(!h->compareButton()->isEnabled());
        h->selectRuns(1, 2);
        QCOMPARE(h->selectedRuns(), (QList<qint64>{1, 2}));
        QVERIFY(h->compareButton()->isEnabled());
        QTRY_COMPARE(w.currentRun().runId, qint64{2});
        QTest::mouseClick(h->compareButton(), Qt::LeftButton);
        RunDiffDialog* d = w.findChild<RunDiffDialog*>();
        QVERIFY(d);
        QTRY_VERIFY(d->isLoaded());
        const RunDiff expected = diffRuns(project_.toStdString(), 1, 2);
        QVERIFY(!expected.newlyRemoved.empty());
        QCOMPARE(d->newlyRemoved()->rowCount(), int(expected.newlyRemoved.size()));
        QCOMPARE(d->noLongerRemoved()->rowCount(), int(expected.noLongerRemoved.size()));
        QCOMPARE(d->newlyRemoved()->index(0, RunDiffModel::Document).data().toString(),
                 QString::fromStdString(expected.newlyRemoved[0].docId));
        QCOMPARE(d->newlyRemoved()->index(0, RunDiffModel::Representative).data().toString(),
                 QString::fromStdString(expected.newlyRemoved[0].representativeId));
        QVERIFY(d->tabs()->tabText(0).contains(QString::number(expected.newlyRemoved.size())));
        QVERIFY(d->summaryText().contains(QStringLiteral("removed by both")));
        d->close();
        h->selectRun(2);
        QVERIFY(!h->compareButton()->isEnabled());
    }

    void listAnOutlierBucket() {
        MainWindow& w = *window_;
        w.tabs()->setCurrentIndex(1);
        BucketsPanel* b = w.buckets();
        ProjectQueries q(project_.toStdString());
        QTRY_COMPARE(b->outlierModel()->rowCount(), int(q.outliers(2, -1).size()));
        QVERIFY(b->outlierModel()->rowCount() > 0);
        // A click on the first row of the (sorted) table lists that bucket.
        QTableView* table = b->outlierTable();
        const QModelIndex first = table->model()->index(0, 0);
        const qulonglong size = table->model()->index(0, 2).data(Qt::UserRole).toULongLong();
        QSignalSpy listed(b, &BucketsPanel::membersListed);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(first).center());
        QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 1, 20000);
        QVERIFY2(listed.front().at(0).toBool(), qPrintable(b->membersLabel()->text()));
        QCOMPARE(qulonglong(b->memberModel()->rowCount()), size);
        QVERIFY(b->membersLabel()->text().contains(QString::number(size)));
        // Ids and previews come from the dataset.
        const QString id = b->memberModel()->item(0, 0)->text();
        QVERIFY(!id.isEmpty());
        QVERIFY(!b->memberModel()->item(0, 3)->text().isEmpty());
        // Every listed member shares the bucket's key (checked through the core table).
        ProjectStore store(project_.toStdString());
        auto backend = makeCpuBackend(1);
        BandKeyTable keys;
        QVERIFY(keys.load(store, 2, *backend));
        const QStandardItemModel* outliers = b->outlierModel();
        const QModelIndex src =
            qobject_cast<QSortFilterProxyModel*>(table->model())->mapToSource(first);
        const int band = outliers->item(src.row(), 0)->data(Qt::UserRole).toInt();
        const auto members =
            keys.members(band, outliers->item(src.row(), 1)->data(Qt::UserRole + 1).toULongLong());
        QCOMPARE(qulonglong(members.size()), size);
        w.tabs()->setCurrentIndex(0);
    }

    // Every listed outlier is at least 1 % of its band's comparisons, as the line above the
    // table says; the line counts them; the bins are labelled as the report's ("1", "2–3").
    void outliersAgreeWithTheRuleAndBinsAreLabelled() {
        MainWindow& w = *window_;
        w.tabs()->setCurrentIndex(1);
        BucketsPanel* b = w.buckets();
        ProjectQueries q(project_.toStdString());
        QTRY_COMPARE(b->outlierModel()->rowCount(), int(q.outliers(2, -1).size()));
        QVERIFY(b->outlierModel()->rowCount() > 0);
        for (int r = 0; r < b->outlierModel()->rowCount(); ++r) {
            const double share = b->outlierModel()->item(r, 4)->data(Qt::UserRole).toDouble();
            QVERIFY2(share >= 0.01 - 1e-12, qPrintable(b->outlierModel()->item(r, 4)->text()));
        }
        uint64_t outliers = 0;
        for (const BandRow& band : q.bandStats(2))
            outliers += band.outlierCount;
        const QString line = b->outlierLabel()->text();
        QVERIFY2(line.startsWith(countText(outliers) + QStringLiteral(" outlier buckets")),
                 qPrintable(line));
        QVERIFY(line.contains(QStringLiteral("\u2265 1 % of their band's comparisons")));
        const QStringList bins = b->binLabels();
        QVERIFY(bins.size() >= 3);
        QCOMPARE(bins.mid(0, 3), (QStringList{QStringLiteral("1"), QStringLiteral("2\u20133"),
                                              QStringLiteral("4\u20137")}));
        // A band without outliers says so above its empty table.
        int empty = -1;
        for (const BandRow& band : q.bandStats(2))
            if (band.outlierCount == 0) empty = band.band;
        if (empty >= 0) {
            QSignalSpy loaded(b, &BucketsPanel::loaded);
            b->bandBox()->setCurrentIndex(b->bandBox()->findData(empty));
            QTRY_COMPARE(loaded.size(), 1);
            QCOMPARE(b->outlierModel()->rowCount(), 0);
            QVERIFY2(b->outlierLabel()->text().startsWith(QStringLiteral("No outlier buckets")),
                     qPrintable(b->outlierLabel()->text()));
            b->bandBox()->setCurrentIndex(0);
            QTRY_COMPARE(loaded.size(), 2);
        }
        w.tabs()->setCurrentIndex(0);
    }

    void exportCancelLeavesNothing() {
        // A queue of our own, held busy, so that Cancel is pressed before the export starts.
        JobQueue jobs(QStringLiteral("test-export"));
        jobs.setProject(project_);
        QSemaphore gate;
        jobs.submit<bool>(
            this, [&gate](JobContext&) { return gate.tryAcquire(1, 20000); }, [](bool) {});
        QTemporaryDir out;
        ExportDialog d(&jobs, 1);
        d.setOutputDirectory(out.path());
        QSignalSpy done(&d, &ExportDialog::exported);
        d.startExport();
        QVERIFY(d.isExporting());
        QVERIFY(d.cancelButton()->isEnabled());
        QVERIFY(d.progressBar()->isVisible() || !d.isVisible());
        d.cancelButton()->click();
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 20000);
        QVERIFY(!done.front().at(0).toBool());
        QVERIFY(d.wasCancelled());
        QVERIFY(d.resultText().contains(QStringLiteral("cancelled")));
        QCOMPARE(
            QDir(out.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot).size(),
            0);
        // The same dialog then exports for real, with the bar at its end.
        d.startExport();
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 20000);
        QVERIFY2(done.back().at(0).toBool(), qPrintable(d.resultText()));
        QCOMPARE(d.progressBar()->value(), d.progressBar()->maximum());
        QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden).size(),
                 d.plannedFiles().size());
    }

    // The workbench's one way of dropping stale results: only the latest request's result (or
    // failure) is delivered, and the further pages of it; forget() drops what is in flight; a
    // failure without a handler of its own still reaches jobFailed.
    void latestRequestWins() {
        JobQueue jobs(QStringLiteral("test-latest"));
        LatestRequest latest;
        QStringList got;
        QSignalSpy unhandled(&jobs, &JobQueue::jobFailed);
        const auto submit = [&](LatestRequest::Ticket ticket, const QString& name, bool fail) {
            jobs.submit<QString>(
                this, ticket,
                [name, fail](JobContext&) {
                    if (fail) throw std::runtime_error("refused");
                    return name;
                },
                [&got](QString r) { got << r; },
                [&got, name](const QString& e) { got << name + QStringLiteral(": ") + e; });
        };
        // Every result arrives after the last request was made.
        submit(latest.next(), QStringLiteral("first"), false);
        submit(latest.next(), QStringLiteral("second"), true);
        submit(latest.next(), QStringLiteral("third"), false);
        submit(latest.current(), QStringLiteral("third, page 2"), true);
        QTRY_COMPARE(jobs.pending(), 0);
        QCOMPARE(got,
                 (QStringList{QStringLiteral("third"), QStringLiteral("third, page 2: refused")}));
        got.clear();
        submit(latest.next(), QStringLiteral("forgotten"), false);
        latest.forget();
        jobs.submit<int>(
            this, latest.next(), [](JobContext&) -> int { throw std::runtime_error("no handler"); },
            [](int) {});
        QTRY_COMPARE(jobs.pending(), 0);
        QCOMPARE(got, QStringList());
        QCOMPARE(unhandled.size(), 1);
        QCOMPARE(unhandled.front().at(0).toString(), QStringLiteral("no handler"));
        // Progress reports reach a receiver that still exists, and no other.
        auto gone = std::make_unique<QObject>();
        int reports = 0;
        QSemaphore reported;
        jobs.submit<bool>(
            this,
            [&](JobContext&) {
                jobs.report(this, [&reports] { ++reports; });
                jobs.report(gone.get(), [&reports] { reports += 100; });
                reported.release();
                return true;
            },
            [](bool) {});
        QVERIFY(reported.tryAcquire(1, 20000));
        gone.reset();
        QTRY_COMPARE(jobs.pending(), 0);
        QCOMPARE(reports, 1);
    }

    void saveAsCopiesAndSwitches() {
        MainWindow& w = *window_;
        const QString target = path("saved-as.ndw");
        QSignalSpy saved(&w, &MainWindow::projectSaved);
        QVERIFY(w.saveProjectAs(target, true));
        QVERIFY(w.isSaving());
        QVERIFY(!w.saveProjectAs(path("second.ndw"), true));  // one copy at a time
        QTRY_COMPARE_WITH_TIMEOUT(saved.size(), 2, 20000);
        QVERIFY(!saved.at(0).at(0).toBool());  // the refusal came first
        QVERIFY2(saved.at(1).at(0).toBool(), qPrintable(saved.at(1).at(1).toString()));
        QCOMPARE(w.projectPath(), QFileInfo(target).absoluteFilePath());
        QVERIFY(w.windowTitle().contains(QStringLiteral("saved-as.ndw")));
        QVERIFY(!QFile::exists(path("second.ndw")));
        QTRY_COMPARE(w.history()->model()->rowCount(), 2);
        QTRY_COMPARE(w.currentRun().runId, qint64{2});  // the run shown before
        QVERIFY(w.recentProjects().contains(QFileInfo(target).absoluteFilePath()));
        // The copy has the signature cache: a bucket's members can be listed from it.
        QVERIFY(QDir(target + QStringLiteral(".d"))
                    .entryList({QStringLiteral("signatures-*")}, QDir::Files)
                    .size() == 1);

        // Refused while a run is in progress.
        w.dataset()->setInputs({corpus_});
        w.dataset()->setFields(QStringLiteral("text"), QStringLiteral("id"));
        QSignalSpy finished(w.runController(), &RunController::finished);
        QVERIFY(w.startRun());
        QVERIFY(!w.saveProjectAs(path("during-run.ndw"), true));
        QVERIFY(saved.back().at(1).toString().contains(QStringLiteral("run is in progress")));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QVERIFY(!QFile::exists(path("during-run.ndw")));
    }

    // Save As onto a name that exists: another project is refused before anything is asked
    // (Save As never replaces one, so a "replace?" would only be followed by a refusal); any
    // other file only after the question, and No leaves it as it is.
    void saveAsNeverReplacesAProject() {
        MainWindow& w = *window_;
        QVERIFY(w.openProject(project_, true));
        const QString other = path("other.ndw");
        { ProjectStore store(other.toStdString()); }
        const QByteArray before = testsupport::readFile(other);
        QSignalSpy saved(&w, &MainWindow::projectSaved);
        w.saveAsChosen(other);
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = w.findChild<QMessageBox*>(QStringLiteral("saveAsOntoProject"))));
        QVERIFY2(box->text().contains(QStringLiteral("another NearDup project")),
                 qPrintable(box->text()));
        QCOMPARE(w.findChild<QMessageBox*>(QStringLiteral("confirmSaveAsOverwrite")), nullptr);
        box->button(QMessageBox::Ok)->click();
        QCOMPARE(saved.size(), 1);
        QVERIFY(!saved.back().at(0).toBool());
        QVERIFY(!w.isSaving());
        QCOMPARE(testsupport::readFile(other), before);

        const QString plain = path("plain.ndw");
        testsupport::writeFile(plain.toStdString(), "keep me");
        w.saveAsChosen(plain);
        QTRY_VERIFY((box = w.findChild<QMessageBox*>(QStringLiteral("confirmSaveAsOverwrite"))));
        box->button(QMessageBox::No)->click();
        QTRY_COMPARE(saved.size(), 2);
        QVERIFY(!saved.back().at(0).toBool());
        QVERIFY(!w.isSaving());
        QCOMPARE(testsupport::readFile(plain), QByteArray("keep me"));
    }

    void bucketWithoutCachedSignatures() {
        // The project file alone, without its .d directory: the view says why it cannot list.
        MainWindow& w = *window_;
        const QString bare = path("bare.ndw");
        QVERIFY(QFile::copy(project_, bare));
        QVERIFY(w.openProject(bare, true));
        QTRY_COMPARE(w.currentRun().runId, qint64{2});
        BucketsPanel* b = w.buckets();
        QTRY_VERIFY(b->outlierModel()->rowCount() > 0);
        QSignalSpy listed(b, &BucketsPanel::membersListed);
        b->showBucket(b->outlierModel()->item(0, 0)->data(Qt::UserRole).toInt(),
                      b->outlierModel()->item(0, 1)->data(Qt::UserRole + 1).toULongLong());
        QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 1, 20000);
        QVERIFY(!listed.front().at(0).toBool());
        QVERIFY2(b->membersLabel()->text().contains(QStringLiteral("cache")),
                 qPrintable(b->membersLabel()->text()));
        QCOMPARE(b->memberModel()->rowCount(), 0);
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiTools : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiTools)
#include "test_ui_tools.moc"
