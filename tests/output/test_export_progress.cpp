// Export progress and cancellation (core/exporter): progress climbs to its total, a cancel
// raised part-way stops the export with ExportCancelled and leaves no file (not even the
// outputs that were already complete), and an existing output is left untouched. Reading
// ahead on a second thread, or checking rows and gathering lines on several, changes none of it.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <filesystem>

#include "engine_fixture.h"
#include "exporter.h"
#include "pipeline.h"
#include "project_store.h"

using namespace neardup;

namespace {

// A run on a generated corpus of 2,600-byte documents, several of the export's 4 MB chunks, in
// an in-memory project: its result, and its dataset and documents as the project stores them.
struct ChunkedRun {
    std::string corpus;
    RunResult run;
    DatasetRecord dataset;
    DocumentTable docs;
};

ChunkedRun runOnChunks(const QString& dir, const char* name, uint64_t documents, uint64_t seed) {
    ChunkedRun r;
    r.corpus = QDir(dir).filePath(QString::fromLatin1(name)).toStdString();
    testsupport::writeGeneratedCorpus(r.corpus,
                                      {.documents = documents, .seed = seed, .meanChars = 2600});
    ProjectStore store(":memory:");
    auto backend = makeCpuBackend(2);
    Pipeline pipeline(store, *backend);
    RunParams params;
    params.compare.verify = VerifyMode::None;
    r.run = pipeline.run({r.corpus}, params);
    r.dataset = store.loadDataset(r.run.datasetId, &r.docs);
    return r;
}

}  // namespace

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
        // 20,000 documents: several progress steps per output.
        testsupport::writeGeneratedCorpus(corpus,
                                          {.documents = 20000, .seed = 4, .meanChars = 120});
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

    // Reading the inputs ahead on a second thread writes the same bytes over several chunks,
    // stops as promptly on cancel, and still reports an input that shrank since the run.
    void readAheadWritesTheSameBytes() {
        QTemporaryDir work;
        const ChunkedRun chunked = runOnChunks(work.path(), "big.jsonl", 5000, 9);
        const std::string& corpus = chunked.corpus;
        const RunResult& run = chunked.run;
        const DatasetRecord& dataset = chunked.dataset;
        const DocumentTable& docs = chunked.docs;
        QVERIFY(run.counts.removed > 0);
        auto exportTo = [&](const char* name, bool ahead) {
            ExportOptions o;
            o.jsonl = QDir(work.path()).filePath(QString::fromLatin1(name)).toStdString();
            o.readAhead = ahead;
            exportRun(run, dataset.files, docs, o);
            QFile f(QString::fromStdString(o.jsonl));
            if (!f.open(QIODevice::ReadOnly)) return QByteArray();
            return f.readAll();
        };
        const QByteArray plain = exportTo("plain.jsonl", false);
        QVERIFY(plain.size() > 8 * 1024 * 1024);
        QCOMPARE(exportTo("ahead.jsonl", true), plain);

        std::atomic<bool> cancel{false};
        ExportOptions o;
        o.jsonl = QDir(work.path()).filePath(QStringLiteral("cancelled.jsonl")).toStdString();
        o.readAhead = true;
        o.cancel = &cancel;
        o.progress = [&](uint64_t done, uint64_t) {
            if (done > 1000) cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(ExportCancelled, exportRun(run, dataset.files, docs, o));
        QVERIFY(!QFile::exists(QString::fromStdString(o.jsonl)));

        std::filesystem::resize_file(corpus, std::filesystem::file_size(corpus) / 2);
        ExportOptions shrunk;
        shrunk.jsonl = QDir(work.path()).filePath(QStringLiteral("shrunk.jsonl")).toStdString();
        shrunk.readAhead = true;
        try {
            exportRun(run, dataset.files, docs, shrunk);
            QFAIL("an input that shrank was exported");
        } catch (const std::runtime_error& e) {
            // Found before a byte is written: the pinned size differs (input_pin.h).
            QVERIFY2(std::string(e.what()).find("changed since it was read") != std::string::npos,
                     e.what());
        }
        QVERIFY(!QFile::exists(QString::fromStdString(shrunk.jsonl)));
    }

    // Rows checked and lines gathered by several threads (ExportOptions::threads) write the
    // same bytes as one thread, over several chunks and for --out-dir's shards too; a row that
    // does not match its line is refused with the same message, naming the same document; a
    // document past the end of its input is the same short input; a cancel still stops it.
    void threadsWriteTheSameBytesAndRefuseTheSameRow() {
        QTemporaryDir work;
        const ChunkedRun chunked = runOnChunks(work.path(), "many.jsonl", 6000, 11);
        const RunResult& run = chunked.run;
        const DatasetRecord& dataset = chunked.dataset;
        const DocumentTable& docs = chunked.docs;
        QVERIFY(run.counts.removed > 0);
        auto exportWith = [&](const DocumentTable& table, int threads, const QString& name) {
            ExportOptions o;
            o.jsonl = QDir(work.path()).filePath(name).toStdString();
            o.threads = threads;
            exportRun(run, dataset.files, table, o);
            QFile f(QString::fromStdString(o.jsonl));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        const QByteArray one = exportWith(docs, 1, QStringLiteral("one.jsonl"));
        QVERIFY(one.size() > 8 * 1024 * 1024);
        QCOMPARE(exportWith(docs, 4, QStringLiteral("four.jsonl")), one);
        for (const int threads : {1, 4}) {
            ExportOptions o;
            o.outDir =
                QDir(work.path()).filePath(QStringLiteral("shards-%1").arg(threads)).toStdString();
            o.threads = threads;
            exportRun(run, dataset.files, docs, o);
        }
        QCOMPARE(QDir(work.path()).entryList({QStringLiteral("shards-*")}).size(), 2);
        QFile shardOne(QDir(work.path()).filePath(QStringLiteral("shards-1/many.jsonl")));
        QFile shardFour(QDir(work.path()).filePath(QStringLiteral("shards-4/many.jsonl")));
        QVERIFY(shardOne.open(QIODevice::ReadOnly) && shardFour.open(QIODevice::ReadOnly));
        QCOMPARE(shardFour.readAll(), shardOne.readAll());

        // A kept document far into the input whose stored length ends inside its line.
        std::size_t kept = docs.size() * 3 / 4;
        while (run.removed(kept))
            ++kept;
        DocumentTable damaged = docs;
        damaged.length[kept] -= 5;
        auto refusal = [&](const DocumentTable& table, int threads) {
            try {
                exportWith(table, threads, QStringLiteral("refused.jsonl"));
            } catch (const std::runtime_error& e) {
                return std::string(e.what());
            }
            return std::string("exported");
        };
        const std::string refusedByOne = refusal(damaged, 1);
        QVERIFY2(refusedByOne.find("document #" + std::to_string(kept) + " ") != std::string::npos,
                 refusedByOne.c_str());
        QCOMPARE(refusal(damaged, 4), refusedByOne);
        QVERIFY(!QFile::exists(QDir(work.path()).filePath(QStringLiteral("refused.jsonl"))));
        // The last kept document's row says it lies past the end of the input.
        std::size_t last = docs.size() - 1;
        while (run.removed(last))
            --last;
        DocumentTable beyond = docs;
        beyond.offset[last] += uint64_t{1} << 20;
        const std::string shortByOne = refusal(beyond, 1);
        QVERIFY2(shortByOne.find("shorter than when it was read") != std::string::npos,
                 shortByOne.c_str());
        QCOMPARE(refusal(beyond, 4), shortByOne);

        std::atomic<bool> cancel{false};
        ExportOptions o;
        o.jsonl = QDir(work.path()).filePath(QStringLiteral("cancelled.jsonl")).toStdString();
        o.threads = 4;
        o.cancel = &cancel;
        o.progress = [&](uint64_t done, uint64_t) {
            if (done > 1000) cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(ExportCancelled, exportRun(run, dataset.files, docs, o));
        QVERIFY(!QFile::exists(QString::fromStdString(o.jsonl)));
    }
};

QTEST_GUILESS_MAIN(TestExportProgress)
#include "test_export_progress.moc"
