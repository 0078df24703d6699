// The project document and the panels that observe it, offscreen, without a window, on a project
// made through the run service: opening the project emits projectOpened, runsChanged and
// currentRunChanged once each, on the run the project opens on, and the panels show it;
// selecting another run in the history reaches the other panels through the document; the
// slider's threshold reaches the clusters table and the parameters' θ; closing clears them all;
// a file that is not a project fails to open and leaves no project open.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <memory>

#include "bucketspanel.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "datasetpanel.h"
#include "parameterspanel.h"
#include "projectdocument.h"
#include "run_service.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "thresholdpanel.h"
#include "ui_window_fixture.h"

using namespace neardup;
using namespace neardup::ui;

namespace {

constexpr double kFirstThreshold = 0.8, kLatestThreshold = 0.7;

// What the document said, in order, while a test watched it.
struct Heard {
    int opened = 0, closed = 0, listed = 0, failed = 0;
    std::vector<qint64> runsShown;  // currentRunChanged's run ids
    qint64 selectAsked = -1;        // the run runsChanged asked the history to select
    int runsListed = -1;
};

}  // namespace

class TestUiProjectDocument : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString corpus_, project_;
    std::unique_ptr<ProjectDocument> document_;
    std::unique_ptr<RunHistoryPanel> history_;
    std::unique_ptr<ClustersPanel> clusters_;
    std::unique_ptr<BucketsPanel> buckets_;
    std::unique_ptr<ThresholdPanel> threshold_;
    std::unique_ptr<ParametersPanel> parameters_;
    std::unique_ptr<DatasetPanel> dataset_;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

    // Listens to the document until `context` goes.
    void listen(QObject* context, Heard& heard) {
        ProjectDocument* d = document_.get();
        connect(d, &ProjectDocument::projectOpened, context, [&heard] { ++heard.opened; });
        connect(d, &ProjectDocument::projectClosed, context, [&heard] { ++heard.closed; });
        connect(d, &ProjectDocument::openFailed, context, [&heard] { ++heard.failed; });
        connect(d, &ProjectDocument::runsChanged, context,
                [&heard](const std::vector<RunSummary>& runs, qint64 select) {
                    ++heard.listed;
                    heard.runsListed = int(runs.size());
                    heard.selectAsked = select;
                });
        connect(d, &ProjectDocument::currentRunChanged, context,
                [&heard](const RunInfo& run) { heard.runsShown.push_back(run.runId); });
    }

    // Every job the document's queues hold has been delivered.
    bool idle() const {
        return document_->queries()->pending() == 0 && document_->background()->pending() == 0;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        uiwindow::writeLongIdCorpus(corpus_, 400, 5, 12);
        // Run 1 at 0.8, run 2 (the latest that finished: the one the project opens on) at 0.7.
        project_ = path("project.ndw");
        for (const double threshold : {kFirstThreshold, kLatestThreshold}) {
            neardup::RunRequest request;
            request.project = project_.toStdString();
            request.inputs = {corpus_.toStdString()};
            request.params.threads = 2;
            request.params.compare.threshold = threshold;
            executeRun(request);
        }
        document_ = std::make_unique<ProjectDocument>();
        history_ = std::make_unique<RunHistoryPanel>(document_.get());
        clusters_ = std::make_unique<ClustersPanel>(document_.get());
        buckets_ = std::make_unique<BucketsPanel>(document_.get());
        threshold_ = std::make_unique<ThresholdPanel>(document_.get());
        parameters_ = std::make_unique<ParametersPanel>(document_.get());
        dataset_ = std::make_unique<DatasetPanel>(document_.get());
    }

    void cleanupTestCase() {
        // The panels go before the document whose queues they submit to.
        dataset_.reset();
        parameters_.reset();
        threshold_.reset();
        buckets_.reset();
        clusters_.reset();
        history_.reset();
        document_.reset();
    }

    void openingEmitsEachSignalOnceOnTheLatestFinishedRun() {
        Heard heard;
        QObject context;  // goes first: nothing is heard into a Heard that is gone
        listen(&context, heard);
        document_->open(project_);
        QCOMPARE(heard.opened, 1);  // at once: the panels drop what they showed before
        QVERIFY(document_->isOpen());
        QTRY_COMPARE_WITH_TIMEOUT(heard.runsShown.size(), std::size_t{1}, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(idle(), 20000);
        QCOMPARE(heard.opened, 1);
        QCOMPARE(heard.listed, 1);
        QCOMPARE(heard.runsListed, 2);
        QCOMPARE(heard.selectAsked, qint64{2});
        QCOMPARE(heard.runsShown, std::vector<qint64>{2});
        QCOMPARE(heard.failed, 0);
        QCOMPARE(document_->currentRun().runId, qint64{2});
        QCOMPARE(document_->currentRun().params.compare.threshold, kLatestThreshold);
        QVERIFY(std::isnan(document_->workingThreshold()));

        // Every panel shows the document's run without being told by anyone else.
        QCOMPARE(history_->currentRun(), qint64{2});
        QCOMPARE(history_->model()->rowCount(), 2);
        QCOMPARE(clusters_->model()->runId(), qint64{2});
        QTRY_VERIFY_WITH_TIMEOUT(clusters_->model()->rowCount() > 0, 20000);
        QVERIFY(threshold_->slider()->isEnabled());
        QCOMPARE(buckets_->bandBox()->count(),
                 document_->currentRun().params.lsh.bands + 1);  // "All bands" and each band
        QTRY_VERIFY_WITH_TIMEOUT(!buckets_->binLabels().isEmpty(), 20000);
        // The parameters come from the first run shown, the inputs from its dataset.
        QCOMPARE(parameters_->thresholdBox()->value(), kLatestThreshold);
        QCOMPARE(dataset_->inputs(), QStringList{corpus_});
    }

    void selectingAnotherRunReachesThePanelsThroughTheDocument() {
        Heard heard;
        QObject context;
        listen(&context, heard);
        history_->selectRun(1);
        QTRY_COMPARE_WITH_TIMEOUT(heard.runsShown.size(), std::size_t{1}, 20000);
        QCOMPARE(heard.runsShown.front(), qint64{1});
        QCOMPARE(document_->currentRun().runId, qint64{1});
        QCOMPARE(document_->currentRun().params.compare.threshold, kFirstThreshold);
        QCOMPARE(clusters_->model()->runId(), qint64{1});
        QCOMPARE(buckets_->bandBox()->count(), document_->currentRun().params.lsh.bands + 1);
        QTRY_VERIFY_WITH_TIMEOUT(idle(), 20000);
        QCOMPARE(heard.runsShown.size(), std::size_t{1});
        QCOMPARE(heard.listed, 0);  // selecting a run lists nothing again
        // Only the first run shown of a project sets the parameters: the user's stay.
        QCOMPARE(parameters_->thresholdBox()->value(), kLatestThreshold);
    }

    void theSlidersThresholdIsTheWorkingThreshold() {
        QCOMPARE(document_->currentRun().runId, qint64{1});
        QSignalSpy moved(document_.get(), &ProjectDocument::thresholdChanged);
        threshold_->setThreshold(0.9);
        const double working = threshold_->threshold();
        QVERIFY(std::abs(working - 0.9) < 0.01);
        QTRY_COMPARE_WITH_TIMEOUT(moved.size(), 1, 20000);
        QCOMPARE(moved.front().front().toDouble(), working);
        QCOMPARE(document_->workingThreshold(), working);
        QCOMPARE(clusters_->model()->threshold(), working);
        QVERIFY(std::abs(parameters_->thresholdBox()->value() - working) < 0.005);

        // Back at the run's own threshold: no working threshold, the stored clustering.
        threshold_->setThreshold(kFirstThreshold);
        QTRY_COMPARE_WITH_TIMEOUT(moved.size(), 2, 20000);
        QVERIFY(std::isnan(document_->workingThreshold()));
        QVERIFY(std::isnan(clusters_->model()->threshold()));
        QTRY_VERIFY_WITH_TIMEOUT(idle(), 20000);
        QCOMPARE(moved.size(), 2);
    }

    void closingClearsThePanels() {
        Heard heard;
        QObject context;
        listen(&context, heard);
        document_->close();
        QCOMPARE(heard.closed, 1);
        QVERIFY(!document_->isOpen());
        QVERIFY(document_->path().isEmpty());
        QCOMPARE(document_->currentRun().runId, qint64{0});
        QCOMPARE(history_->model()->rowCount(), 0);
        QCOMPARE(history_->currentRun(), qint64{0});
        QCOMPARE(clusters_->model()->runId(), qint64{0});
        QVERIFY(buckets_->binLabels().isEmpty());
        QVERIFY(buckets_->statsLabel()->text().isEmpty());
        QVERIFY(!threshold_->slider()->isEnabled());
        QVERIFY(dataset_->inputs().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(idle(), 20000);
        // Closing twice is closing once.
        document_->close();
        QCOMPARE(heard.closed, 1);
        QCOMPARE(heard.listed, 0);
    }

    void aFileThatIsNotAProjectLeavesNoProjectOpen() {
        const QString notAProject = path("notes.ndw");
        {
            QFile f(notAProject);
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int i = 0; i < 64; ++i)
                f.write("These are notes about near duplicates, not a project.\n");
        }
        Heard heard;
        QObject context;
        listen(&context, heard);
        QSignalSpy failed(document_.get(), &ProjectDocument::openFailed);
        document_->open(notAProject);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 20000);
        QCOMPARE(failed.front().at(0).toString(), notAProject);
        QVERIFY(!failed.front().at(1).toString().isEmpty());
        QVERIFY(!document_->isOpen());
        QCOMPARE(heard.listed, 0);
        QCOMPARE(history_->model()->rowCount(), 0);
        QCOMPARE(clusters_->model()->runId(), qint64{0});
    }
};

QTEST_MAIN(TestUiProjectDocument)

#else  // built without the GUI

#include <QTest>

class TestUiProjectDocument : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

QTEST_GUILESS_MAIN(TestUiProjectDocument)

#endif

#include "test_ui_project_document.moc"
