// The review workflow in the engine: the "confirmed duplicate" verdict (stored, a no-op for
// every clustering and export), review progress over a run's clusters, and the sampled audit:
// its stratified draw (deterministic for a seed), the precision estimator against
// hand-computed values, its storage and `neardup export`'s line about it, samples at a working
// threshold, verdicts applied as decisions, and the upgrade of a version-4 project.
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

#include "audit_sample.h"
#include "cli_process.h"
#include "clustering.h"
#include "decisions.h"
#include "engine_fixture.h"
#include "exporter.h"
#include "pipeline.h"
#include "project_queries.h"
#include "project_store_fixtures.h"

using namespace neardup;

namespace {

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string all, line;
    while (std::getline(in, line))
        all += line + '\n';
    return all;
}

ScoredPair pair(uint32_t a, uint32_t b, uint32_t matches) {
    return {a, b, matches, -1.0f};
}

// Stratum sizes the allocation tests know: θ = 0.5, 100 hashes, four strata of width 0.125:
// 10 pairs in [0.5, 0.625), 2 in [0.625, 0.75), none in [0.75, 0.875), 30 in [0.875, 1],
// and 5 below θ (not duplicates, never drawn).
std::vector<ScoredPair> stratifiedPairs() {
    std::vector<ScoredPair> p;
    uint32_t doc = 0;
    auto add = [&](int count, uint32_t matches) {
        for (int i = 0; i < count; ++i, doc += 2)
            p.push_back(pair(doc, doc + 1, matches));
    };
    add(10, 55);
    add(2, 70);
    add(30, 95);
    add(5, 40);
    return p;
}

AuditPair judged(int stratum, AuditVerdict v) {
    AuditPair p;
    p.stratum = stratum;
    p.verdict = v;
    return p;
}

// After storefixtures::kDropReferenceColumns, turns a project into what schema version 4 wrote: no
// content pins, no sampled audits, decisions without "confirmed_duplicate".
constexpr const char* kDowngradeToV4 = R"sql(
ALTER TABLE dataset_files DROP COLUMN pin;
DELETE FROM meta WHERE key = 'pin_key';
DROP TABLE audit_pairs;
DROP TABLE audit_strata;
DROP TABLE audit_samples;
CREATE TABLE decisions_v4(
    id INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK(kind IN ('not_duplicate', 'keep_instead', 'keep_all')),
    doc_a INTEGER NOT NULL, doc_b INTEGER, created_at TEXT NOT NULL);
INSERT INTO decisions_v4 SELECT * FROM decisions;
DROP TABLE decisions;
ALTER TABLE decisions_v4 RENAME TO decisions;
CREATE INDEX decisions_by_dataset ON decisions(dataset_id, kind);
PRAGMA user_version = 4;
UPDATE meta SET value = '4' WHERE key = 'schema_version';
)sql";

}  // namespace

