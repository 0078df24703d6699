// The workbench's File > Export Report… (offscreen, a real window and project): the file the
// menu's file dialog names is written by core/report, with the clusters CSV beside it when its
// check box is ticked; an existing file is replaced only after the question, a changed input
// offers a report without texts. And the run history's phase
// chart: the labels of short phases never overlap.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <fstream>
#include <memory>

#include "corpus_generator.h"
#include "engine_fixture.h"
#include "exportdialog.h"
#include "mainwindow.h"
#include "pipeline.h"
#include "projectdocument.h"
#include "qcp.h"
#include "run_report.h"
#include "runhistorypanel.h"
#include "test_support.h"
#include "thresholdpanel.h"

using namespace neardup;
using namespace neardup::ui;

namespace {

// A run of the history with these phases and seconds.
RunSummary runWithPhases(const std::vector<std::pair<const char*, double>>& phases) {
    RunSummary run;
    run.runId = 1;
    run.status = "ok";
    for (const auto& [name, seconds] : phases) {
        PhaseTiming p;
        p.name = name;
        p.seconds = seconds;
        run.phases.push_back(p);
    }
    return run;
}

// The labels the phase chart's axis draws, top to bottom.
QStringList tickLabels(QCustomPlot* chart) {
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(chart->yAxis->ticker());
    return ticker ? QStringList(ticker->ticks().values()) : QStringList();
}

// True when no two labels of the phase chart's axis overlap: each is a line of the tick label
// font centred on its row.
bool labelsApart(QCustomPlot* chart) {
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(chart->yAxis->ticker());
    if (!ticker || ticker->ticks().isEmpty()) return false;
    const int line = QFontMetrics(chart->yAxis->tickLabelFont()).height();
    QList<QRectF> rects;
    for (double key : ticker->ticks().keys()) {
        const double y = chart->yAxis->coordToPixel(key);
        const QRectF rect(0, y - line / 2.0, 100, line);
        for (const QRectF& other : rects)
            if (rect.intersects(other)) return false;
        rects << rect;
    }
    return true;
}

}  // namespace

