// The workbench's run controller starts runs through the run service with every execution
// option of its request: a worker count the engine refuses fails the run and says why, and a
// valid one is used (the backend it reports has that many workers). Counts and rates are
// written by one locale-aware helper (ui/numbertext.h), in the run monitor as elsewhere; the
// monitor names the backend once, above the phases, and shows no ETA after Cancel.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <QLabel>
#include <QPushButton>
#include <fstream>

#include "numbertext.h"
#include "runcontroller.h"
#include "runmonitor.h"

using namespace neardup;
using namespace neardup::ui;

class TestUiRunController : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    // Runs `request` to its end; returns (status, message) and collects the info messages.
    static std::pair<QString, QString> runToEnd(const RunRequest& request, QStringList& infos) {
        RunController controller;
        QSignalSpy finished(&controller, &RunController::finished);
        QObject::connect(&controller, &RunController::info,
                         [&infos](const QString& message) { infos << message; });
        QObject::connect(&controller, &RunController::backendChosen,
                         [&infos](const QString& message) { infos << message; });
        if (!controller.start(request)) return {QStringLiteral("not started"), QString()};
        if (!finished.wait(60000)) return {QStringLiteral("timed out"), QString()};
        return {finished.at(0).at(0).toString(), finished.at(0).at(2).toString()};
    }

  private slots:
    void executionOptionsReachTheEngine() {
        QVERIFY(dir_.isValid());
        const std::string corpus = dir_.filePath(QStringLiteral("c.jsonl")).toStdString();
        {
            std::ofstream out(corpus);
            for (int i = 0; i < 30; ++i)
                out << "{\"id\":" << i << ",\"text\":\"a line of text about rivers and hills "
                    << i / 3 << "\"}\n";
        }
        RunRequest request;
        request.project = dir_.filePath(QStringLiteral("p.ndw"));
        request.inputs = {corpus};
        request.params.backend = QStringLiteral("cpu").toStdString();
        request.params.threads = 2;

        request.params.workers = 65;
        QStringList infos;
        auto [status, message] = runToEnd(request, infos);
        QCOMPARE(status, QStringLiteral("failed"));
        QVERIFY2(message.contains(QStringLiteral("workers must be between 1 and 64")),
                 qPrintable(message));

        request.params.workers = 2;
        infos.clear();
        std::tie(status, message) = runToEnd(request, infos);
        QCOMPARE(status, QStringLiteral("ok"));
        QVERIFY2(infos.join(QLatin1Char('\n')).contains(QStringLiteral("2 workers")),
                 qPrintable(infos.join(QLatin1Char('\n'))));
    }

    // The backend line sits above the phases; the log has it only when it changed since the
    // previous run, so that the same line does not open every run's log.
    void backendLineIsNotRepeated() {
        const std::string corpus = dir_.filePath(QStringLiteral("c.jsonl")).toStdString();
        RunRequest request;
        request.project = dir_.filePath(QStringLiteral("again.ndw"));
        request.inputs = {corpus};
        request.params.backend = QStringLiteral("cpu").toStdString();
        request.params.threads = 2;
        RunController controller;
        RunMonitor monitor(&controller);
        QSignalSpy finished(&controller, &RunController::finished);
        QVERIFY(controller.start(request));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(0).at(0).toString(), QStringLiteral("ok"));
        const QString backend = monitor.backendText();
        QVERIFY2(backend.startsWith(QStringLiteral("Backend: cpu")), qPrintable(backend));
        QVERIFY(monitor.logText().contains(QStringLiteral("backend: cpu")));
        QVERIFY(controller.start(request));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(1).at(0).toString(), QStringLiteral("ok"));
        QCOMPARE(monitor.backendText(), backend);
        QVERIFY2(!monitor.logText().contains(QStringLiteral("cpu: ")),
                 qPrintable(monitor.logText()));
    }

    // Re-tuning from the workbench takes the engine's path: a run with other bands on a project
    // that caches the dataset's signatures, under a budget too small for them, streams the
    // cache instead of reading the corpus, reuses the verdicts of the first run, and its
    // messages (which the run monitor logs) say both.
    void aRerunWithOtherBandsSaysWhatItReuses() {
        const std::string corpus = dir_.filePath(QStringLiteral("retune.jsonl")).toStdString();
        {
            std::ofstream out(corpus);
            for (int i = 0; i < 4000; ++i)
                out << "{\"id\":" << i << ",\"text\":\"notes on rivers, hills and the weather "
                    << "of a valley number " << i / 2 << " in a year of little rain\"}\n";
        }
        RunRequest request;
        request.project = dir_.filePath(QStringLiteral("retune.ndw"));
        request.inputs = {corpus};
        request.params.backend = QStringLiteral("cpu").toStdString();
        request.params.threads = 2;
        request.params.compare.verify = VerifyMode::Exact;
        QStringList infos;
        QCOMPARE(runToEnd(request, infos).first, QStringLiteral("ok"));
        request.params.lsh.bands = 16;
        request.params.lsh.rows = 8;
        request.params.memoryBudget = uint64_t{1} << 20;
        infos.clear();
        QCOMPARE(runToEnd(request, infos).first, QStringLiteral("ok"));
        const QString log = infos.join(QLatin1Char('\n'));
        QVERIFY2(log.contains(QStringLiteral("streaming them from its cache")), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("reusing the exact Jaccard of")), qPrintable(log));
    }

    // After Cancel, and after the run's end, no phase shows an ETA.
    void cancelClearsTheEta() {
        RunController controller;
        RunMonitor monitor(&controller);
        emit controller.started();
        emit controller.phaseStarted(QStringLiteral("read"));
        QTest::qWait(120);
        emit controller.progress(QStringLiteral("read"), 10, 1000);
        QVERIFY(!monitor.phaseEta(QStringLiteral("read")).isEmpty());
        monitor.cancelButton()->click();
        QCOMPARE(monitor.phaseEta(QStringLiteral("read")), QString());
        QVERIFY2(monitor.statusText().startsWith(QStringLiteral("Cancelling")),
                 qPrintable(monitor.statusText()));
        QTest::qWait(50);
        emit controller.progress(QStringLiteral("read"), 20, 1000);
        QCOMPARE(monitor.phaseEta(QStringLiteral("read")), QString());
        emit controller.finished(QStringLiteral("interrupted"), 1, QStringLiteral("cancelled"));
        QCOMPARE(monitor.phaseEta(QStringLiteral("read")), QString());
        // The next run estimates again.
        emit controller.started();
        emit controller.phaseStarted(QStringLiteral("read"));
        QTest::qWait(120);
        emit controller.progress(QStringLiteral("read"), 10, 1000);
        QVERIFY(!monitor.phaseEta(QStringLiteral("read")).isEmpty());
        emit controller.finished(QStringLiteral("interrupted"), 2, QStringLiteral("cancelled"));
        QCOMPARE(monitor.phaseEta(QStringLiteral("read")), QString());
    }

    // Counts are grouped as the locale says, and as in English under the C locale (which
    // groups nothing): never "1740" beside "1,740".
    void countsAreGroupedAsTheLocaleSays() {
        const QLocale before;
        QLocale::setDefault(QLocale::c());
        QCOMPARE(countText(1740), QStringLiteral("1,740"));
        QCOMPARE(countText(quint64(13356745)), QStringLiteral("13,356,745"));
        QCOMPARE(countText(999), QStringLiteral("999"));
        QCOMPARE(rateText(13356745.4, QStringLiteral("items/s")),
                 QStringLiteral("13,356,745 items/s"));
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        QCOMPARE(countText(1740), QStringLiteral("1.740"));
        QLocale::setDefault(before);
    }

    // The run monitor's throughput is a grouped count ("13356745 items/s" before).
    void monitorRatesAreGrouped() {
        const QLocale before;
        QLocale::setDefault(QLocale::c());
        RunController controller;
        RunMonitor monitor(&controller);
        emit controller.started();
        emit controller.phaseStarted(QStringLiteral("compare"));
        emit controller.phaseFinished(QStringLiteral("compare"), 1.0, 13356745, 0, false);
        QStringList texts;
        for (const QLabel* label : monitor.findChildren<QLabel*>())
            texts << label->text();
        QLocale::setDefault(before);
        QVERIFY2(texts.contains(QStringLiteral("13,356,745 items/s")),
                 qPrintable(texts.join(QStringLiteral(" | "))));
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiRunController : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiRunController)
#include "test_ui_run_controller.moc"
