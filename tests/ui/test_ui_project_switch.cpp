// The workbench moving between projects, offscreen, on projects made by the real CLI: Export's
// default names come from the project and run and it asks before overwriting; New Project keeps
// the inputs added and starts from the documented defaults; the Dataset panel, the title and
// Open Recent never keep a project that is gone or a file that failed to open; an interrupted
// latest run opens on the latest finished run and offers Resume.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QAction>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>

#include <sqlite3.h>

#include "clustersmodel.h"
#include "clusterspanel.h"
#include "datasetpanel.h"
#include "exportdialog.h"
#include "mainwindow.h"
#include "parameterspanel.h"
#include "project_queries.h"
#include "run_lock.h"
#include "run_service.h"
#include "runcontroller.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "startpage.h"
#include "ui_window_fixture.h"

using namespace neardup;
using namespace neardup::ui;
using namespace uiwindow;

namespace {

// Cancels the run it observes once its pairs are compared (or reused): the run is recorded,
// then interrupted (with a resume record), as when the user presses Cancel late in a run.
class CancelAfterCompare : public PipelineObserver {
  public:
    std::atomic<bool> cancel{false};
    void phaseFinished(const PhaseTiming& t) override {
        if (t.name == "compare") cancel.store(true);
    }
};

QString fileText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QMessageBox* overwriteQuestion(ExportDialog* d) {
    for (QMessageBox* box : d->findChildren<QMessageBox*>(QStringLiteral("confirmOverwrite")))
        if (box->isVisible()) return box;
    return nullptr;
}

}  // namespace

