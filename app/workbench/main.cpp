// neardup-workbench: the Qt 6 desktop workbench. Argument parsing and wiring only.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QPixmap>
#include <QTimer>
#include <cstdio>

#include "clusterspanel.h"
#include "mainwindow.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("NearDup"));
    QApplication::setApplicationName(QStringLiteral("neardup-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("NearDup Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(NEARDUP_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/neardup-workbench.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Near-duplicate detection with MinHash-LSH: tune, audit, export."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("project"),
                                 QStringLiteral("Project file (.ndw) to open"),
                                 QStringLiteral("[project.ndw]"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save an image of the main window once the project is loaded, then quit"),
        QStringLiteral("file.png"));
    const QCommandLineOption tab(QStringLiteral("tab"),
                                 QStringLiteral("Central tab to show first: clusters or buckets"),
                                 QStringLiteral("name"));
    parser.addOption(screenshot);
    parser.addOption(tab);
    parser.process(app);

    neardup::ui::MainWindow window;
    window.show();
    // With --screenshot, say how long opening took (the measure quoted for large projects).
    QElapsedTimer opening;
    opening.start();
    if (parser.isSet(screenshot)) {
        QObject::connect(&window, &neardup::ui::MainWindow::runShown, &window, [&opening] {
            std::printf("run shown after %lld ms\n", opening.elapsed());
        });
        QObject::connect(
            window.clusters(), &neardup::ui::ClustersPanel::comparisonShown, &window,
            [&opening] { std::printf("comparison shown after %lld ms\n", opening.elapsed()); });
    }
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty() && !window.openProject(args.front(), parser.isSet(screenshot))) {
        std::fprintf(stderr, "neardup-workbench: cannot open %s\n",
                     qPrintable(QDir::toNativeSeparators(args.front())));
        if (parser.isSet(screenshot)) return 1;
    }
    if (parser.value(tab) == QLatin1String("buckets")) window.tabs()->setCurrentIndex(1);
    if (parser.isSet(screenshot)) {
        const QString file = parser.value(screenshot);
        window.whenSettled([&window, file] {
            // Highest compression: screenshots are committed to the repository.
            const bool ok = window.grab().save(file, nullptr, 0);
            std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "saved" : "cannot save",
                         qPrintable(QFileInfo(file).absoluteFilePath()));
            QCoreApplication::exit(ok ? 0 : 1);
        });
    }
    return app.exec();
}
