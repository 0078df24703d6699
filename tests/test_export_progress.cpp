// Export progress and cancellation (core/exporter): progress climbs to its total, a cancel
// raised part-way stops the export with ExportCancelled and leaves no file (not even the
// outputs that were already complete), and an existing output is left untouched.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <fstream>

#include "corpus_generator.h"
#include "exporter.h"
#include "pipeline.h"
#include "project_store.h"

using namespace neardup;

class TestExportProgress : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    RunResult run_;
    DatasetRecord dataset_;
    DocumentTable docs_;

    ExportOptions allOutputs(const QString& dir) const {
        ExportOptions o;
        o.jsonl = QDir(dir).filePath(QStringLiteral("dedup.jsonl")).toStdString();
        o.kept = QDir(dir).filePath(QStringLiteral("kept.txt")).toStdString();
        o.removed = QDir(dir).filePath(QStringLiteral("removed.txt")).toStdString();
        o.clusters = QDir(dir).filePath(QStringLiteral("clusters.jsonl")).toStdString();
        o.summaryJson = QDir(dir).filePath(QStringLiteral("summary.json")).toStdString();
        return o;
    }

    static QStringList files(const QString& dir) {
        return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::string corpus = dir_.filePath(QStringLiteral("c.jsonl")).toStdString();
        GeneratorOptions gen;
        gen.documents = 20000;  // several progress steps per output
        gen.meanChars = 120;
        gen.seed = 4;
        GroundTruth truth;
        {
            std::ofstream out(corpus, std::ios::binary);
            generateCorpus(gen, out, truth);
        }
        const std::string project = dir_.filePath(QStringLiteral("p.ndw")).toStdString();
        ProjectStore store(project);
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(store, *backend);
        RunParams params;
        params.compare.threshold = 0.7;
        run_ = pipeline.run({corpus}, params);
        QVERIFY(run_.counts.removed > 0);
        dataset_ = store.loadDataset(run_.datasetId, &docs_);
    }

    void progressReachesTheTotal() {
        QTemporaryDir out;
        ExportOptions o = allOutputs(out.path());
        std::vector<std::pair<uint64_t, uint64_t>> ticks;
        o.progress = [&](uint64_t done, uint64_t total) { ticks.emplace_back(done, total); };
        exportRun(run_, dataset_.files, docs_, o);
        QVERIFY(ticks.size() > 10);
        const uint64_t total = 4 * docs_.size();  // four per-document outputs
        for (std::size_t i = 0; i < ticks.size(); ++i) {
            QCOMPARE(ticks[i].second, total);
            if (i) QVERIFY(ticks[i].first >= ticks[i - 1].first);
        }
        QCOMPARE(ticks.back().first, total);
        QCOMPARE(files(out.path()).size(), 5);
    }

    void cancelPartWayLeavesNoFile() {
        QTemporaryDir out;
        // An earlier export's file stays as it was.
        const QString old = QDir(out.path()).filePath(QStringLiteral("kept.txt"));
        {
            QFile f(old);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("earlier export\n");
        }
        ExportOptions o = allOutputs(out.path());
        std::atomic<bool> cancel{false};
        uint64_t cancelledAt = 0, total = 0;
        o.cancel = &cancel;
        o.progress = [&](uint64_t done, uint64_t all) {
            total = all;
            // Past the deduplicated JSONL and into the id lists: complete outputs exist.
            if (done > all * 3 / 8 && !cancel) {
                cancel = true;
                cancelledAt = done;
            }
        };
        QVERIFY_THROWS_EXCEPTION(ExportCancelled, exportRun(run_, dataset_.files, docs_, o));
        QVERIFY(cancelledAt > 0 && cancelledAt < total);
        QCOMPARE(files(out.path()), QStringList{QStringLiteral("kept.txt")});
        QFile f(old);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("earlier export\n"));
    }

    void cancelBeforeTheStart() {
        QTemporaryDir out;
        ExportOptions o = allOutputs(out.path());
        std::atomic<bool> cancel{true};
        o.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(ExportCancelled, exportRun(run_, dataset_.files, docs_, o));
        QVERIFY(files(out.path()).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestExportProgress)
#include "test_export_progress.moc"
