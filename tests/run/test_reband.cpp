// Re-tuning a stored dataset without reading it again: a run with other bands and rows on a
// project that caches the dataset's signatures takes them from the cache at any memory budget.
// When they exceed the budget, they are streamed from the cache file (only their band keys are
// written to the spill), and the run's outputs are byte for byte those of a run that reads and
// signs the corpus under the same budget. A cache file that does not match is a cache miss: the
// corpus is read again, with the same results.
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>

#include "backend_factory.h"
#include "engine_fixture.h"
#include "pipeline.h"
#include "project_store.h"
#include "run_compare.h"
#include "test_outputs.h"
#include "test_support.h"

using namespace neardup;
using testsupport::readFile;

namespace {

constexpr uint64_t kUnlimited = uint64_t{1} << 40;
constexpr uint64_t kSmallBudget = uint64_t{1} << 20;  // far below 3,000 rows of 512 bytes

struct Messages : PipelineObserver {
    std::vector<std::string> said;
    std::vector<std::string> phasesRun;  // phases that did work (not reused)
    void info(const std::string& m) override { said.push_back(m); }
    void phaseFinished(const PhaseTiming& t) override {
        if (!t.reused) phasesRun.push_back(t.name);
    }
    bool saidPart(const std::string& part) const {
        for (const auto& m : said)
            if (m.find(part) != std::string::npos) return true;
        return false;
    }
    bool ran(const std::string& phase) const {
        return std::find(phasesRun.begin(), phasesRun.end(), phase) != phasesRun.end();
    }
};

// Other bands and rows than the first run's, under a budget far too small for the signatures.
RunParams otherBands() {
    RunParams params;
    params.memoryBudget = kSmallBudget;
    params.threads = 2;
    params.lsh.bands = 16;
    params.lsh.rows = 8;
    params.compare.verify = VerifyMode::Exact;
    return params;
}

}  // namespace

class TestReband : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_;
    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

    RunResult runOnce(const std::string& project, const RunParams& params,
                      const std::string& outputs, PipelineObserver* observer = nullptr) {
        ProjectStore store(path(project));
        auto backend = makeCpuBackend(params.threads);
        Pipeline pipeline(store, *backend, observer);
        return pipeline.run({corpus_}, params,
                            testsupport::documentOutputs(dir_.path().toStdString(), outputs));
    }

    // The project's first run: in memory, default bands, its signatures cached.
    void firstRun(const std::string& project) {
        RunParams params;
        params.threads = 2;
        params.memoryBudget = kUnlimited;
        const RunResult first = runOnce(project, params, project + " first");
        QVERIFY(!first.spilled);
        QCOMPARE(ProjectStore(path(project)).signatureCacheFiles().size(), std::size_t{1});
    }

    void compareOutputs(const std::string& a, const std::string& b) {
        for (const char* ext : {".jsonl", ".kept", ".removed", ".clusters"})
            QCOMPARE(readFile(path(a + ext)), readFile(path(b + ext)));
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        testsupport::writeGeneratedCorpus(corpus_,
                                          {.documents = 3000, .seed = 23, .meanChars = 400});
    }

    void otherBandsBeyondTheBudgetStreamTheCache() {
        firstRun("streamed.ndw");
        const RunParams params = otherBands();
        Messages streamed;
        const RunResult again = runOnce("streamed.ndw", params, "streamed", &streamed);
        QVERIFY(again.signaturesReused);
        QVERIFY(again.spilled);
        QVERIFY(streamed.saidPart("streaming them from its cache"));
        QVERIFY(!streamed.ran("read"));
        QVERIFY(!streamed.ran("signatures"));
        QVERIFY(streamed.ran("compare"));
        // Only band keys went to the spill, never the rows (4 H bytes a document).
        const uint64_t keyBytes = again.counts.documents * 8 * 16;
        QVERIFY2(again.spillBytes < keyBytes + again.counts.documents * 4 * 128,
                 qPrintable(QString::number(again.spillBytes)));

        // A project that never saw the corpus reads and signs it under the same budget.
        Messages read;
        const RunResult fresh = runOnce("fresh.ndw", params, "fresh", &read);
        QVERIFY(!fresh.signaturesReused);
        QVERIFY(fresh.spilled);
        QVERIFY(read.ran("read"));
        compareOutputs("streamed", "fresh");
        RunResult againAll = again, freshAll = fresh;
        againAll.pairs = ProjectStore(path("streamed.ndw")).loadPairs(again.runId);
        freshAll.pairs = ProjectStore(path("fresh.ndw")).loadPairs(fresh.runId);
        testsupport::compareRuns(freshAll, againAll);
    }

    // The same parameters again under the small budget: the streamed run's pairs are taken,
    // and nothing is bucketed or spilled at all.
    void pairsOfAStreamedRunAreReusedWithoutSpilling() {
        const RunParams params = otherBands();
        Messages m;
        const RunResult third = runOnce("streamed.ndw", params, "third", &m);
        QVERIFY(third.signaturesReused);
        QVERIFY(third.pairsReused);
        QVERIFY(!third.spilled);
        QVERIFY(!m.ran("compare"));
        compareOutputs("third", "streamed");
    }

    // A cache file that does not match (truncated here) is a miss: the corpus is read and signed
    // again, out of core, with the same outputs.
    void aDamagedCacheIsReadAgain() {
        firstRun("damaged.ndw");
        const std::string cache = path("damaged.ndw") + ".d/" +
                                  ProjectStore(path("damaged.ndw")).signatureCacheFiles()[0];
        std::filesystem::resize_file(cache, std::filesystem::file_size(cache) - 1);
        const RunParams params = otherBands();
        Messages m;
        const RunResult again = runOnce("damaged.ndw", params, "damaged", &m);
        QVERIFY(!again.signaturesReused);
        QVERIFY(m.ran("read"));
        QVERIFY(m.saidPart("computing them again, out of core"));
        compareOutputs("damaged", "streamed");
    }
};

QTEST_GUILESS_MAIN(TestReband)
#include "test_reband.moc"