class TestUiProjectSwitch : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString corpusA_, corpusB_, alpha_, beta_, gamma_, empty_;
    std::unique_ptr<MainWindow> window_;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        isolateSettings(path("settings"), "test_ui_project_switch");
        corpusA_ = path("a.jsonl");
        corpusB_ = path("b.jsonl");
        writeLongIdCorpus(corpusA_, 500, 3, 12);
        writeLongIdCorpus(corpusB_, 700, 8, 12);
        // alpha: a run far from the defaults (seed 7, K = 1000, exact verification).
        alpha_ = path("alpha.ndw");
        QString problem =
            cliRun(alpha_, {corpusA_},
                   {QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--buckets"),
                    QStringLiteral("1000"), QStringLiteral("--verify"), QStringLiteral("exact"),
                    QStringLiteral("--threshold"), QStringLiteral("0.7")});
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        beta_ = path("beta.ndw");
        problem = cliRun(beta_, {corpusB_});
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        // gamma: run 1 finished, run 2 (other threshold) interrupted late.
        gamma_ = path("gamma.ndw");
        problem =
            cliRun(gamma_, {corpusA_}, {QStringLiteral("--threshold"), QStringLiteral("0.7")});
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        {
            CancelAfterCompare observer;
            neardup::RunRequest request;
            request.project = gamma_.toStdString();
            request.inputs = {corpusA_.toStdString()};
            request.params.threads = 2;
            request.params.compare.threshold = 0.75;
            RunHooks hooks;
            hooks.observer = &observer;
            hooks.cancel = &observer.cancel;
            QVERIFY_THROWS_EXCEPTION(Cancelled, executeRun(request, hooks));
            ProjectStore store(gamma_.toStdString());
            const std::optional<ResumeRecord> rec = findResumable(store);
            QVERIFY(rec);
            QCOMPARE(rec->runId, int64_t{2});
        }
        empty_ = path("empty.ndw");
        ProjectStore{empty_.toStdString()};
        window_ = std::make_unique<MainWindow>();
        window_->show();
    }

    void cleanupTestCase() { window_.reset(); }

    // Defect 4: every project exported "run-1-*" into the same folder; now the names carry
    // the project and run, and an existing file is replaced only when the user says so.
    void exportNamesAndOverwriteQuestion() {
        MainWindow& w = *window_;
        QVERIFY(w.openProject(alpha_, true));
        QVERIFY(settle(w));
        QCOMPARE(w.currentRun().runId, qint64{1});
        ExportDialog* d = w.openExportDialog();
        QVERIFY(d);
        QVERIFY(!d->plannedFiles().isEmpty());
        for (const QString& f : d->plannedFiles())
            QVERIFY2(QFileInfo(f).fileName().startsWith(QStringLiteral("alpha-run-1-")),
                     qPrintable(f));
        QSignalSpy exported(d, &ExportDialog::exported);
        d->startExport();  // nothing there yet: no question
        QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 20000);
        QVERIFY(exported.front().at(0).toBool());
        d->close();

        QVERIFY(w.openProject(beta_, true));
        QVERIFY(settle(w));
        d = w.openExportDialog();
        QVERIFY(d);
        const QString kept = d->plannedFiles().front();
        QVERIFY2(QFileInfo(kept).fileName().startsWith(QStringLiteral("beta-run-1-")),
                 qPrintable(kept));
        QSignalSpy betaExported(d, &ExportDialog::exported);
        d->startExport();
        QTRY_COMPARE_WITH_TIMEOUT(betaExported.size(), 1, 20000);
        QVERIFY(!fileText(path("alpha-run-1-kept.txt")).isEmpty());  // alpha's are still there

        // Exporting again over files that exist asks; No leaves them as they are.
        testsupport::writeFile(kept.toStdString(), "mine\n");
        d->startExport();
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = overwriteQuestion(d)) != nullptr);
        QVERIFY(box->text().contains(QFileInfo(kept).fileName()) ||
                box->informativeText().contains(QFileInfo(kept).fileName()) ||
                box->detailedText().contains(QFileInfo(kept).fileName()));
        box->button(QMessageBox::No)->click();
        QTRY_VERIFY(!d->isExporting() && !overwriteQuestion(d));
        QCOMPARE(betaExported.size(), 1);
        QCOMPARE(fileText(kept), QStringLiteral("mine\n"));
        // Yes replaces them.
        d->startExport();
        QTRY_VERIFY((box = overwriteQuestion(d)) != nullptr);
        box->button(QMessageBox::Yes)->click();
        QTRY_COMPARE_WITH_TIMEOUT(betaExported.size(), 2, 20000);
        QVERIFY(betaExported.back().at(0).toBool());
        QVERIFY(fileText(kept) != QStringLiteral("mine\n"));
        d->close();
    }

    // Defect 5: New Project kept the previous project's parameters and dropped the inputs.
    void newProjectKeepsInputsAndStartsFromDefaults() {
        MainWindow& w = *window_;
        QVERIFY(w.openProject(alpha_, true));
        QVERIFY(settle(w));
        QCOMPARE(w.parameters()->params().signature.seed, uint64_t{7});
        w.dataset()->setInputs({corpusB_});
        const QString fresh = path("fresh.ndw");
        w.newProject(fresh);
        QTRY_COMPARE(w.projectPath(), QFileInfo(fresh).absoluteFilePath());
        QVERIFY(settle(w));
        QCOMPARE(w.dataset()->inputs(), QStringList{corpusB_});
        const RunParams shown = w.parameters()->params();
        const RunParams defaults;  // what `neardup run` uses without options
        QCOMPARE(shown.signature.seed, defaults.signature.seed);
        QCOMPARE(shown.signature.hashes, defaults.signature.hashes);
        QCOMPARE(shown.signature.ngram, defaults.signature.ngram);
        QCOMPARE(shown.lsh.bands, defaults.lsh.bands);
        QCOMPARE(shown.lsh.rows, defaults.lsh.rows);
        QCOMPARE(shown.lsh.bucketMode, defaults.lsh.bucketMode);
        QCOMPARE(shown.compare.threshold, defaults.compare.threshold);
        QCOMPARE(shown.compare.storeFloor, defaults.compare.storeFloor);
        QCOMPARE(shown.compare.verify, defaults.compare.verify);
        QCOMPARE(shown.keep, defaults.keep);
        QCOMPARE(shown.decide, defaults.decide);
        QCOMPARE(toJson(shown), toJson(defaults));
    }

    // Defect 6: the Dataset panel showed the previous project's dataset.
    void switchingClearsTheDatasetPanel() {
        MainWindow& w = *window_;
        // The panel's lines about the shown run's dataset ("Dataset 1: 1 files, 700 lines...").
        auto datasetLines = [&w] {
            QStringList lines;
            for (const QLabel* l : w.dataset()->findChildren<QLabel*>())
                if (l->text().contains(QStringLiteral(" lines, "))) lines << l->text();
            return lines.join(QLatin1Char('\n'));
        };
        QVERIFY(w.openProject(beta_, true));
        QVERIFY(settle(w));
        QVERIFY2(datasetLines().contains(QStringLiteral("700 lines")), qPrintable(datasetLines()));
        QVERIFY(w.openProject(empty_, true));
        QVERIFY(settle(w));
        QVERIFY2(datasetLines().isEmpty(), qPrintable(datasetLines()));
        QVERIFY(w.dataset()->inputs().isEmpty());
    }

    // Defect 6: a file that is not a project left its name in the title and in Open Recent,
    // pushing good projects out.
    void failedOpensLeaveNoTrace() {
        MainWindow& w = *window_;
        QVERIFY(w.openProject(alpha_, true));
        QVERIFY(settle(w));
        const QStringList recent = w.recentProjects();
        QCOMPARE(recent.front(), QFileInfo(alpha_).absoluteFilePath());
        const QString text = path("notes.ndw");
        testsupport::writeFile(text.toStdString(), "{\"id\": 1, \"text\": \"not a project\"}\n");
        const QString other = path("other.ndw");  // SQLite, but of another application
        {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(other.toUtf8().constData(), &db), SQLITE_OK);
            QCOMPARE(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(db);
        }
        for (const QString& bad : {text, other}) {
            w.openProject(bad, true);
            QVERIFY(settle(w));
            QCOMPARE(w.projectPath(), QFileInfo(alpha_).absoluteFilePath());
            QVERIFY2(w.windowTitle().contains(QStringLiteral("alpha.ndw")),
                     qPrintable(w.windowTitle()));
            QCOMPARE(w.recentProjects(), recent);
            QCOMPARE(w.currentRun().runId, qint64{1});
        }
    }

    // Defect 7: an interrupted latest run opened to "0 clusters"; now the latest finished run
    // is shown and Resume runs the interrupted one again with its own parameters.
    void interruptedLatestRunOffersResume() {
        MainWindow& w = *window_;
        QVERIFY(w.openProject(gamma_, true));
        QVERIFY(settle(w));
        QCOMPARE(w.history()->model()->rowCount(), 2);
        QCOMPARE(w.currentRun().runId, qint64{1});
        const RunInfo first = ProjectQueries(gamma_.toStdString()).runInfo(1);
        QTRY_COMPARE(w.clusters()->model()->totalCount(), quint64(first.clusters));
        auto* resume = w.findChild<QAction*>(QStringLiteral("resumeAction"));
        QVERIFY(resume);
        QCOMPARE(resume, w.resumeAction());
        QVERIFY(resume->isEnabled());
        QVERIFY2(resume->text().contains(QStringLiteral("run 2")), qPrintable(resume->text()));
        // The bar's sentence is read whole at a narrow width: wrapped, never cut mid-word.
        auto* why = w.findChild<QLabel*>(QStringLiteral("resumeText"));
        QVERIFY(why && why->isVisible());
        QVERIFY2(why->text().startsWith(QStringLiteral("Run 2 did not finish")),
                 qPrintable(why->text()));
        const QSize before = w.size();
        w.resize(900, before.height());
        QTRY_VERIFY(why->width() < 900);
        QVERIFY(why->wordWrap());
        QTRY_VERIFY2(why->heightForWidth(why->width()) <= why->height(),
                     qPrintable(QStringLiteral("%1 px of text in %2 px")
                                    .arg(why->heightForWidth(why->width()))
                                    .arg(why->height())));
        w.resize(before);
        QSignalSpy finished(w.runController(), &RunController::finished);
        resume->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(finished.front().at(0).toString(), QStringLiteral("ok"));
        const qint64 resumed = finished.front().at(1).toLongLong();
        QCOMPARE(resumed, qint64{3});
        QVERIFY(settle(w));
        QCOMPARE(w.currentRun().runId, resumed);
        QCOMPARE(w.currentRun().params.compare.threshold, 0.75);  // run 2's, not the panel's
        QVERIFY(!resume->isEnabled());
        ProjectStore store(gamma_.toStdString());
        QVERIFY(!findResumable(store));
    }

    // The start page: recent projects, and the bundled sample made a project and run.
    void startPageOpensTheSample() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        StartPage* start = w.startPage();
        QVERIFY(start && start->isVisible());
        QVERIFY(!w.tabs()->isVisible());
        QStringList listed;
        for (int i = 0; i < start->recentList()->count(); ++i)
            listed << start->recentList()->item(i)->data(Qt::UserRole).toString();
        QCOMPARE(listed, w.recentProjects());
        QVERIFY(listed.contains(QFileInfo(gamma_).absoluteFilePath()));

        QSignalSpy finished(w.runController(), &RunController::finished);
        const QString folder = path("sample-folder");
        QVERIFY(w.openSample(folder));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(finished.front().at(0).toString(), QStringLiteral("ok"));
        QVERIFY(settle(w));
        QCOMPARE(w.projectPath(), QDir(folder).absoluteFilePath(QStringLiteral("sample.ndw")));
        QVERIFY(!start->isVisible());
        QVERIFY(w.tabs()->isVisible());
        const QString corpus = QDir(folder).filePath(QStringLiteral("sample.jsonl"));
        QCOMPARE(w.dataset()->inputs(), QStringList{corpus});
        QCOMPARE(
            QFileInfo(corpus).size(),
            QFileInfo(QStringLiteral(NEARDUP_SOURCE_DIR "/resources/samples/sample.jsonl")).size());
        QCOMPARE(w.currentRun().params.compare.threshold, RunParams{}.compare.threshold);
        QVERIFY(w.currentRun().clusters > 0);
    }
};

QTEST_MAIN(TestUiProjectSwitch)

#else  // built without the GUI

#include <QTest>

class TestUiProjectSwitch : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

QTEST_GUILESS_MAIN(TestUiProjectSwitch)

#endif

#include "test_ui_project_switch.moc"