class TestReview : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    RunResult run_;
    std::string project_;

    std::string path(const char* name) const {
        return (dir_.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = path("review.ndw");
        const std::string corpus = path("review.jsonl");
        testsupport::writeGeneratedCorpus(corpus, {.documents = 400, .seed = 5, .meanChars = 600});
        RunParams params;
        params.compare.threshold = 0.7;
        run_ = testsupport::runEngine(project_, {corpus}, params);
        QVERIFY(run_.counts.clusters > 5);
    }

    void confirmedKindName() {
        QCOMPARE(std::string(toString(DecisionKind::ConfirmedDuplicate)),
                 std::string("confirmed_duplicate"));
        QCOMPARE(parseDecisionKind("confirmed_duplicate"),
                 std::optional<DecisionKind>(DecisionKind::ConfirmedDuplicate));
        QVERIFY(isPairDecision(DecisionKind::ConfirmedDuplicate));
        QVERIFY(!shapesClusters(DecisionKind::ConfirmedDuplicate));
        QVERIFY(shapesClusters(DecisionKind::NotDuplicate));
    }

    // A confirmed duplicate is stored (a < b), changes no clustering and no export: the files
    // `neardup export` writes (through loadRun) are byte for byte those without it.
    void confirmedDuplicateIsANoOpForExports() {
        ProjectStore store(project_);
        DocumentTable docs;
        const DatasetRecord dataset = store.loadDataset(run_.datasetId, &docs);
        auto exportAll = [&](const char* tag) {
            ExportOptions o;
            o.kept = path((std::string(tag) + "-kept.txt").c_str());
            o.removed = path((std::string(tag) + "-removed.txt").c_str());
            o.clusters = path((std::string(tag) + "-clusters.jsonl").c_str());
            o.summaryJson = path((std::string(tag) + "-summary.json").c_str());
            exportRun(store.loadRun(run_.runId), dataset.files, docs, o);
            return readFile(o.kept) + readFile(o.removed) + readFile(o.clusters) +
                   readFile(o.summaryJson);
        };
        const std::string before = exportAll("before");
        ScoredPair dup{};
        for (const ScoredPair& p : run_.pairs)
            if (isDuplicate(p, 128, 0.7) && run_.removed(p.b)) dup = p;
        QVERIFY(dup.b != 0);
        const int64_t id =
            store.recordDecision(run_.datasetId, DecisionKind::ConfirmedDuplicate, dup.b, dup.a);
        const auto list = store.decisions(run_.datasetId);
        QCOMPARE(list.size(), std::size_t{1});
        QCOMPARE(list[0].id, id);
        QCOMPARE(list[0].kind, DecisionKind::ConfirmedDuplicate);
        QCOMPARE(list[0].a, dup.a);
        QCOMPARE(list[0].b, dup.b);
        QVERIFY_THROWS_EXCEPTION(
            StoreError,
            store.recordDecision(run_.datasetId, DecisionKind::ConfirmedDuplicate, 3, 3));
        const RunResult loaded = store.loadRun(run_.runId);
        QCOMPARE(loaded.decisionsApplied, uint64_t{0});
        QCOMPARE(loaded.clusterOf, run_.clusterOf);
        QCOMPARE(loaded.removedFor, run_.removedFor);
        QCOMPARE(exportAll("after"), before);
        // The workbench's listing is the stored one: no cluster is marked as decided.
        ProjectQueries q(project_);
        QCOMPARE(q.clusterCount(run_.runId, {}), run_.counts.clusters);
        ClusterFilter decided;
        decided.decidedOnly = true;
        QCOMPARE(q.clusterCount(run_.runId, decided), uint64_t{0});
        store.undoDecision(run_.datasetId);
    }

    // Reviewed: the clusters a decision of any kind names a member of; at another threshold
    // the clusters of that listing.
    void reviewProgressCountsClustersWithADecision() {
        ProjectStore store(project_);
        ProjectQueries q(project_);
        ReviewProgress p = q.reviewProgress(run_.runId);
        QCOMPARE(p.clusters, run_.counts.clusters);
        QCOMPARE(p.reviewed, uint64_t{0});
        // Members of two different clusters: one confirmed pair, one keep_all.
        std::vector<uint32_t> firstOf(run_.representative.size(), UINT32_MAX);
        for (uint32_t d = 0; d < run_.clusterOf.size(); ++d)
            if (run_.clusterOf[d] != RunResult::kNoCluster &&
                firstOf[run_.clusterOf[d]] == UINT32_MAX)
                firstOf[run_.clusterOf[d]] = d;
        ScoredPair dup{};
        for (const ScoredPair& x : run_.pairs)
            if (isDuplicate(x, 128, 0.7)) dup = x;
        const uint32_t other = firstOf[run_.clusterOf[dup.a] == 0 ? 1 : 0];
        store.recordDecision(run_.datasetId, DecisionKind::ConfirmedDuplicate, dup.a, dup.b);
        QCOMPARE(q.reviewProgress(run_.runId).reviewed, uint64_t{1});
        store.recordDecision(run_.datasetId, DecisionKind::KeepAll, other);
        p = q.reviewProgress(run_.runId);
        QCOMPARE(p.reviewed, uint64_t{2});
        QCOMPARE(p.clusters, run_.counts.clusters);
        // At a threshold no pair reaches, there is nothing to review.
        p = q.reviewProgress(run_.runId, 0.999);
        QCOMPARE(p.clusters, q.clusterCount(run_.runId, [] {
            ClusterFilter f;
            f.threshold = 0.999;
            return f;
        }()));
        QVERIFY(p.reviewed <= p.clusters);
        while (store.undoDecision(run_.datasetId)) {
        }
        QCOMPARE(q.reviewProgress(run_.runId).reviewed, uint64_t{0});
    }

    // Equal shares over the non-empty strata, a small stratum's rest to the others; only
    // duplicate pairs are drawn, each from its stratum.
    void drawIsStratifiedAndDeterministic() {
        const std::vector<ScoredPair> pairs = stratifiedPairs();
        const AuditDraw d = drawAuditSample(pairs, 100, 0.5, 12, 42);
        QCOMPARE(d.strata.size(), std::size_t{4});
        QCOMPARE(d.strata[0].pairs, uint64_t{10});
        QCOMPARE(d.strata[1].pairs, uint64_t{2});
        QCOMPARE(d.strata[2].pairs, uint64_t{0});
        QCOMPARE(d.strata[3].pairs, uint64_t{30});
        QCOMPARE(d.strata[0].low, 0.5);
        QCOMPARE(d.strata[3].high, 1.0);
        std::vector<int> per(4, 0);
        for (const AuditPair& p : d.pairs) {
            ++per[std::size_t(p.stratum)];
            QVERIFY(p.estimated >= d.strata[std::size_t(p.stratum)].low);
            QVERIFY(p.estimated >= 0.5);
        }
        QCOMPARE(per, (std::vector<int>{5, 2, 0, 5}));
        // The same seed draws the same pairs in the same order, whatever the pairs' order.
        std::vector<ScoredPair> shuffled = pairs;
        std::mt19937 g(3);
        std::shuffle(shuffled.begin(), shuffled.end(), g);
        const AuditDraw again = drawAuditSample(shuffled, 100, 0.5, 12, 42);
        QCOMPARE(again.pairs.size(), d.pairs.size());
        for (std::size_t i = 0; i < d.pairs.size(); ++i)
            QVERIFY(again.pairs[i].a == d.pairs[i].a && again.pairs[i].b == d.pairs[i].b);
        const AuditDraw other = drawAuditSample(pairs, 100, 0.5, 12, 43);
        bool differs = false;
        for (std::size_t i = 0; i < d.pairs.size(); ++i)
            differs |= other.pairs[i].a != d.pairs[i].a;
        QVERIFY(differs);
        // Asking for more than there are draws them all.
        QCOMPARE(drawAuditSample(pairs, 100, 0.5, 1000, 1).pairs.size(), std::size_t{42});
    }

    // Hand-computed: Wilson for 8 of 10 at 95 % is [0.4902, 0.9433].
    void wilsonIntervalMatchesHandValues() {
        QVERIFY(std::abs(normalQuantileTwoSided(0.95) - 1.959964) < 1e-6);
        const auto [lo, hi] = wilsonInterval(0.8, 10, 1.959964);
        QVERIFY(std::abs(lo - 0.490162) < 1e-5);
        QVERIFY(std::abs(hi - 0.943318) < 1e-5);
        const std::vector<AuditStratum> one{{0.7, 1.0, 100}};
        std::vector<AuditPair> v;
        for (int i = 0; i < 8; ++i)
            v.push_back(judged(0, AuditVerdict::Duplicate));
        for (int i = 0; i < 2; ++i)
            v.push_back(judged(0, AuditVerdict::NotDuplicate));
        v.push_back(judged(0, AuditVerdict::Unsure));
        const PrecisionEstimate e = estimatePrecision(one, v);
        QCOMPARE(e.judged, uint64_t{10});
        QCOMPARE(e.duplicates, uint64_t{8});
        QCOMPARE(e.unsure, uint64_t{1});
        QVERIFY(std::abs(e.precision - 0.8) < 1e-12);
        QVERIFY(std::abs(e.effectiveSize - 10) < 1e-9);
        QVERIFY(std::abs(e.low - 0.490162) < 1e-5 && std::abs(e.high - 0.943318) < 1e-5);
    }

    // Two strata holding 30 and 10 of 40 pairs, 10 judged in each: 10 and 5 duplicates.
    // p = 0.75 · 1 + 0.25 · 0.5 = 0.875; n_eff = 1 / (0.75²/10 + 0.25²/10) = 16; Wilson at
    // 0.875 of 16: [0.63977, 0.96502]. A third stratum without a judgement is left out
    // (coverage 40 of 50).
    void stratifiedEstimateMatchesHandValues() {
        const std::vector<AuditStratum> strata{{0.5, 0.6, 30}, {0.6, 0.8, 10}, {0.8, 1.0, 10}};
        std::vector<AuditPair> v;
        for (int i = 0; i < 10; ++i)
            v.push_back(judged(0, AuditVerdict::Duplicate));
        for (int i = 0; i < 10; ++i)
            v.push_back(judged(1, i < 5 ? AuditVerdict::Duplicate : AuditVerdict::NotDuplicate));
        v.push_back(judged(2, AuditVerdict::Unsure));
        v.push_back(AuditPair{});  // not judged yet
        const PrecisionEstimate e = estimatePrecision(strata, v);
        QVERIFY(std::abs(e.precision - 0.875) < 1e-12);
        QVERIFY(std::abs(e.effectiveSize - 16) < 1e-9);
        QVERIFY(std::abs(e.low - 0.639772) < 1e-5);
        QVERIFY(std::abs(e.high - 0.965023) < 1e-5);
        QVERIFY(std::abs(e.coverage - 0.8) < 1e-12);
        // Nothing judged: no estimate.
        const PrecisionEstimate none = estimatePrecision(strata, {AuditPair{}});
        QVERIFY(std::isnan(none.precision) && std::isnan(none.low));
    }

    // A sample of the run is stored with its strata; verdicts are recorded and read back (by
    // the store and the workbench's read-only queries), and count toward review progress.
    void auditSampleIsStored() {
        ProjectStore store(project_);
        const int64_t id = store.createAuditSample(run_.runId, 20, 7);
        const auto stored = store.auditSample(id);
        QVERIFY(stored);
        QCOMPARE(stored->runId, run_.runId);
        QCOMPARE(stored->requested, uint64_t{20});
        const AuditDraw expected = drawAuditSample(run_.pairs, 128, 0.7, 20, 7);
        QCOMPARE(stored->draw.pairs.size(), expected.pairs.size());
        QCOMPARE(stored->draw.strata.size(), expected.strata.size());
        for (std::size_t i = 0; i < expected.pairs.size(); ++i)
            QVERIFY(stored->draw.pairs[i].a == expected.pairs[i].a &&
                    stored->draw.pairs[i].b == expected.pairs[i].b &&
                    !stored->draw.pairs[i].verdict);
        store.setAuditVerdict(id, 0, AuditVerdict::Duplicate);
        store.setAuditVerdict(id, 1, AuditVerdict::NotDuplicate);
        store.setAuditVerdict(id, 2, AuditVerdict::Unsure);
        QVERIFY_THROWS_EXCEPTION(StoreError, store.setAuditVerdict(id, 999, AuditVerdict::Unsure));
        QCOMPARE(store.auditSamples(run_.runId), std::vector<int64_t>{id});
        ProjectQueries q(project_);
        const auto latest = q.latestAudit(run_.runId);
        QVERIFY(latest);
        QCOMPARE(latest->sampleId, id);
        QCOMPARE(latest->draw.pairs[0].verdict,
                 std::optional<AuditVerdict>(AuditVerdict::Duplicate));
        QCOMPARE(latest->draw.pairs[1].verdict,
                 std::optional<AuditVerdict>(AuditVerdict::NotDuplicate));
        const PrecisionEstimate e = estimatePrecision(latest->draw.strata, latest->draw.pairs);
        QCOMPARE(e.judged, uint64_t{2});
        QVERIFY(q.reviewProgress(run_.runId).reviewed >= 1);
        // `neardup export` prints the estimate beside what it removed.
        const testsupport::CliResult cli = testsupport::neardup(
            {QStringLiteral("export"), QStringLiteral("-p"), QString::fromStdString(project_),
             QStringLiteral("--out-kept"), QString::fromStdString(path("cli-kept.txt"))});
        QVERIFY2(cli.code == 0, qPrintable(cli.err));
        QVERIFY2(cli.err.contains(QStringLiteral("sampled audit of run %1: precision %2")
                                      .arg(run_.runId)
                                      .arg(e.precision, 0, 'f', 3)),
                 qPrintable(cli.err));
        QVERIFY(cli.err.contains(
            QStringLiteral("2 judged of %1 drawn, 1 unsure").arg(stored->draw.pairs.size())));
        store.setAuditVerdict(id, 0, std::nullopt);
        QVERIFY(!store.auditSample(id)->draw.pairs[0].verdict);
    }

    // A sample drawn at another threshold than the run's (the workbench's working one) holds
    // only pairs at or above it and is stored with it; outside the stored range it is refused.
    // Its verdicts become decisions: "not a duplicate" a not_duplicate, "duplicate" a
    // confirmed_duplicate; a pair already decided is skipped (and counted), unsure is left.
    void auditAtAThresholdAndVerdictsAsDecisions() {
        ProjectStore store(project_);
        const double theta = 0.85;
        const int64_t id = store.createAuditSample(run_.runId, 12, 5, theta);
        const auto stored = store.auditSample(id);
        QVERIFY(stored);
        QCOMPARE(stored->draw.threshold, theta);
        const AuditDraw expected = drawAuditSample(run_.pairs, 128, theta, 12, 5);
        QCOMPARE(stored->draw.pairs.size(), expected.pairs.size());
        QVERIFY(stored->draw.pairs.size() >= 4);
        // Every pair drawn is a duplicate at θ (by its exact Jaccard when the run verified it).
        for (const AuditPair& p : stored->draw.pairs) {
            const auto found =
                std::find_if(run_.pairs.begin(), run_.pairs.end(),
                             [&](const ScoredPair& s) { return s.a == p.a && s.b == p.b; });
            QVERIFY(found != run_.pairs.end() && isDuplicate(*found, 128, theta));
        }
        QCOMPARE(stored->draw.strata.front().low, theta);
        QCOMPARE(estimatePrecision(stored->draw).threshold, theta);
        QVERIFY_THROWS_EXCEPTION(StoreError, store.createAuditSample(run_.runId, 5, 1, 0.2));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.createAuditSample(run_.runId, 5, 1, 1.5));

        const auto& p = stored->draw.pairs;
        store.setAuditVerdict(id, 0, AuditVerdict::NotDuplicate);
        store.setAuditVerdict(id, 1, AuditVerdict::Duplicate);
        store.setAuditVerdict(id, 2, AuditVerdict::Unsure);
        store.setAuditVerdict(id, 3, AuditVerdict::NotDuplicate);
        // Pair 3 was confirmed in the comparison view before: the verdict does not replace it.
        store.recordDecision(run_.datasetId, DecisionKind::ConfirmedDuplicate, p[3].b, p[3].a);
        const std::size_t before = store.decisions(run_.datasetId).size();
        const ProjectStore::AppliedVerdicts applied = store.applyAuditVerdicts(id);
        QCOMPARE(applied.notDuplicate, uint64_t{1});
        QCOMPARE(applied.confirmed, uint64_t{1});
        QCOMPARE(applied.skipped, uint64_t{1});
        QCOMPARE(applied.conflicting, uint64_t{1});
        const std::vector<Decision> after = store.decisions(run_.datasetId);
        QCOMPARE(after.size(), before + 2);
        const Decision& cut = after[after.size() - 2];
        const Decision& confirmed = after.back();
        QCOMPARE(cut.kind, DecisionKind::NotDuplicate);
        QVERIFY(cut.a == std::min(p[0].a, p[0].b) && cut.b == std::max(p[0].a, p[0].b));
        QCOMPARE(confirmed.kind, DecisionKind::ConfirmedDuplicate);
        QVERIFY(confirmed.a == std::min(p[1].a, p[1].b) && confirmed.b == std::max(p[1].a, p[1].b));
        // Applied again: every judged pair is decided now, nothing is recorded twice.
        const ProjectStore::AppliedVerdicts again = store.applyAuditVerdicts(id);
        QCOMPARE(again.notDuplicate + again.confirmed, uint64_t{0});
        QCOMPARE(again.skipped, uint64_t{3});
        QCOMPARE(store.decisions(run_.datasetId).size(), before + 2);
        // The cut pair is no duplicate edge of the run any more, as every export sees it.
        const RunResult run = store.loadRun(run_.runId);
        const auto witness = witnessPair(run, run.pairs, std::max(p[0].a, p[0].b));
        QVERIFY(!witness || std::minmax(witness->a, witness->b) != std::minmax(p[0].a, p[0].b));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.applyAuditVerdicts(9999));
    }

    // A version-4 project (before confirmed duplicates and sampled audits) is upgraded in
    // place, keeping its decisions and their ids; `neardup` then reads it as before.
    void upgradesVersionFourProject() {
        const std::string old = path("v4.ndw");
        {
            ProjectStore store(old);
            store.saveDataset(storefixtures::makeDataset(), storefixtures::makeDocs(3));
        }
        int64_t datasetId = 0;
        {
            sql::Database db(old, false);
            datasetId = db.queryInt("SELECT id FROM datasets");
            db.exec(
                "INSERT INTO decisions(id, dataset_id, kind, doc_a, doc_b, created_at) VALUES"
                "(7, " +
                std::to_string(datasetId) + ", 'not_duplicate', 0, 2, 'then')");
            db.exec(storefixtures::kDropReferenceColumns);
            db.exec(kDowngradeToV4);
            QVERIFY_THROWS_EXCEPTION(
                StoreError, db.exec("INSERT INTO decisions(dataset_id, kind, doc_a, created_at) "
                                    "VALUES(1, 'confirmed_duplicate', 1, 'now')"));
        }
        QVERIFY_THROWS_EXCEPTION(StoreError, ProjectStore(old, ProjectStore::Mode::ReadOnly));
        ProjectStore store(old);
        const auto list = store.decisions(datasetId);
        QCOMPARE(list.size(), std::size_t{1});
        QCOMPARE(list[0].id, int64_t{7});
        QCOMPARE(list[0].b, 2u);
        store.recordDecision(datasetId, DecisionKind::ConfirmedDuplicate, 0, 1);
        QCOMPARE(store.decisions(datasetId).size(), std::size_t{2});
        sql::Database db(old, false);
        QCOMPARE(db.queryInt("PRAGMA user_version"), int64_t{schema::kVersion});
        QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name IN "
                             "('audit_samples', 'audit_strata', 'audit_pairs')"),
                 int64_t{3});
    }
};

QTEST_GUILESS_MAIN(TestReview)
#include "test_review.moc"
