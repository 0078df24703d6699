// Audit decisions: each kind applied to a clustering (splitting a chain, changing the
// representative, keeping a whole cluster, later decisions winning), recording, listing and
// undoing them in a project, their surviving a reopen, loadRun and every export honouring them,
// and decisions about documents no longer clustered at another threshold doing no harm.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <set>

#include "clustering.h"
#include "clustering_fixture.h"
#include "decisions.h"
#include "engine_fixture.h"
#include "exporter.h"
#include "pipeline.h"
#include "project_queries.h"
#include "project_store.h"
#include "sqlite_handle.h"

using namespace neardup;

namespace {

using clusteringtest::table;

Decision decision(int64_t id, DecisionKind kind, uint32_t a, uint32_t b = 0) {
    Decision d;
    d.id = id;
    d.kind = kind;
    d.a = a;
    d.b = b;
    return d;
}

constexpr uint32_t kDup = 120;  // 120 / 128 = 0.94: a duplicate at 0.8
constexpr uint32_t kLow = 90;   // 0.70: not a duplicate at 0.8

// Chain 0-1-2-3-4-5, triangle 6-7-8, and 9-10 below the threshold; 11 alone.
std::vector<ScoredPair> fixturePairs() {
    return {{0, 1, kDup, -1.0f}, {1, 2, kDup, -1.0f}, {2, 3, kDup, -1.0f},
            {3, 4, kDup, -1.0f}, {4, 5, kDup, -1.0f}, {6, 7, kDup, -1.0f},
            {6, 8, kDup, -1.0f}, {7, 8, kDup, -1.0f}, {9, 10, kLow, -1.0f}};
}

std::set<uint32_t> membersOf(const RunResult& r, uint32_t doc) {
    std::set<uint32_t> out;
    if (r.clusterOf[doc] == RunResult::kNoCluster) return out;
    for (std::size_t i = 0; i < r.clusterOf.size(); ++i)
        if (r.clusterOf[i] == r.clusterOf[doc]) out.insert(uint32_t(i));
    return out;
}

std::vector<std::string> readLines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line))
        lines.push_back(line);
    return lines;
}

void checkAccounting(const RunResult& r) {
    uint64_t removed = 0;
    for (std::size_t i = 0; i < r.clusterOf.size(); ++i)
        removed += r.removed(i) ? 1 : 0;
    QCOMPARE(r.counts.removed, removed);
    QCOMPARE(r.counts.kept + r.counts.removed, uint64_t(r.clusterOf.size()));
}

}  // namespace

class TestDecisions : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    std::string path(const char* name) const {
        return (dir_.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    // A project with one run over a generated corpus. The counts these tests check follow the
    // components rule (one kept member per cluster); witnessDecisionsInAProject covers the
    // witness rule.
    RunResult makeProject(const std::string& project, const std::string& corpus, double threshold,
                          DecideRule decide = DecideRule::Components) {
        testsupport::writeGeneratedCorpus(corpus, {.documents = 400, .seed = 21, .meanChars = 600});
        RunParams params;
        params.compare.threshold = threshold;
        params.decide = decide;
        return testsupport::runEngine(project, {corpus}, params);
    }

  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void kindNames() {
        for (const DecisionKind k :
             {DecisionKind::NotDuplicate, DecisionKind::KeepInstead, DecisionKind::KeepAll})
            QCOMPARE(parseDecisionKind(toString(k)), std::optional<DecisionKind>(k));
        QVERIFY(!parseDecisionKind("maybe"));
    }

    void noDecisionsIsPlainClustering() {
        const DocumentTable docs = table(12);
        RunResult plain, adjusted;
        clusterDocuments(fixturePairs(), 128, 0.8, KeepPolicy::First, DecideRule::Components, docs,
                         plain);
        const AppliedDecisions a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First,
                                                        DecideRule::Components, docs, {}, adjusted);
        QCOMPARE(a.applied, uint64_t{0});
        QCOMPARE(adjusted.clusterOf, plain.clusterOf);
        QCOMPARE(adjusted.representative, plain.representative);
        QVERIFY(adjusted.keepAll.empty());
        QCOMPARE(adjusted.counts.removed, plain.counts.removed);
        QCOMPARE(plain.counts.clusters, uint64_t{2});
    }