class TestUiReport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_report"));
        QVERIFY(dir_.isValid());
    }

    // File > Export Report…: the file dialog's name is written, byte for byte what core/report
    // (and so `neardup report`) writes for the run shown.
    void exportReportFromTheMenu() {
        QVERIFY(QFile::copy(QStringLiteral(NEARDUP_SOURCE_DIR "/resources/samples/sample.jsonl"),
                            path("sample.jsonl")));
        const std::string project = path("report.ndw").toStdString();
        QVERIFY(testsupport::runEngine(project, {path("sample.jsonl").toStdString()}, RunParams())
                    .counts.removed > 0);
        MainWindow w;
        w.show();
        QVERIFY(w.openProject(path("report.ndw"), true));
        QTRY_COMPARE(w.currentRun().runId, qint64{1});
        auto* action = w.findChild<QAction*>(QStringLiteral("exportReportAction"));
        QVERIFY(action);
        QVERIFY(action->isEnabled());
        QSignalSpy exported(&w, &MainWindow::reportExported);
        const QString out = path("shared.html");
        // The menu's file dialog is modal: it is answered from the event loop it runs.
        bool answered = false;
        auto* answer = new QTimer(&w);
        connect(answer, &QTimer::timeout, &w, [&] {
            if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
                // Qt's own dialog lists its folder on a thread and may put the suggested name
                // back when the listing arrives: the name is typed where a user types it.
                auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
                if (!name) return;
                name->setText(out);
                static_cast<QDialog*>(dialog)->accept();  // public in QDialog
                answered = true;
                answer->stop();
            }
        });
        answer->start(20);
        action->trigger();
        QVERIFY(answered);
        QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 20000);
        QVERIFY2(exported.front().at(0).toBool(), qPrintable(exported.front().at(1).toString()));
        QCOMPARE(exported.front().at(1).toString(), out);
        report::ReportOptions options;
        report::writeRunReport(project, path("cli.html").toStdString(), options);
        const QByteArray written = testsupport::readFile(out);
        QVERIFY(written.contains("NearDup report: report.ndw, run 1"));
        QCOMPARE(written, testsupport::readFile(path("cli.html")));

        // An existing file is replaced only after the question: No leaves it as it is.
        testsupport::writeFile(out.toStdString(), "keep me");
        exported.clear();
        QVERIFY(w.exportReport(out));
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = w.findChild<QMessageBox*>(QStringLiteral("confirmReportOverwrite"))));
        box->button(QMessageBox::No)->click();
        QTRY_COMPARE(exported.size(), 1);
        QVERIFY(!exported.front().at(0).toBool());
        QCOMPARE(testsupport::readFile(out), QByteArray("keep me"));
        exported.clear();
        QVERIFY(w.exportReport(out));
        QTRY_VERIFY((box = w.findChild<QMessageBox*>(QStringLiteral("confirmReportOverwrite"))));
        box->button(QMessageBox::Yes)->click();
        QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 20000);
        QVERIFY(exported.front().at(0).toBool());
        QCOMPARE(testsupport::readFile(out), written);

        // An input edited since the run (same size): the report is offered without texts.
        QByteArray input = testsupport::readFile(path("sample.jsonl"));
        const qsizetype at = input.indexOf("\"text\"") + 12;
        input[at] = input[at] == 'x' ? 'y' : 'x';
        testsupport::writeFile(path("sample.jsonl").toStdString(), input.toStdString());
        exported.clear();
        QVERIFY(w.exportReport(path("changed.html")));
        QTRY_VERIFY_WITH_TIMEOUT(
            (box = w.findChild<QMessageBox*>(QStringLiteral("reportWithoutTexts"))), 20000);
        QVERIFY(box->text().contains(QStringLiteral("sample.jsonl")));
        QVERIFY(!QFile::exists(path("changed.html")));
        box->button(QMessageBox::Yes)->click();
        QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 20000);
        QVERIFY(exported.front().at(0).toBool());
        const QByteArray changed = testsupport::readFile(path("changed.html"));
        QVERIFY(changed.contains("Document texts are left out"));
        QVERIFY(!changed.contains("<div class=\"pair\">"));
    }

    // Where the user chooses, both θ are named side by side once the slider left the run's own:
    // the report shows the run at its own θ, Export follows the slider.
    void reportAndExportNameBothThresholds() {
        QVERIFY(QFile::copy(QStringLiteral(NEARDUP_SOURCE_DIR "/resources/samples/sample.jsonl"),
                            path("theta.jsonl")));
        testsupport::runEngine(path("theta.ndw").toStdString(), {path("theta.jsonl").toStdString()},
                               RunParams());
        MainWindow w;
        w.show();
        QVERIFY(w.openProject(path("theta.ndw"), true));
        QTRY_COMPARE(w.currentRun().runId, qint64{1});
        const QString own = QString::number(w.currentRun().params.compare.threshold, 'f', 3);
        ExportDialog* before = w.openExportDialog();
        QVERIFY(before);
        QVERIFY2(before->thresholdText().contains(QStringLiteral("run's own \u03b8 = ") + own),
                 qPrintable(before->thresholdText() + QStringLiteral(" / ") + own));
        before->close();
        ThresholdPanel* slider = w.threshold();
        QTRY_VERIFY(slider->slider()->isEnabled());
        slider->setThreshold(w.currentRun().params.compare.threshold - 0.05);
        // The clusters at the new θ shown: the document's working threshold, which Export uses.
        QTRY_VERIFY(!std::isnan(w.document()->workingThreshold()));
        const QString working = QString::number(w.document()->workingThreshold(), 'f', 3);
        ExportDialog* moved = w.openExportDialog();
        QVERIFY(moved);
        const QString note = moved->thresholdText();
        QVERIFY2(note.contains(QStringLiteral("working \u03b8 = ") + working) &&
                     note.contains(QStringLiteral("own \u03b8 = ") + own),
                 qPrintable(note));
        moved->close();
        // The report's file dialog says the same from the report's side.
        QString reportNote;
        auto* answer = new QTimer(&w);
        connect(answer, &QTimer::timeout, &w, [&] {
            if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
                auto* label = dialog->findChild<QLabel*>(QStringLiteral("reportThetaNote"));
                reportNote = label ? label->text() : QStringLiteral("(no note)");
                static_cast<QDialog*>(dialog)->reject();
                answer->stop();
            }
        });
        answer->start(20);
        w.findChild<QAction*>(QStringLiteral("exportReportAction"))->trigger();
        QVERIFY2(reportNote.contains(QStringLiteral("its own \u03b8 = ") + own) &&
                     reportNote.contains(QStringLiteral("working \u03b8 is ") + working),
                 qPrintable(reportNote));
    }

    // The dialog's "clusters as CSV" check box: the CSV is written beside the report, byte for
    // byte what `neardup report --clusters-csv` writes; an existing CSV is replaced only after
    // the question.
    void exportReportWithClustersCsv() {
        // A project of its own: the test above changed its input.
        QVERIFY(QFile::copy(QStringLiteral(NEARDUP_SOURCE_DIR "/resources/samples/sample.jsonl"),
                            path("csv-sample.jsonl")));
        const std::string project = path("csv.ndw").toStdString();
        QVERIFY(
            testsupport::runEngine(project, {path("csv-sample.jsonl").toStdString()}, RunParams())
                .counts.removed > 0);
        MainWindow w;
        w.show();
        QVERIFY(w.openProject(path("csv.ndw"), true));
        QTRY_COMPARE(w.currentRun().runId, qint64{1});
        auto* action = w.findChild<QAction*>(QStringLiteral("exportReportAction"));
        QVERIFY(action);
        QSignalSpy exported(&w, &MainWindow::reportExported);
        const QString out = path("with-csv-report.html");
        const QString csv = path("with-csv-clusters.csv");
        QCOMPARE(MainWindow::clustersCsvBeside(out), csv);
        bool answered = false;
        auto* answer = new QTimer(&w);
        connect(answer, &QTimer::timeout, &w, [&] {
            if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
                auto* box = dialog->findChild<QCheckBox*>(QStringLiteral("reportClustersCsv"));
                if (!box) return;
                box->setChecked(true);
                // Qt's own dialog lists its folder on a thread and may put the suggested name
                // back when the listing arrives: the name is typed where a user types it.
                auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
                if (!name) return;
                name->setText(out);
                static_cast<QDialog*>(dialog)->accept();
                answered = true;
                answer->stop();
            }
        });
        answer->start(20);
        action->trigger();
        QVERIFY(answered);
        QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 20000);
        QVERIFY2(exported.front().at(0).toBool(), qPrintable(exported.front().at(1).toString()));
        report::writeRunReport(project, path("cli-csv.html").toStdString(), report::ReportOptions(),
                               path("cli.csv").toStdString());
        const QByteArray written = testsupport::readFile(csv);
        QVERIFY(written.startsWith("cluster,cluster_size,id,"));
        QCOMPARE(written, testsupport::readFile(path("cli.csv")));
        QCOMPARE(testsupport::readFile(out), testsupport::readFile(path("cli-csv.html")));

        // Only the CSV exists: the question names it, and No leaves it.
        QFile::remove(out);
        testsupport::writeFile(csv.toStdString(), "keep me");
        exported.clear();
        QVERIFY(w.exportReport(out, csv));
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = w.findChild<QMessageBox*>(QStringLiteral("confirmReportOverwrite"))));
        QVERIFY(box->text().contains(QStringLiteral("with-csv-clusters.csv")));
        box->button(QMessageBox::No)->click();
        QTRY_COMPARE(exported.size(), 1);
        QVERIFY(!exported.front().at(0).toBool());
        QCOMPARE(testsupport::readFile(csv), QByteArray("keep me"));
        QVERIFY(!QFile::exists(out));
    }

    // Several near-zero phases beside a long one, in a chart as short as a docked history
    // makes it: every label drawn has a line of its own.
    void shortPhaseLabelsDoNotOverlap() {
        RunHistoryPanel panel;
        panel.resize(700, 130);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        std::vector<RunSummary> runs;
        runs.push_back(runWithPhases({{"read", 0.002},
                                      {"signatures", 12.5},
                                      {"save dataset", 0.001},
                                      {"buckets", 0.0004},
                                      {"compare", 0.0002},
                                      {"verify", 0.003},
                                      {"union", 0.0001},
                                      {"export", 0.0001}}));
        panel.setRuns(std::move(runs));
        QCustomPlot* chart = panel.phaseChart();
        QTRY_VERIFY(labelsApart(chart));
        const QStringList labels = tickLabels(chart);
        QVERIFY2(labels.contains(QStringLiteral("signatures")), qPrintable(labels.join(u',')));
        // Every phase, short or not, is named with its seconds in the chart's tooltip.
        for (const char* phase :
             {"read", "save dataset", "buckets", "compare", "verify", "union", "export"})
            QVERIFY2(chart->toolTip().contains(QLatin1String(phase)), phase);
        QVERIFY(chart->toolTip().contains(QStringLiteral("signatures: 12.500 s")));

        // Phases of like length cannot be merged: those without room lose their label.
        runs.clear();
        runs.push_back(runWithPhases({{"read", 1.0},
                                      {"signatures", 1.1},
                                      {"save dataset", 1.2},
                                      {"buckets", 1.3},
                                      {"compare", 1.4},
                                      {"verify", 1.5},
                                      {"union", 1.6},
                                      {"export", 1.7}}));
        panel.setRuns(std::move(runs));
        QTRY_VERIFY(labelsApart(chart));
        QVERIFY(tickLabels(chart).contains(QStringLiteral("export")));  // the longest
        // With room, every phase has its label again.
        panel.resize(700, 400);
        QTRY_COMPARE(tickLabels(chart).size(), 8);
        QVERIFY(labelsApart(chart));
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiReport : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiReport)
#include "test_ui_report.moc"
