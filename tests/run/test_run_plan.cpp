// The plan of a run (core/run/run_plan.h): where signatures come from (cache hit, miss, too
// large for the budget), whether an earlier run's pairs are reused, whether the read resumes
// from a checkpoint, whether a new dataset is saved while its pairs are compared. First as a
// function of the facts alone, then from the facts a real project gives after a run.
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>

#include "backend_factory.h"
#include "checkpoint.h"
#include "engine_fixture.h"
#include "pipeline.h"
#include "run_plan.h"
#include "run_state.h"

using namespace neardup;

namespace {

using Signatures = RunPlan::Signatures;

ProjectFacts storedDataset(bool fits, bool cached) {
    ProjectFacts facts;
    facts.datasetStored = true;
    facts.signaturesFit = fits;
    facts.signaturesCached = cached;
    return facts;
}

}  // namespace

class TestRunPlan : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_;
    std::string path(const char* name) const {
        return (dir_.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    RunResult runOnce(const std::string& project, const RunParams& params) {
        ProjectStore store(project);
        auto backend = makeCpuBackend(params.threads);
        Pipeline pipeline(store, *backend);
        return pipeline.run({corpus_}, params);
    }

    // The plan a run with `params` on the corpus would make on `project` now, from the
    // project's own facts (as Pipeline::run looks them up).
    RunPlan planOn(const std::string& project, const RunParams& params) {
        ProjectStore store(project);
        return planOn(store, params);
    }
    RunPlan planOn(ProjectStore& store, const RunParams& params) {
        auto backend = makeCpuBackend(params.threads);
        const ExportOptions exports;
        RunState state(store, *backend, nullptr, nullptr, params, exports);
        state.files = expandInputs({corpus_}, OnError::Skip);
        state.cacheKey = signatureCacheKey(params.signature, params.reader);
        return planRun(lookUpProject(state), params, state.run.threads);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        testsupport::writeGeneratedCorpus(corpus_, {.documents = 400, .seed = 11});
    }

    void newDatasetIsReadAndSaved() {
        const RunPlan plan = planRun(ProjectFacts{}, RunParams{}, 2);
        QVERIFY(plan.signatures == Signatures::ReadNew);
        QVERIFY(plan.readsInputs());
        QVERIFY(!plan.reusePairsOf);
        QVERIFY(!plan.resumeRead);
        QVERIFY(plan.compareWhileSaving);
        // On one thread the project writes stay in sequence.
        QVERIFY(!planRun(ProjectFacts{}, RunParams{}, 1).compareWhileSaving);
    }

    void cacheHitTakesTheSignatures() {
        ProjectFacts facts = storedDataset(true, true);
        facts.checkpointLeft = true;  // nothing is read, so nothing is resumed
        const RunPlan plan = planRun(facts, RunParams{}, 4);
        QVERIFY(plan.signatures == Signatures::FromCache);
        QVERIFY(!plan.readsInputs());
        QVERIFY(!plan.resumeRead);
        QVERIFY(!plan.compareWhileSaving);
    }

    void cacheMissReadsTheStoredDatasetAgain() {
        const RunPlan plan = planRun(storedDataset(true, false), RunParams{}, 4);
        QVERIFY(plan.signatures == Signatures::ReadAgain);
        QVERIFY(plan.readsInputs());
        QVERIFY(!plan.compareWhileSaving);  // the dataset is in the project already
        // Signatures too large for the budget are streamed from their cache file, and read
        // again out of core when there is none to stream.
        ProjectFacts beyond = storedDataset(false, false);
        QVERIFY(planRun(beyond, RunParams{}, 4).signatures == Signatures::ReadBeyondBudget);
        beyond.signaturesStreamable = true;
        const RunPlan streamed = planRun(beyond, RunParams{}, 4);
        QVERIFY(streamed.signatures == Signatures::StreamFromCache);
        QVERIFY(!streamed.readsInputs());
    }

    void pairsOfAnEarlierRunAreReusedOnlyForAStoredDataset() {
        ProjectFacts facts = storedDataset(true, true);
        facts.reusablePairs = 7;
        RunParams params;
        params.compare.verify = VerifyMode::None;
        const RunPlan plan = planRun(facts, params, 2);
        QCOMPARE(plan.reusePairsOf.value_or(0), int64_t{7});
        // Reused pairs always go through verification: the earlier run's exact values that
        // this verify mode does not ask for are cleared there.
        QVERIFY(plan.verify);
        facts.reusablePairs.reset();
        QVERIFY(!planRun(facts, params, 2).reusePairsOf);
        QVERIFY(!planRun(facts, params, 2).verify);
        params.compare.verify = VerifyMode::Borderline;
        QVERIFY(planRun(facts, params, 2).verify);
        // A dataset new to the project has no earlier run.
        ProjectFacts fresh;
        fresh.reusablePairs = 7;
        QVERIFY(!planRun(fresh, params, 2).reusePairsOf);
    }

    void readResumesFromALeftCheckpoint() {
        ProjectFacts facts;
        facts.checkpointLeft = true;
        QVERIFY(planRun(facts, RunParams{}, 2).resumeRead);
        facts = storedDataset(false, false);
        facts.checkpointLeft = true;
        QVERIFY(planRun(facts, RunParams{}, 2).resumeRead);
        facts.checkpointLeft = false;
        QVERIFY(!planRun(facts, RunParams{}, 2).resumeRead);
    }

    void aProjectsFactsDecideAfterARun() {
        const std::string project = path("facts.ndw");
        RunParams params;
        params.threads = 2;
        QVERIFY(planOn(project, params).signatures == Signatures::ReadNew);
        const RunResult first = runOnce(project, params);
        // The same run again: signatures from the cache, pairs of the first run.
        RunPlan plan = planOn(project, params);
        QVERIFY(plan.signatures == Signatures::FromCache);
        QCOMPARE(plan.reusePairsOf.value_or(0), first.runId);
        // Other bands: the signatures still serve, the pairs do not.
        RunParams bands = params;
        bands.lsh.bands = 8;
        bands.lsh.rows = 16;
        plan = planOn(project, bands);
        QVERIFY(plan.signatures == Signatures::FromCache);
        QVERIFY(!plan.reusePairsOf);
        // Another seed: a cache miss on the stored dataset, and no pairs to reuse.
        RunParams seed = params;
        seed.signature.seed += 1;
        plan = planOn(project, seed);
        QVERIFY(plan.signatures == Signatures::ReadAgain);
        QVERIFY(!plan.reusePairsOf);
        // A budget too small for the stored signatures: streamed from the cache file; with
        // another seed, which has no cache, read again out of core.
        RunParams small = params;
        small.memoryBudget = uint64_t{1} << 20;
        QVERIFY(planOn(project, small).signatures == Signatures::StreamFromCache);
        small.signature.seed += 1;
        QVERIFY(planOn(project, small).signatures == Signatures::ReadBeyondBudget);
    }

    void aCheckpointLeftByAKilledReadIsResumed() {
        const std::string project = path("resume.ndw");
        RunParams params;
        // Opened first: opening a project drops checkpoints no unfinished run may resume.
        ProjectStore store(project);
        QVERIFY(!planOn(store, params).resumeRead);
        {
            // What a run killed while reading leaves: a checkpoint with one record.
            qputenv("NEARDUP_CHECKPOINT_BYTES", "1");
            ReadCheckpoint checkpoint(
                sidecarDirectory(project), expandInputs({corpus_}, OnError::Skip), params.reader,
                signatureCacheKey(params.signature, params.reader), params.signature.hashes);
            qunsetenv("NEARDUP_CHECKPOINT_BYTES");
            LineChunk chunk;
            chunk.data = "x";
            DocumentTable docs;
            SignatureMatrix sigs;
            sigs.resize(0, params.signature.hashes);
            checkpoint.afterChunk(chunk, ParsedChunk{}, docs, sigs, DatasetRecord{}, 1);
            QCOMPARE(checkpoint.records(), 1);
        }
        QVERIFY(planOn(store, params).resumeRead);
        // Another signature key reads afresh: the checkpoint is not of its read.
        RunParams other = params;
        other.signature.seed += 1;
        QVERIFY(!planOn(store, other).resumeRead);
    }
};

QTEST_GUILESS_MAIN(TestRunPlan)
#include "test_run_plan.moc"