    // Removing edges of a chain splits it into as many clusters as the cuts leave.
    void notDuplicateSplitsAChain() {
        const DocumentTable docs = table(12);
        RunResult r;
        std::vector<Decision> ds{decision(1, DecisionKind::NotDuplicate, 2, 1)};  // any order
        AppliedDecisions a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First,
                                                  DecideRule::Components, docs, ds, r);
        QCOMPARE(a.applied, uint64_t{1});
        QCOMPARE(r.counts.clusters, uint64_t{3});
        QCOMPARE(membersOf(r, 0), (std::set<uint32_t>{0, 1}));
        QCOMPARE(membersOf(r, 2), (std::set<uint32_t>{2, 3, 4, 5}));
        QCOMPARE(r.counts.duplicatePairs, uint64_t{7});
        QVERIFY(a.clusterMarks[r.clusterOf[0]] & kMarkSplit);
        QVERIFY(a.clusterMarks[r.clusterOf[2]] & kMarkSplit);
        QVERIFY(!(a.clusterMarks[r.clusterOf[6]] & kMarkSplit));
        // The new cluster gets a representative by the policy; 1 is removed, 2 is not.
        QVERIFY(!r.removed(2) && r.removed(1) && r.removed(3));
        checkAccounting(r);

        // Two cuts: three clusters.
        ds.push_back(decision(2, DecisionKind::NotDuplicate, 3, 4));
        a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First,
                                 DecideRule::Components, docs, ds, r);
        QCOMPARE(a.applied, uint64_t{2});
        QCOMPARE(r.counts.clusters, uint64_t{4});
        QCOMPARE(membersOf(r, 2), (std::set<uint32_t>{2, 3}));
        QCOMPARE(membersOf(r, 4), (std::set<uint32_t>{4, 5}));
        checkAccounting(r);

        // Cutting a pair of a triangle removes the edge, but the others still link it.
        ds = {decision(1, DecisionKind::NotDuplicate, 6, 8)};
        a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First,
                                 DecideRule::Components, docs, ds, r);
        QCOMPARE(a.applied, uint64_t{1});
        QCOMPARE(membersOf(r, 6), (std::set<uint32_t>{6, 7, 8}));
        QCOMPARE(r.counts.duplicatePairs, uint64_t{7});
    }

    void keepInsteadChangesTheRepresentative() {
        DocumentTable docs = table(12);
        RunResult r;
        std::vector<Decision> ds{decision(5, DecisionKind::KeepInstead, 3)};
        AppliedDecisions a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First,
                                                  DecideRule::Components, docs, ds, r);
        QCOMPARE(a.applied, uint64_t{1});
        QCOMPARE(r.representative[r.clusterOf[0]], 3u);
        QVERIFY(r.removed(0) && !r.removed(3));
        QVERIFY(a.clusterMarks[r.clusterOf[0]] & kMarkKeepInstead);
        QCOMPARE(r.counts.removed, uint64_t{5 + 2});
        checkAccounting(r);
        // The later of two decisions about one cluster wins, whatever the order given.
        ds = {decision(9, DecisionKind::KeepInstead, 4), decision(5, DecisionKind::KeepInstead, 3)};
        a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::Longest,
                                 DecideRule::Components, docs, ds, r);
        QCOMPARE(a.applied, uint64_t{1});
        QCOMPARE(r.representative[r.clusterOf[0]], 4u);
        // After a split, each part follows the decisions about its own members.
        ds.push_back(decision(10, DecisionKind::NotDuplicate, 2, 3));
        a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::Longest,
                                 DecideRule::Components, docs, ds, r);
        QCOMPARE(a.applied, uint64_t{2});  // the split and the keep_instead(4) of 3-4-5
        QCOMPARE(r.representative[r.clusterOf[4]], 4u);
        QCOMPARE(r.representative[r.clusterOf[0]], 2u);  // longest of 0, 1, 2
        checkAccounting(r);
    }

    void keepAllKeepsEveryMember() {
        const DocumentTable docs = table(12);
        RunResult r;
        std::vector<Decision> ds{decision(1, DecisionKind::KeepAll, 7)};
        AppliedDecisions a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First,
                                                  DecideRule::Components, docs, ds, r);
        QCOMPARE(a.applied, uint64_t{1});
        QVERIFY(!r.removed(6) && !r.removed(7) && !r.removed(8));
        QVERIFY(r.removed(1));  // other clusters unchanged
        QVERIFY(a.clusterMarks[r.clusterOf[6]] & kMarkKeepAll);
        QCOMPARE(r.counts.removed, uint64_t{5});
        QCOMPARE(r.counts.clusters, uint64_t{2});  // still reported as a cluster
        checkAccounting(r);
        // A later keep_instead about the same cluster wins over keep_all, and the other way.
        ds.push_back(decision(2, DecisionKind::KeepInstead, 8));
        clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First, DecideRule::Components,
                             docs, ds, r);
        QVERIFY(r.removed(6) && r.removed(7) && !r.removed(8));
        ds.push_back(decision(3, DecisionKind::KeepAll, 6));
        clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First, DecideRule::Components,
                             docs, ds, r);
        QVERIFY(!r.removed(6) && !r.removed(7) && !r.removed(8));
        checkAccounting(r);
    }

    // Under the witness rule, decisions recompute witnesses: a chosen document is visited
    // first, a cut pair is no witness, and a removal whose witness is overruled finds another
    // kept duplicate or is kept.
    void witnessesFollowDecisions() {
        const DocumentTable docs = table(12);
        auto removedSet = [](const RunResult& r) {
            std::set<uint32_t> out;
            for (uint32_t d = 0; d < r.clusterOf.size(); ++d)
                if (r.removed(d)) out.insert(d);
            return out;
        };
        RunResult r;
        clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First, DecideRule::Witness, docs,
                             {}, r);
        // The chain 0-1-2-3-4-5 keeps every other version; the triangle keeps 6.
        QCOMPARE(removedSet(r), (std::set<uint32_t>{1, 3, 5, 7, 8}));
        QCOMPARE(r.removedFor[3], 2u);
        QCOMPARE(r.counts.chainedRemovals, uint64_t{4});  // 2, 3, 4, 5 lack a pair with 0
        checkAccounting(r);

        std::vector<Decision> ds{decision(1, DecisionKind::KeepInstead, 1)};
        clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First, DecideRule::Witness, docs,
                             ds, r);
        QCOMPARE(removedSet(r), (std::set<uint32_t>{0, 2, 4, 7, 8}));
        QCOMPARE(r.removedFor[0], 1u);
        QCOMPARE(r.removedFor[2], 1u);
        QCOMPARE(r.removedFor[4], 3u);
        checkAccounting(r);

        // 1 loses its witness 0 and has no other kept duplicate before it: kept.
        ds = {decision(1, DecisionKind::NotDuplicate, 0, 1)};
        clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First, DecideRule::Witness, docs,
                             ds, r);
        QCOMPARE(removedSet(r), (std::set<uint32_t>{2, 4, 7, 8}));
        QCOMPARE(r.removedFor[2], 1u);

        // 2 is a duplicate of 0 and of 1 (0 and 1 are not): its witness is 0, then, with
        // that pair cut, 1.
        const DocumentTable three = table(3);
        const std::vector<ScoredPair> vee{
            {0, 1, kLow, -1.0f}, {0, 2, kDup, -1.0f}, {1, 2, kDup, -1.0f}};
        clusterWithDecisions(vee, 128, 0.8, KeepPolicy::First, DecideRule::Witness, three, {}, r);
        QCOMPARE(removedSet(r), (std::set<uint32_t>{2}));
        QCOMPARE(r.removedFor[2], 0u);
        ds = {decision(1, DecisionKind::NotDuplicate, 0, 2)};
        clusterWithDecisions(vee, 128, 0.8, KeepPolicy::First, DecideRule::Witness, three, ds, r);
        QCOMPARE(removedSet(r), (std::set<uint32_t>{2}));
        QCOMPARE(r.removedFor[2], 1u);
        // keep_all keeps them all, under either rule.
        ds = {decision(1, DecisionKind::KeepAll, 2)};
        clusterWithDecisions(vee, 128, 0.8, KeepPolicy::First, DecideRule::Witness, three, ds, r);
        QVERIFY(removedSet(r).empty());
    }

    // A witness-rule run in a project: its witnesses are stored and loaded back, and after
    // decisions loadRun, the workbench's queries and the exports agree on every witness.
    void witnessDecisionsInAProject() {
        const std::string project = path("witness.ndw");
        const RunResult run = makeProject(project, path("witness.jsonl"), 0.7, DecideRule::Witness);
        ProjectStore store(project);
        DocumentTable docs;
        const DatasetRecord dataset = store.loadDataset(run.datasetId, &docs);
        const RunResult stored = store.loadRun(run.runId);
        QCOMPARE(stored.params.decide, DecideRule::Witness);
        QCOMPARE(stored.removedFor, run.removedFor);
        QCOMPARE(stored.counts.chainedRemovals, run.counts.chainedRemovals);
        // A removed document of a cluster with a kept member besides its representative, if
        // any, else any removed document: keep it instead.
        uint32_t instead = 0;
        while (!run.removed(instead))
            ++instead;
        recordDecision(store, run.datasetId, DecisionKind::KeepInstead, instead);
        const RunResult audited = store.loadRun(run.runId);
        QCOMPARE(audited.decisionsApplied, uint64_t{1});
        QVERIFY(!audited.removed(instead));
        checkAccounting(audited);
        for (uint32_t d = 0; d < audited.clusterOf.size(); ++d) {
            if (!audited.removed(d)) continue;
            const std::optional<ScoredPair> p = witnessPair(audited, audited.pairs, d);
            QVERIFY(p);
            const uint32_t w = audited.removedFor[d];
            QVERIFY(!audited.removed(w));
            // A signature copy is judged by its copy's pair with the witness (or is the
            // witness's copy); any other removal by its own stored pair.
            auto leader = [&audited](uint32_t x) {
                return audited.copyOf.empty() || audited.copyOf[x] == RunResult::kNoDocument
                           ? x
                           : audited.copyOf[x];
            };
            const ScoredPair* own = findPair(audited.pairs, d, w);
            if (!own) own = findPair(audited.pairs, leader(d), leader(w));
            QVERIFY(leader(d) == leader(w) || (own && isDuplicate(*own, 128, 0.7)));
        }
        // The workbench's members list says the same.
        ProjectQueries q(project);
        const int64_t cluster = q.clusterOfDocument(run.runId, instead);
        QVERIFY(cluster >= 0);
        for (const ClusterMember& m : q.clusterMembers(run.runId, cluster)) {
            QCOMPARE(m.kept, !audited.removed(m.docIndex));
            QCOMPARE(m.removedFor, audited.removed(m.docIndex)
                                       ? int64_t{audited.removedFor[m.docIndex]}
                                       : int64_t{-1});
        }
        // The clusters output names each removed member's witness.
        ExportOptions o;
        o.clusters = path("witness-clusters.jsonl");
        o.removed = path("witness-removed.txt");
        exportRun(audited, dataset.files, docs, o);
        std::size_t witnessed = 0;
        for (const std::string& line : readLines(o.clusters))
            witnessed += line.find("\"witness\":\"") != std::string::npos ? 1 : 0;
        QCOMPARE(uint64_t(witnessed), audited.counts.removed);
        QCOMPARE(uint64_t(readLines(o.removed).size()), audited.counts.removed);
    }

    // Decisions about documents that are not clustered (or not in the table) change nothing.
    void decisionsAboutUnclusteredDocumentsAreHarmless() {
        const DocumentTable docs = table(12);
        RunResult plain, r;
        clusterDocuments(fixturePairs(), 128, 0.8, KeepPolicy::First, DecideRule::Components, docs,
                         plain);
        const std::vector<Decision> ds{decision(1, DecisionKind::KeepInstead, 11),
                                       decision(2, DecisionKind::KeepAll, 10),
                                       decision(3, DecisionKind::NotDuplicate, 9, 10),
                                       decision(4, DecisionKind::NotDuplicate, 0, 5),
                                       decision(5, DecisionKind::KeepInstead, 500)};
        const AppliedDecisions a = clusterWithDecisions(fixturePairs(), 128, 0.8, KeepPolicy::First,
                                                        DecideRule::Components, docs, ds, r);
        QCOMPARE(a.applied, uint64_t{0});
        QCOMPARE(r.clusterOf, plain.clusterOf);
        QCOMPARE(r.representative, plain.representative);
        QCOMPARE(r.counts.removed, plain.counts.removed);
        // At a threshold where the chain is no longer duplicate, a cut of it does nothing.
        RunResult high;
        const std::vector<Decision> cut{decision(1, DecisionKind::NotDuplicate, 1, 2),
                                        decision(2, DecisionKind::KeepInstead, 1)};
        const AppliedDecisions h = clusterWithDecisions(
            fixturePairs(), 128, 0.99, KeepPolicy::First, DecideRule::Components, docs, cut, high);
        QCOMPARE(h.applied, uint64_t{0});
        QCOMPARE(high.counts.clusters, uint64_t{0});
        QCOMPARE(high.counts.removed, uint64_t{0});
    }

    void recordListUndoAndReopen() {
        const std::string project = path("audit.ndw");
        const RunResult run = makeProject(project, path("audit.jsonl"), 0.7);
        QVERIFY(run.counts.clusters > 3);
        {
            ProjectStore store(project);
            QVERIFY(listDecisions(store, run.datasetId).empty());
            const int64_t first =
                recordDecision(store, run.datasetId, DecisionKind::NotDuplicate, 9, 4);
            recordDecision(store, run.datasetId, DecisionKind::KeepInstead, 3);
            const int64_t third = recordDecision(store, run.datasetId, DecisionKind::KeepAll, 5);
            QVERIFY(first < third);
            auto list = listDecisions(store, run.datasetId);
            QCOMPARE(list.size(), std::size_t{3});
            QCOMPARE(list[0].kind, DecisionKind::NotDuplicate);
            QCOMPARE(list[0].a, 4u);  // stored with a < b
            QCOMPARE(list[0].b, 9u);
            QVERIFY(!list[0].createdAt.empty());
            // Bad decisions are refused and leave nothing behind.
            QVERIFY_THROWS_EXCEPTION(
                StoreError, recordDecision(store, run.datasetId, DecisionKind::KeepAll, 400));
            QVERIFY_THROWS_EXCEPTION(
                StoreError, recordDecision(store, run.datasetId, DecisionKind::NotDuplicate, 2, 2));
            QVERIFY_THROWS_EXCEPTION(
                StoreError, recordDecision(store, run.datasetId + 7, DecisionKind::KeepAll, 1));
            // Undo takes back the latest.
            const auto undone = undoDecision(store, run.datasetId);
            QVERIFY(undone);
            QCOMPARE(undone->id, third);
            QCOMPARE(listDecisions(store, run.datasetId).size(), std::size_t{2});
            // Or a given one.
            QVERIFY(undoDecision(store, run.datasetId, first));
            QVERIFY(!undoDecision(store, run.datasetId, first));
        }
        ProjectStore reopened(project);
        const auto list = listDecisions(reopened, run.datasetId);
        QCOMPARE(list.size(), std::size_t{1});
        QCOMPARE(list[0].kind, DecisionKind::KeepInstead);
        QCOMPARE(list[0].a, 3u);
        // The read-only listing (the workbench's connection) agrees.
        const ProjectStore readOnly(project, ProjectStore::Mode::ReadOnly);
        const auto raw = listDecisions(readOnly, run.datasetId);
        QCOMPARE(raw.size(), std::size_t{1});
        QCOMPARE(raw[0].id, list[0].id);
        QCOMPARE(raw[0].a, 3u);
    }

    // loadRun applies the decisions, so `neardup export` and the export dialog honour them.
    void loadRunAndExportsHonourDecisions() {
        const std::string project = path("export.ndw");
        const std::string corpus = path("export.jsonl");
        const RunResult run = makeProject(project, corpus, 0.7);
        ProjectStore store(project);
        DocumentTable docs;
        const DatasetRecord dataset = store.loadDataset(run.datasetId, &docs);
        // Without decisions: exactly the stored clustering, and re-clustering the stored pairs
        // with no decision reproduces it.
        const RunResult stored = store.loadRun(run.runId);
        QCOMPARE(stored.clusterOf, run.clusterOf);
        QCOMPARE(stored.representative, run.representative);
        QCOMPARE(stored.decisionsApplied, uint64_t{0});
        RunResult again;
        clusterWithDecisions(stored.pairs, 128, 0.7, KeepPolicy::First, run.params.decide, docs, {},
                             again);
        QCOMPARE(again.clusterOf, run.clusterOf);

        // Pick the first pair that is in a cluster of two (cut: both stay) and a bigger
        // cluster's member for keep_instead.
        uint32_t pairA = 0, pairB = 0, instead = 0;
        bool havePair = false, haveInstead = false;
        std::vector<uint32_t> size(run.representative.size(), 0);
        for (uint32_t c : run.clusterOf)
            if (c != RunResult::kNoCluster) ++size[c];
        for (const ScoredPair& p : run.pairs) {
            const uint32_t c = run.clusterOf[p.a];
            if (!havePair && c != RunResult::kNoCluster && size[c] == 2 &&
                isDuplicate(p, 128, 0.7)) {
                pairA = p.a;
                pairB = p.b;
                havePair = true;
            }
        }
        for (uint32_t d = 0; d < run.clusterOf.size() && !haveInstead; ++d)
            if (run.removed(d) && !(havePair && (d == pairA || d == pairB))) {
                instead = d;
                haveInstead = true;
            }
        QVERIFY(havePair && haveInstead);
        recordDecision(store, run.datasetId, DecisionKind::NotDuplicate, pairA, pairB);
        recordDecision(store, run.datasetId, DecisionKind::KeepInstead, instead);
        const RunResult audited = store.loadRun(run.runId);
        QCOMPARE(audited.decisionsApplied, uint64_t{2});
        QCOMPARE(audited.counts.clusters, run.counts.clusters - 1);
        QCOMPARE(audited.counts.removed, run.counts.removed - 1);  // the pair's removed member
        QVERIFY(!audited.removed(pairA) && !audited.removed(pairB));
        QVERIFY(!audited.removed(instead));
        const uint32_t oldRep = run.representative[run.clusterOf[instead]];
        QVERIFY(audited.removed(oldRep));
        checkAccounting(audited);

        ExportOptions o;
        o.kept = path("kept.txt");
        o.removed = path("removed.txt");
        o.clusters = path("clusters.jsonl");
        o.jsonl = path("dedup.jsonl");
        o.summaryJson = path("summary.json");
        exportRun(audited, dataset.files, docs, o);
        const auto kept = readLines(o.kept), removed = readLines(o.removed);
        QCOMPARE(kept.size() + removed.size(), docs.size());
        QCOMPARE(uint64_t(removed.size()), audited.counts.removed);
        const std::set<std::string> keptSet(kept.begin(), kept.end());
        for (const uint32_t d : {pairA, pairB, instead})
            QVERIFY(keptSet.count(std::string(docs.id(d))));
        QVERIFY(!keptSet.count(std::string(docs.id(oldRep))));
        QCOMPARE(readLines(o.jsonl).size(), kept.size());
        std::size_t clusterLines = 0;
        for (const std::string& line : readLines(o.clusters)) {
            ++clusterLines;
            if (line.find("\"id\":\"" + std::string(docs.id(pairA)) + "\"") != std::string::npos)
                QFAIL("a member of a cut pair of two is still clustered");
        }
        uint64_t clustered = 0;
        for (uint32_t c : audited.clusterOf)
            clustered += c != RunResult::kNoCluster ? 1 : 0;
        QCOMPARE(uint64_t(clusterLines), clustered);
        QFile summary(QString::fromStdString(o.summaryJson));
        QVERIFY(summary.open(QIODevice::ReadOnly));
        const QByteArray json = summary.readAll();
        QVERIFY(json.contains("\"decisions_applied\": 2"));
        QVERIFY(json.contains(QByteArray("\"removed\": ") +
                              QByteArray::number(qulonglong(audited.counts.removed))));

        // keep_all on the cluster of `instead`: all its members kept, marked in clusters JSONL.
        recordDecision(store, run.datasetId, DecisionKind::KeepAll, instead);
        const RunResult whole = store.loadRun(run.runId);
        for (uint32_t d = 0; d < whole.clusterOf.size(); ++d)
            if (whole.clusterOf[d] == whole.clusterOf[instead]) QVERIFY(!whole.removed(d));
        ExportOptions c;
        c.clusters = path("clusters2.jsonl");
        exportRun(whole, dataset.files, docs, c);
        bool marked = false;
        for (const std::string& line : readLines(c.clusters))
            if (line.find("\"id\":\"" + std::string(docs.id(oldRep)) + "\"") != std::string::npos)
                marked = line.find("\"kept\":true") != std::string::npos;
        QVERIFY(marked);
        checkAccounting(whole);
    }

    // A run at a much higher threshold over the same dataset: the decisions made at 0.7 about
    // documents it does not cluster leave it as it was.
    void decisionsAtAnotherThreshold() {
        const std::string project = path("threshold.ndw");
        const std::string corpus = path("threshold.jsonl");
        const RunResult low = makeProject(project, corpus, 0.7);
        ProjectStore store(project);
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(store, *backend);
        RunParams params;
        params.compare.threshold = 0.99;
        params.decide = DecideRule::Components;
        const RunResult high = pipeline.run({corpus}, params);
        QCOMPARE(high.datasetId, low.datasetId);
        uint32_t doc = 0;
        while (doc < low.clusterOf.size() &&
               !(low.removed(doc) && high.clusterOf[doc] == RunResult::kNoCluster))
            ++doc;
        QVERIFY(doc < low.clusterOf.size());
        recordDecision(store, low.datasetId, DecisionKind::KeepInstead, doc);
        const RunResult reloaded = store.loadRun(high.runId);
        QCOMPARE(reloaded.decisionsApplied, uint64_t{0});
        QCOMPARE(reloaded.clusterOf, high.clusterOf);
        QCOMPARE(reloaded.representative, high.representative);
        QCOMPARE(reloaded.counts.removed, high.counts.removed);
        QCOMPARE(store.loadRun(low.runId).decisionsApplied, uint64_t{1});
    }

    // `neardup run --out-*` on a dataset with decisions exports the audited clustering, and
    // stores the run as the engine clustered it.
    void pipelineExportsHonourDecisions() {
        const std::string project = path("pipeline.ndw");
        const std::string corpus = path("pipeline.jsonl");
        const RunResult first = makeProject(project, corpus, 0.7);
        uint32_t doc = 0;
        while (!first.removed(doc))
            ++doc;
        const uint32_t rep = first.representative[first.clusterOf[doc]];
        ProjectStore store(project);
        recordDecision(store, first.datasetId, DecisionKind::KeepInstead, doc);
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(store, *backend);
        RunParams params;
        params.compare.threshold = 0.7;
        params.decide = DecideRule::Components;
        ExportOptions o;
        o.kept = path("pipeline-kept.txt");
        o.summaryJson = path("pipeline-summary.json");
        const RunResult second = pipeline.run({corpus}, params, o);
        QCOMPARE(second.clusterOf, first.clusterOf);  // stored as clustered
        QCOMPARE(second.representative, first.representative);
        DocumentTable docs;
        store.loadDataset(first.datasetId, &docs);
        const auto kept = readLines(o.kept);
        const std::set<std::string> keptSet(kept.begin(), kept.end());
        QCOMPARE(uint64_t(kept.size()), second.counts.kept);  // one swapped for another
        QVERIFY(keptSet.count(std::string(docs.id(doc))));
        QVERIFY(!keptSet.count(std::string(docs.id(rep))));
        QFile summary(QString::fromStdString(o.summaryJson));
        QVERIFY(summary.open(QIODevice::ReadOnly));
        QVERIFY(summary.readAll().contains("\"decisions_applied\": 1"));
        QCOMPARE(store.loadRun(second.runId).decisionsApplied, uint64_t{1});
    }
};

QTEST_GUILESS_MAIN(TestDecisions)
#include "test_decisions.moc"
