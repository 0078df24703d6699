// neardup-workbench: the Qt 6 desktop workbench. Argument parsing and wiring only.
#include <fmt/format.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QPixmap>
#include <QStandardItemModel>
#include <QThread>  // clusterspanel.h holds a QPointer<QThread> (needs the complete type)
#include <QTimer>
#include <cstdio>

#include "bucketspanel.h"
#include "clusterspanel.h"
#include "cuda_support.h"
#include "mainwindow.h"
#include "runhistorydiff.h"
#include "runhistorypanel.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    neardup::installCudaBackends();
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
    const QCommandLineOption bucket(
        QStringLiteral("show-bucket"),
        QStringLiteral(
            "With --screenshot: list the documents of the largest outlier bucket first"));
    const QCommandLineOption compare(
        QStringLiteral("compare"),
        QStringLiteral("With --screenshot: compare two runs and save an image of the diff instead"),
        QStringLiteral("A,B"));
    parser.addOption(screenshot);
    parser.addOption(tab);
    parser.addOption(bucket);
    parser.addOption(compare);
    parser.process(app);
    // Screenshots are reproducible: settings of their own (never the user's saved window
    // layout) and the size the guide's images have: 1280x800, the smallest screen laid out for.
    if (parser.isSet(screenshot))
        QApplication::setApplicationName(QStringLiteral("neardup-workbench-screenshot"));

    neardup::ui::MainWindow window;
    if (parser.isSet(screenshot)) window.resize(1280, 800);
    window.show();
    // With --screenshot, say how long opening took (the measure quoted for large projects).
    QElapsedTimer opening;
    opening.start();
    if (parser.isSet(screenshot)) {
        QObject::connect(&window, &neardup::ui::MainWindow::runShown, &window,
                         [&opening] { fmt::print("run shown after {} ms\n", opening.elapsed()); });
        QObject::connect(
            window.clusters(), &neardup::ui::ClustersPanel::comparisonShown, &window,
            [&opening] { fmt::print("comparison shown after {} ms\n", opening.elapsed()); });
    }
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty() && !window.openProject(args.front(), parser.isSet(screenshot))) {
        fmt::print(stderr, "neardup-workbench: cannot open {}\n",
                   qPrintable(QDir::toNativeSeparators(args.front())));
        if (parser.isSet(screenshot)) return 1;
    }
    if (parser.value(tab) == QLatin1String("buckets")) window.tabs()->setCurrentIndex(1);
    if (parser.isSet(screenshot)) {
        const QString file = parser.value(screenshot);
        auto save = [file](QWidget* w) {
            // Highest compression: screenshots are committed to the repository.
            const bool ok = w->grab().save(file, nullptr, 0);
            fmt::print(ok ? stdout : stderr, "{} {}\n", ok ? "saved" : "cannot save",
                       qPrintable(QFileInfo(file).absoluteFilePath()));
            QCoreApplication::exit(ok ? 0 : 1);
        };
        const QStringList runs = parser.value(compare).split(QLatin1Char(','));
        const bool showBucket = parser.isSet(bucket);
        window.whenSettled([&window, save, runs, showBucket] {
            if (runs.size() == 2) {
                window.history()->selectRuns(runs[0].toLongLong(), runs[1].toLongLong());
                neardup::ui::RunDiffDialog* d =
                    window.compareRuns(runs[0].toLongLong(), runs[1].toLongLong());
                if (!d) QCoreApplication::exit(1);
                QObject::connect(d, &neardup::ui::RunDiffDialog::loaded, d,
                                 [d, save] { QTimer::singleShot(300, d, [d, save] { save(d); }); });
                return;
            }
            QStandardItemModel* outliers = window.buckets()->outlierModel();
            if (showBucket && outliers->rowCount() > 0) {
                int largest = 0;
                for (int r = 1; r < outliers->rowCount(); ++r)
                    if (outliers->item(r, 2)->data(Qt::UserRole).toDouble() >
                        outliers->item(largest, 2)->data(Qt::UserRole).toDouble())
                        largest = r;
                window.buckets()->showBucket(
                    outliers->item(largest, 0)->data(Qt::UserRole).toInt(),
                    outliers->item(largest, 1)->data(Qt::UserRole + 1).toULongLong());
            }
            window.whenSettled([&window, save] { save(&window); });
        });
    }
    return app.exec();
}
