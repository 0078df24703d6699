// What the window and project-switching GUI tests share (test_ui_window_fit.cpp,
// test_ui_desk.cpp, test_ui_project_switch.cpp and others): settings kept in a temporary folder
// (never the user's), a corpus whose ids are very long, projects made by the real CLI, a
// MainWindow run to its settled state, and a main() on a 1280x800 offscreen screen. Included
// only in GUI builds.
#pragma once

#include <QApplication>
#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSize>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <sstream>
#include <string>

#include "corpus_generator.h"
#include "mainwindow.h"
#include "test_support.h"

namespace uiwindow {

// Every QSettings the window writes goes under `folder` (recent projects, geometry, docks):
// the tests never read or touch the user's own settings.
inline void isolateSettings(const QString& folder, const char* application) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
    QCoreApplication::setApplicationName(QString::fromLatin1(application));
    QDir().mkpath(folder);
    for (QSettings::Format f : {QSettings::NativeFormat, QSettings::IniFormat})
        QSettings::setPath(f, QSettings::UserScope, folder);
    QSettings().clear();
}

// A generated corpus whose ids are `idChars` long (path-like, as the ids of web crawls are).
inline void writeLongIdCorpus(const QString& path, uint64_t docs, uint64_t seed, int idChars) {
    neardup::GeneratorOptions gen;
    gen.documents = docs;
    gen.seed = seed;
    gen.meanChars = 500;
    neardup::GroundTruth truth;
    std::ostringstream generated;
    neardup::generateCorpus(gen, generated, truth);
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    std::istringstream in(generated.str());
    std::string line;
    const QString stem = QStringLiteral("https://example.org/") +
                         QString(idChars, QLatin1Char('a')).replace(20, 1, QLatin1Char('/'));
    while (std::getline(in, line)) {
        QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(line)).object();
        const QString id = o.value(QStringLiteral("id")).toVariant().toString();
        o.insert(QStringLiteral("id"), stem.left(idChars - id.size()) + id);
        out.write(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n');
    }
}

// `neardup run -p project inputs... args...` with the real CLI; its stderr when it fails.
inline QString cliRun(const QString& project, const QStringList& inputs,
                      const QStringList& args = {}) {
    QStringList all{QStringLiteral("run"), QStringLiteral("-p"), project,
                    QStringLiteral("--threads"), QStringLiteral("2")};
    all << args << inputs;
    const testsupport::CliResult r = testsupport::neardup(all);
    return r.code == 0 ? QString() : QStringLiteral("exit %1: %2").arg(r.code).arg(r.err);
}

// Runs the event loop until the window is settled (no job, no run, its first run shown).
inline bool settle(neardup::ui::MainWindow& w, int timeoutMs = 60000) {
    bool done = false;
    w.whenSettled([&done] { done = true; }, timeoutMs);
    return QTest::qWaitFor([&done] { return done; }, timeoutMs + 1000) && w.isSettled();
}

// Shows `w`, waits until it is the active window (so that key presses reach it) and opens
// `project` in it, settled: what a user sees after opening the project. False when a step fails.
inline bool openActive(neardup::ui::MainWindow& w, const QString& project) {
    w.show();
    w.activateWindow();
    return QTest::qWaitForWindowActive(&w) && w.openProject(project, true) && settle(w);
}

// The smallest screen the workbench supports.
inline const QSize kSmallScreen(1280, 800);

// main() of a test on a kSmallScreen screen: the offscreen platform reads its screens from a
// configuration file.
template <class Test>
int runOnSmallScreen(int argc, char** argv) {
    QTemporaryDir config;
    const QString file = config.filePath(QStringLiteral("screens.json"));
    {
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly)) return 2;
        f.write(QStringLiteral(R"({"screens": [{"name": "small", "x": 0, "y": 0, "width": %1,
                    "height": %2, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                    .arg(kSmallScreen.width())
                    .arg(kSmallScreen.height())
                    .toUtf8());
    }
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + file.toLocal8Bit());
    QApplication app(argc, argv);
    Test test;
    return QTest::qExec(&test, argc, argv);
}

}  // namespace uiwindow
