// Run diff (core/run_diff): the documents one run removes and another keeps, checked against
// the runs' in-memory outcomes loaded from the project.
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include "decisions.h"
#include "engine_fixture.h"
#include "pipeline.h"
#include "project_store.h"
#include "run_diff.h"

using namespace neardup;

namespace {

void writeCorpus(const std::string& path, uint64_t docs, uint64_t seed) {
    testsupport::writeGeneratedCorpus(path, {.documents = docs, .seed = seed, .meanChars = 500});
}

}  // namespace

class TestRunDiff : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string project_, corpus_, other_;

    // Checks diffRuns(a, b) against the stored outcomes, document by document.
    void checkAgainstOutcomes(int64_t a, int64_t b) {
        ProjectStore store(project_);
        const RunResult ra = store.loadRun(a), rb = store.loadRun(b);
        DocumentTable docs;
        store.loadDataset(ra.datasetId, &docs);
        const RunDiff d = diffRuns(project_, a, b);
        QCOMPARE(d.runA, a);
        QCOMPARE(d.runB, b);
        QCOMPARE(d.documents, uint64_t(docs.size()));
        QCOMPARE(d.removedA, ra.counts.removed);
        QCOMPARE(d.removedB, rb.counts.removed);
        std::vector<uint32_t> newly, noLonger;
        uint64_t both = 0;
        for (uint32_t i = 0; i < docs.size(); ++i) {
            if (rb.removed(i) && !ra.removed(i)) newly.push_back(i);
            if (ra.removed(i) && !rb.removed(i)) noLonger.push_back(i);
            both += ra.removed(i) && rb.removed(i) ? 1 : 0;
        }
        QCOMPARE(d.removedBoth, both);
        QCOMPARE(d.newlyRemoved.size(), newly.size());
        QCOMPARE(d.noLongerRemoved.size(), noLonger.size());
        auto cluster = [](const RunResult& r, uint32_t doc) -> int64_t {
            return r.clusterOf[doc] == RunResult::kNoCluster ? -1 : int64_t(r.clusterOf[doc]);
        };
        for (std::size_t k = 0; k < newly.size(); ++k) {
            const RunDiffRow& row = d.newlyRemoved[k];
            const uint32_t doc = newly[k];
            QCOMPARE(row.docIndex, doc);
            QCOMPARE(row.docId, std::string(docs.id(doc)));
            QCOMPARE(row.clusterA, cluster(ra, doc));
            QCOMPARE(row.clusterB, cluster(rb, doc));
            QCOMPARE(row.representative, rb.removedFor[doc]);  // its witness, or representative
            QCOMPARE(row.representativeId, std::string(docs.id(row.representative)));
        }
        for (std::size_t k = 0; k < noLonger.size(); ++k) {
            const RunDiffRow& row = d.noLongerRemoved[k];
            const uint32_t doc = noLonger[k];
            QCOMPARE(row.docIndex, doc);
            QCOMPARE(row.clusterA, cluster(ra, doc));
            QCOMPARE(row.clusterB, cluster(rb, doc));
            QCOMPARE(row.representative, ra.removedFor[doc]);
        }
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = dir_.filePath(QStringLiteral("diff.ndw")).toStdString();
        corpus_ = dir_.filePath(QStringLiteral("a.jsonl")).toStdString();
        other_ = dir_.filePath(QStringLiteral("b.jsonl")).toStdString();
        writeCorpus(corpus_, 1500, 21);
        writeCorpus(other_, 300, 22);
        RunParams params;
        params.compare.threshold = 0.7;
        // Runs 1 to 3 decide by components (the set relations below hold for it); run 5 by
        // witness.
        params.decide = DecideRule::Components;
        QCOMPARE(testsupport::runEngine(project_, {corpus_}, params).runId, int64_t{1});
        params.compare.threshold = 0.9;  // run 2: fewer removed
        testsupport::runEngine(project_, {corpus_}, params);
        params.compare.threshold = 0.7;  // run 3: other representatives
        params.keep = KeepPolicy::Longest;
        testsupport::runEngine(project_, {corpus_}, params);
        testsupport::runEngine(project_, {other_}, RunParams{});  // run 4: another dataset
        params.keep = KeepPolicy::First;                          // run 5: run 1 decided by witness
        params.decide = DecideRule::Witness;
        QCOMPARE(testsupport::runEngine(project_, {corpus_}, params).runId, int64_t{5});
    }

    void higherThresholdRemovesFewer() {
        const RunDiff d = diffRuns(project_, 1, 2);
        QVERIFY(d.removedB < d.removedA);
        QVERIFY(!d.noLongerRemoved.empty());
        // With keep=first, what 0.9 removes 0.7 removes too.
        QVERIFY(d.newlyRemoved.empty());
        checkAgainstOutcomes(1, 2);
        checkAgainstOutcomes(2, 1);
    }

    void otherRepresentativesBothWays() {
        const RunDiff d = diffRuns(project_, 1, 3);
        // Same clusters, other keep policy: both lists are non-empty and equally long.
        QVERIFY(!d.newlyRemoved.empty());
        QCOMPARE(d.newlyRemoved.size(), d.noLongerRemoved.size());
        QCOMPARE(d.removedA, d.removedB);
        checkAgainstOutcomes(1, 3);
        checkAgainstOutcomes(3, 2);
    }

    // The witness rule keeps every document the components rule keeps (each representative),
    // and some it removes: the diff names each removal's witness.
    void witnessAgainstComponents() {
        const RunDiff d = diffRuns(project_, 1, 5);
        QVERIFY(d.newlyRemoved.empty());
        QVERIFY(!d.noLongerRemoved.empty());
        QVERIFY(d.removedB < d.removedA);
        checkAgainstOutcomes(1, 5);
        checkAgainstOutcomes(5, 1);
        checkAgainstOutcomes(5, 3);
    }

    void sameRunHasNoDifference() {
        const RunDiff d = diffRuns(project_, 2, 2);
        QVERIFY(d.newlyRemoved.empty() && d.noLongerRemoved.empty());
        QCOMPARE(d.removedBoth, d.removedA);
    }

    void auditDecisionsAreHonoured() {
        // A "keep all" decision on a cluster of run 1 keeps its members in every run over the
        // dataset: the diff follows the outcomes as loaded (and exported), decisions applied.
        ProjectStore store(project_);
        RunResult r1 = store.loadRun(1);
        uint32_t removedDoc = 0;
        while (!r1.removed(removedDoc))
            ++removedDoc;
        const RunDiff before = diffRuns(project_, 1, 3);
        recordDecision(store, r1.datasetId, DecisionKind::KeepAll, removedDoc);
        const RunDiff after = diffRuns(project_, 1, 3);
        QVERIFY(after.removedA < before.removedA);
        QCOMPARE(after.removedA, store.loadRun(1).counts.removed);
        checkAgainstOutcomes(1, 3);
        checkAgainstOutcomes(2, 1);
        undoDecision(store, r1.datasetId);
        QCOMPARE(diffRuns(project_, 1, 3).removedA, before.removedA);
    }

    void refusals() {
        try {
            diffRuns(project_, 1, 4);
            QFAIL("compared runs over different datasets");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("different datasets") != std::string::npos,
                     e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, diffRuns(project_, 1, 99));
        ProjectStore store(project_);
        store.markRun(4, "interrupted", "test");
        try {
            diffRuns(project_, 4, 4);
            QFAIL("compared an unfinished run");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("interrupted") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRunDiff)
#include "test_run_diff.moc"
