// The whole engine in process: determinism across threads, reuse, accounting, exports,
// verification, cancellation.
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <sstream>

#include "engine_fixture.h"
#include "pair_verifier.h"
#include "pipeline.h"
#include "test_support.h"

using namespace neardup;
using testsupport::readFile;

namespace {

std::vector<std::string> splitLines(const std::string& s) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < s.size()) {
        const std::size_t end = s.find('\n', start);
        if (end == std::string::npos) {
            lines.push_back(s.substr(start));
            break;
        }
        lines.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

struct Recorder : PipelineObserver {
    std::vector<std::string> finished;
    void phaseFinished(const PhaseTiming& t) override { finished.push_back(t.name); }
};

}  // namespace

class TestPipeline : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_, bad_;
    std::string path(const char* name) const {
        return (dir_.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    RunResult runOnce(const std::string& project, RunParams params, const ExportOptions& out = {},
                      const std::vector<std::string>& inputs = {}) {
        ProjectStore store(project);
        auto backend = makeCpuBackend(params.threads);
        Pipeline pipeline(store, *backend);
        return pipeline.run(inputs.empty() ? std::vector<std::string>{corpus_, bad_} : inputs,
                            params, out);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        bad_ = path("mixed.jsonl");
        testsupport::writeGeneratedCorpus(corpus_, {.documents = 800, .seed = 5});
        // Bad lines, blank lines, CRLF, a duplicate of a corpus line, no final newline.
        const auto firstLines = splitLines(readFile(corpus_));
        std::ofstream mixed(bad_, std::ios::binary);
        mixed << "{\"id\": \"m1\", \"text\": \"a short one\"}\r\n"
              << "\n   \n"
              << "{not json}\n"
              << "[1, 2]\n"
              << "{\"id\": \"m2\"}\n"
              << "{\"id\": \"m3\", \"text\": 42}\n"
              << firstLines[10] << "\n"
              << "{\"id\": \"m4\", \"text\": \"last line without newline\"}";
    }

    void phasesUnderHalfAMillisecondShowNoRates() {
        // The CLI prints phase times to the millisecond: a phase printed as 0.000 s shows no
        // MB/s or items/s (the save dataset a second thread had finished printed 277581452271
        // items/s), in the CLI and the workbench alike.
        QVERIFY(!showsRates(0.0));
        QVERIFY(!showsRates(0.0004));
        QVERIFY(showsRates(0.0005));
        QVERIFY(showsRates(0.001));
        QVERIFY(showsRates(12.5));
    }

    void sameResultForOneAndTwoThreads() {
        RunParams params;
        ExportOptions out1, out2;
        out1.jsonl = path("t1.jsonl");
        out1.clusters = path("t1.clusters");
        out2.jsonl = path("t2.jsonl");
        out2.clusters = path("t2.clusters");
        params.threads = 1;
        const RunResult a = runOnce(path("t1.ndw"), params, out1);
        params.threads = 2;
        const RunResult b = runOnce(path("t2.ndw"), params, out2);
        QCOMPARE(a.counts.documents, b.counts.documents);
        QVERIFY(a.counts.removed > 50);
        QCOMPARE(a.pairs.size(), b.pairs.size());
        for (std::size_t i = 0; i < a.pairs.size(); ++i) {
            QCOMPARE(a.pairs[i].a, b.pairs[i].a);
            QCOMPARE(a.pairs[i].b, b.pairs[i].b);
            QCOMPARE(a.pairs[i].matches, b.pairs[i].matches);
        }
        QCOMPARE(a.clusterOf, b.clusterOf);
        QCOMPARE(a.representative, b.representative);
        QCOMPARE(readFile(out1.jsonl), readFile(out2.jsonl));
        QCOMPARE(readFile(out1.clusters), readFile(out2.clusters));
    }

    void accountingAndRejections() {
        RunParams params;
        const RunResult r = runOnce(path("acc.ndw"), params);
        const RunCounts& c = r.counts;
        QCOMPARE(c.documents + c.rejected + c.blankLines, c.linesRead);
        QCOMPARE(c.kept + c.removed, c.documents);
        QCOMPARE(c.documents, uint64_t(800 + 3));  // m1, the copy, m4
        QCOMPARE(c.rejected, uint64_t(4));
        QCOMPARE(c.blankLines, uint64_t(2));
        std::map<std::string, uint64_t> reasons;
        for (const auto& rej : r.rejections)
            reasons[rej.reason] = rej.count;
        QCOMPARE(reasons["malformed_json"], uint64_t(1));
        QCOMPARE(reasons["not_an_object"], uint64_t(1));
        QCOMPARE(reasons["missing_text"], uint64_t(1));
        QCOMPARE(reasons["text_not_string"], uint64_t(1));
        for (const auto& rej : r.rejections) {
            QCOMPARE(rej.firstFile, bad_);
            QVERIFY(rej.firstLine >= 4 && rej.firstLine <= 7);
        }
        // The copy of corpus line 11 in the second file is removed: the first file comes first.
        QVERIFY(r.counts.clusters > 0);
        QVERIFY(r.removed(801));
        QVERIFY(!r.removed(800) && !r.removed(802));
    }

    void jsonlExportHoldsExactlyTheKeptLines() {
        RunParams params;
        ExportOptions out;
        out.jsonl = path("dedup.jsonl");
        out.kept = path("kept.txt");
        out.removed = path("removed.txt");
        out.summaryJson = path("summary.json");
        const RunResult r = runOnce(path("export.ndw"), params, out);
        // Rebuild the expected output from the inputs: every document line in input order.
        std::vector<std::string> documentLines;
        for (const auto& file : {corpus_, bad_}) {
            for (const auto& line : splitLines(readFile(file))) {
                const auto first = line.find_first_not_of(" \t\r");
                if (first == std::string::npos) continue;
                if (line.find("\"text\": \"") == std::string::npos &&
                    line.find("\"text\":\"") == std::string::npos)
                    continue;  // the rejected lines of the mixed file
                documentLines.push_back(line);
            }
        }
        QCOMPARE(documentLines.size(), std::size_t(r.counts.documents));
        std::string expected;
        for (std::size_t i = 0; i < documentLines.size(); ++i)
            if (!r.removed(i)) expected += documentLines[i] + "\n";
        QCOMPARE(readFile(out.jsonl), expected);
        QVERIFY(expected.find("a short one\"}\r\n") != std::string::npos);  // CRLF kept
        QCOMPARE(splitLines(readFile(out.kept)).size(), std::size_t(r.counts.kept));
        QCOMPARE(splitLines(readFile(out.removed)).size(), std::size_t(r.counts.removed));
        const std::string summary = readFile(out.summaryJson);
        for (const char* key :
             {"\"documents\": 803", "\"rejected\": 4", "\"rejected_by_reason\"", "\"input_bytes\"",
              "\"threads\"", "\"backend\"", "\"parameters\"", "\"phases\"", "\"export\""})
            QVERIFY2(summary.find(key) != std::string::npos, key);
    }

    void secondRunReusesSignaturesThenPairs() {
        RunParams params;
        const std::string project = path("reuse.ndw");
        const RunResult first = runOnce(project, params);
        QVERIFY(!first.signaturesReused);
        params.lsh.bands = 8;
        params.lsh.rows = 16;
        const RunResult second = runOnce(project, params);
        QVERIFY(second.signaturesReused);
        QVERIFY(!second.pairsReused);
        params.lsh = RunParams{}.lsh;  // the first run's again
        params.compare.threshold = 0.9;
        const RunResult third = runOnce(project, params);
        QVERIFY(third.signaturesReused);
        QVERIFY(third.pairsReused);
        QCOMPARE(third.runId, first.runId + 2);
        // Reused pairs give the same clusters as a fresh project at the same threshold.
        const RunResult fresh = runOnce(path("fresh09.ndw"), params);
        QCOMPARE(third.clusterOf, fresh.clusterOf);
        QVERIFY(third.counts.removed < first.counts.removed);
        ProjectStore store(project);
        QCOMPARE(store.listRuns().size(), std::size_t(3));
    }

    void sumBucketsFindAtLeastAsMuch() {
        RunParams params;
        params.threads = 2;
        const RunResult exact = runOnce(path("exact.ndw"), params);
        params.lsh.scheme = BandKeyScheme::Sum;
        params.lsh.bucketMode = BucketMode::Auto;
        const RunResult sum = runOnce(path("sum.ndw"), params);
        QCOMPARE(sum.resolvedBuckets, autoBucketCount(sum.counts.documents));
        QVERIFY(sum.counts.candidatePairs > exact.counts.candidatePairs);
        for (std::size_t i = 0; i < exact.clusterOf.size(); ++i)
            if (exact.clusterOf[i] != RunResult::kNoCluster)
                QVERIFY(sum.clusterOf[i] != RunResult::kNoCluster);
    }

    void exactVerificationJudgesByExactJaccard() {
        RunParams params;
        params.compare.verify = VerifyMode::Exact;
        Recorder rec;
        ProjectStore store(path("verified.ndw"));
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(store, *backend, &rec);
        const RunResult verified = pipeline.run({corpus_, bad_}, params);
        QVERIFY(std::find(rec.finished.begin(), rec.finished.end(), "verify") !=
                rec.finished.end());
        uint64_t duplicates = 0;
        for (const auto& p : verified.pairs) {
            QVERIFY(p.exact >= 0.0f && p.exact <= 1.0f);
            if (p.exact >= 0.8f) {
                ++duplicates;
                QCOMPARE(verified.clusterOf[p.a], verified.clusterOf[p.b]);
                QVERIFY(verified.clusterOf[p.a] != RunResult::kNoCluster);
            }
        }
        QCOMPARE(verified.counts.duplicatePairs, duplicates);
        QVERIFY(duplicates > 50);
    }

    void borderlinePairsAreVerifiedAndReuseIsModeIndependent() {
        // 3 sigma at theta 0.8, H 128: |m/128 - 0.8| <= 0.1061 -> m in [89, 115].
        QVERIFY(isBorderline(89, 128, 0.8) && isBorderline(115, 128, 0.8));
        QVERIFY(!isBorderline(88, 128, 0.8) && !isBorderline(116, 128, 0.8));
        RunParams params;
        params.compare.verify = VerifyMode::None;
        const std::string project = path("modes.ndw");
        const RunResult none = runOnce(project, params);
        for (const auto& p : none.pairs)
            QCOMPARE(p.exact, -1.0f);
        params.compare.verify = VerifyMode::Borderline;
        const RunResult reused = runOnce(project, params);
        QVERIFY(reused.pairsReused);
        std::size_t borderline = 0;
        for (const auto& p : reused.pairs) {
            QCOMPARE(p.exact >= 0.0f, isBorderline(p.matches, 128, 0.8));
            borderline += p.exact >= 0.0f;
        }
        QVERIFY(borderline > 10);
        const RunResult fresh = runOnce(path("modes-fresh.ndw"), params);
        QVERIFY(!fresh.pairsReused);
        QCOMPARE(reused.clusterOf, fresh.clusterOf);
        QCOMPARE(reused.counts.duplicatePairs, fresh.counts.duplicatePairs);
        // And back to none: the exact values of the previous run must not leak in.
        params.compare.verify = VerifyMode::None;
        const RunResult again = runOnce(project, params);
        QCOMPARE(again.clusterOf, none.clusterOf);
    }

    // Re-banding a verified dataset: the exact Jaccard earlier runs stored for a pair serves
    // the new run (fewer pairs verified), with the result of a fresh project; a run that makes
    // its shingle sets otherwise computes its own.
    void reBandingReusesStoredExactVerdicts() {
        RunParams params;
        params.compare.verify = VerifyMode::Exact;
        const std::string project = path("verdicts.ndw");
        auto verified = [](const RunResult& r) {
            for (const PhaseTiming& t : r.phases)
                if (t.name == "verify") return t.items;
            return uint64_t{0};
        };
        const RunResult first = runOnce(project, params);
        params.lsh.bands = 20;
        params.lsh.rows = 6;
        const RunResult second = runOnce(project, params);
        QVERIFY(second.signaturesReused && !second.pairsReused);
        const RunResult fresh = runOnce(path("verdicts-fresh.ndw"), params);
        QVERIFY(verified(fresh) > 100);
        QVERIFY2(verified(second) < verified(fresh) / 4,
                 qPrintable(QStringLiteral("%1 of %2").arg(verified(second)).arg(verified(fresh))));
        QCOMPARE(second.clusterOf, fresh.clusterOf);
        QCOMPARE(second.pairs.size(), fresh.pairs.size());
        for (std::size_t i = 0; i < fresh.pairs.size(); ++i) {
            QCOMPARE(second.pairs[i].a, fresh.pairs[i].a);
            QCOMPARE(second.pairs[i].exact, fresh.pairs[i].exact);
        }
        QVERIFY(verified(first) > 0);
        // Word shingles make other sets: nothing stored serves them.
        params.signature.shingle = ShingleKind::Word;
        params.signature.ngram = 3;
        const RunResult words = runOnce(project, params);
        const RunResult wordsFresh = runOnce(path("verdicts-words.ndw"), params);
        QCOMPARE(verified(words), verified(wordsFresh));
    }

    void wordShinglesRun() {
        RunParams params;
        params.signature.shingle = ShingleKind::Word;
        params.signature.ngram = 3;
        const RunResult r = runOnce(path("words.ndw"), params);
        QVERIFY(r.counts.removed > 50);
        QCOMPARE(r.counts.kept + r.counts.removed, r.counts.documents);
    }

    void cancellationStopsTheRun() {
        std::atomic<bool> cancel{true};
        ProjectStore store(path("cancel.ndw"));
        auto backend = makeCpuBackend(1);
        Pipeline pipeline(store, *backend, nullptr, &cancel);
        QVERIFY_THROWS_EXCEPTION(Cancelled, pipeline.run({corpus_}, RunParams{}));
        QVERIFY(!store.latestRun("ok"));
    }

    void invalidParametersAreRefused() {
        RunParams params;
        params.lsh.bands = 20;  // 20 x 8 > 128
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runOnce(path("bad.ndw"), params));
    }

    void missingInputNamesThePath() {
        try {
            runOnce(path("missing.ndw"), RunParams{}, {}, {path("does-not-exist.jsonl")});
            QFAIL("no exception");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("does-not-exist.jsonl") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestPipeline)
#include "test_pipeline.moc"
