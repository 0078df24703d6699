// How the workbench's listing changes after the run, checked against what loadRun computes: the
// clusters as audit decisions recorded through another connection reshape them (a cut pair, a
// representative chosen instead, every member kept, a split, all undone), and the listing sorted
// and filtered by its components' diameters once they are measured.
#include <QFile>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "chain_corpus.h"
#include "clustering.h"
#include "component_chain.h"
#include "decisions.h"
#include "engine_fixture.h"
#include "project_copy.h"
#include "project_queries.h"
#include "project_queries_fixture.h"

class TestProjectQueriesAudit : public ProjectQueriesFixture {
    Q_OBJECT

    // diameterSortAndFlaggedFilter on one listing, which has `flaggedWanted` flagged clusters.
    void checkDiameterListing(const std::string& project, int64_t runId, double threshold,
                              std::size_t flaggedWanted) {
        ProjectQueries q(project);
        QVERIFY(!q.storedDiameters(runId, threshold));
        StoredDiameters got;
        {
            const ProjectStore store(project, ProjectStore::Mode::ReadOnly);
            got = listingDiameters(q, store, runId, threshold);
            ComponentDiameters measure;
            const std::vector<ComponentDiameter> want = measure.measureFromCache(
                store, runId, q.listingMembers(runId, threshold), threshold);
            QVERIFY2(got.why.empty(), got.why.c_str());
            QCOMPARE(got.components.size(), want.size());
            for (std::size_t i = 0; i < want.size(); ++i) {
                QCOMPARE(got.components[i].cluster, want[i].cluster);
                QCOMPARE(got.components[i].diameter, want[i].diameter);
                QCOMPARE(got.components[i].farthest, want[i].farthest);
                QCOMPARE(got.components[i].chain, want[i].chain);
            }
        }
        const std::optional<StoredDiameters> stored = q.storedDiameters(runId, threshold);
        QVERIFY(stored);
        QCOMPARE(stored->components.size(), got.components.size());
        for (std::size_t i = 0; i < got.components.size(); ++i) {
            QCOMPARE(stored->components[i].cluster, got.components[i].cluster);
            QCOMPARE(stored->components[i].diameter, got.components[i].diameter);
            QCOMPARE(stored->components[i].farthest, got.components[i].farthest);
            QCOMPARE(stored->components[i].large, got.components[i].large);
        }
        ClusterFilter all;
        all.threshold = threshold;
        QCOMPARE(q.clusterCount(runId, all), uint64_t(got.components.size()));

        std::vector<ComponentDiameter> order = got.components;  // in cluster order
        std::stable_sort(order.begin(), order.end(),
                         [](const ComponentDiameter& x, const ComponentDiameter& y) {
                             return x.diameter < y.diameter;
                         });
        QVERIFY(order.front().diameter < order.back().diameter);
        for (const bool descending : {false, true}) {
            const auto rows = q.clusters(runId, all, ClusterSort::Diameter, descending, 0, 100000);
            QCOMPARE(rows.size(), order.size());
            for (std::size_t i = 0; i < rows.size(); ++i)
                QCOMPARE(rows[i].cluster,
                         descending ? order[order.size() - 1 - i].cluster : order[i].cluster);
        }

        std::set<int64_t> flagged;
        for (const ComponentDiameter& c : got.components)
            if (c.flagged()) flagged.insert(c.cluster);
        QCOMPARE(flagged.size(), flaggedWanted);
        ClusterFilter onlyFlagged = all;
        onlyFlagged.flaggedOnly = true;
        QCOMPARE(q.clusterCount(runId, onlyFlagged), uint64_t(flagged.size()));
        std::set<int64_t> listed;
        for (const ClusterRow& r :
             q.clusters(runId, onlyFlagged, ClusterSort::Size, true, 0, 100000))
            listed.insert(r.cluster);
        QCOMPARE(listed, flagged);
    }

  private slots:
    void initTestCase() { makeCorpusAndRun(); }

    // The listing sorts and filters by its components' diameters once they are stored
    // (listingDiameters, which the workbench's Diameter column uses): they are the diameters
    // measured from the cache over the listing's members, the sort is by diameter with ties in
    // cluster order, the flagged filter keeps exactly the chains and large components (the chain
    // of the issue-19 corpus, not its star), and a listing at another threshold, or changed by a
    // decision, has none stored until measured again.
    void diameterSortAndFlaggedFilter() {
        const std::string planted = path("diameters.ndw");
        QVERIFY(copyProject(project_, planted).sidecarFiles > 0);  // with its signature cache
        const std::string chain = path("chain-diameters.ndw");
        const std::string chainCorpus = path("chain.jsonl");
        testsupport::writeChainCorpus(chainCorpus, 12);
        int64_t chainRun = 0;
        {
            RunParams params;
            params.compare.verify = VerifyMode::Exact;
            chainRun = testsupport::runEngine(chain, {chainCorpus}, params).runId;
        }
        const double own = std::nan("");
        checkDiameterListing(planted, run_.runId, own, 0);
        checkDiameterListing(planted, run_.runId, 0.6, 0);
        checkDiameterListing(chain, chainRun, own, 1);

        // Back at the run's own threshold the listing is built again, without diameters; a
        // decision changes it again.
        ProjectQueries q(planted);
        const int64_t runId = run_.runId;
        QVERIFY(!q.storedDiameters(runId, own));
        {
            const ProjectStore store(planted, ProjectStore::Mode::ReadOnly);
            listingDiameters(q, store, runId, own);
        }
        QVERIFY(q.storedDiameters(runId, own));
        ClusterFilter other;
        other.threshold = 0.6;
        q.clusterCount(runId, other);
        QVERIFY(!q.storedDiameters(runId, own));
        {
            const ProjectStore store(planted, ProjectStore::Mode::ReadOnly);
            listingDiameters(q, store, runId, own);
        }
        const auto bySize = q.clusters(runId, {}, ClusterSort::Size, true, 0, 1);
        const auto members = q.clusterMembers(runId, bySize.front().cluster);
        {
            ProjectStore store(planted);
            recordDecision(store, run_.datasetId, DecisionKind::KeepAll, members.front().docIndex);
        }
        QVERIFY(!q.storedDiameters(runId, own));
    }

    // Decisions recorded through another connection reshape the listing at the next call: a
    // cut pair of two leaves the list, keep_instead changes the representative, keep_all keeps
    // every member; the filters by decision and by a document list; undoing restores it.
    void auditedClustersFollowDecisions() {
        const std::string copy = path("audit.ndw");
        QVERIFY(QFile::copy(QString::fromStdString(project_), QString::fromStdString(copy)));
        ProjectQueries q(copy);
        const int64_t runId = run_.runId;
        const uint64_t total = q.clusterCount(runId, {});
        QCOMPARE(total, run_.counts.clusters);
        QVERIFY(q.decisions(run_.datasetId).empty());
        // The documents a text search reads: every clustered one, in input order.
        const auto clustered = q.clusteredDocuments(runId);
        QCOMPARE(uint64_t(clustered.size()), clusteredCount());
        for (std::size_t i = 1; i < clustered.size(); ++i)
            QVERIFY(clustered[i - 1].first < clustered[i].first);
        QCOMPARE(clustered.front().second.offset, docs_.offset[clustered.front().first]);

        const auto bySize = q.clusters(runId, {}, ClusterSort::Size, true, 0, 100000);
        const ClusterRow big = bySize.front();
        QVERIFY(big.size >= 3);
        const ClusterRow whole = bySize[1];
        const ClusterRow two = bySize.back();
        QCOMPARE(two.size, uint64_t{2});
        const auto twoPairs = q.clusterPairs(runId, two.cluster);
        QCOMPARE(twoPairs.size(), std::size_t{1});
        uint32_t instead = 0;
        for (const auto& m : q.clusterMembers(runId, big.cluster))
            if (!m.representative) instead = m.docIndex;
        const uint32_t wholeMember = q.clusterMembers(runId, whole.cluster).back().docIndex;
        {
            ProjectStore store(copy);
            recordDecision(store, run_.datasetId, DecisionKind::NotDuplicate, twoPairs[0].a,
                           twoPairs[0].b);
            recordDecision(store, run_.datasetId, DecisionKind::KeepInstead, instead);
            recordDecision(store, run_.datasetId, DecisionKind::KeepAll, wholeMember);
        }
        QCOMPARE(q.decisions(run_.datasetId).size(), std::size_t{3});
        QCOMPARE(q.clusterCount(runId, {}), total - 1);
        QCOMPARE(q.clusterOfDocument(runId, twoPairs[0].a), int64_t{-1});
        const int64_t bigNow = q.clusterOfDocument(runId, instead);
        QVERIFY(bigNow >= 0);
        // The listing agrees with loadRun, which exports use.
        RunResult audited;
        {
            ProjectStore store(copy);
            audited = store.loadRun(runId);
        }
        QCOMPARE(audited.decisionsApplied, uint64_t{3});
        const auto rows = q.clusters(runId, {}, ClusterSort::Cluster, false, 0, 100000);
        QCOMPARE(uint64_t(rows.size()), audited.counts.clusters);
        uint64_t sizes = 0;
        std::set<uint32_t> representatives;
        for (const auto& r : rows) {
            // Numbers differ (a split's further pieces are numbered after the run's clusters);
            // each listed cluster is an audited cluster with the same representative and size.
            const uint32_t c = audited.clusterOf[r.representative];
            QVERIFY(c != RunResult::kNoCluster);
            QCOMPARE(audited.representative[c], r.representative);
            QCOMPARE(r.size,
                     uint64_t(std::count(audited.clusterOf.begin(), audited.clusterOf.end(), c)));
            QVERIFY(representatives.insert(r.representative).second);
            sizes += r.size;
        }
        uint64_t clusteredNow = 0;
        for (const uint32_t c : audited.clusterOf)
            clusteredNow += c != RunResult::kNoCluster ? 1 : 0;
        QCOMPARE(sizes, clusteredNow);
        // keep_instead: the chosen member is the representative, marked as decided.
        ClusterFilter decided;
        decided.decidedOnly = true;
        const auto marked = q.clusters(runId, decided, ClusterSort::Cluster, false, 0, 100);
        QCOMPARE(marked.size(), std::size_t{2});
        for (const auto& r : marked) {
            if (r.cluster == bigNow) {
                QCOMPARE(r.representative, instead);
                QVERIFY(r.decisions & kMarkKeepInstead);
            } else {
                QVERIFY(r.decisions & kMarkKeepAll);
            }
        }
        // Its members' status and witnesses are those loadRun computes with the decisions.
        for (const auto& m : q.clusterMembers(runId, bigNow)) {
            QCOMPARE(m.kept, !audited.removed(m.docIndex));
            QCOMPARE(m.removedFor, m.kept ? int64_t{-1} : int64_t{audited.removedFor[m.docIndex]});
            if (m.docIndex == instead) QVERIFY(m.kept);
        }
        const auto wholeMembers = q.clusterMembers(runId, q.clusterOfDocument(runId, wholeMember));
        QCOMPARE(uint64_t(wholeMembers.size()), whole.size);
        for (const auto& m : wholeMembers)
            QVERIFY(m.kept);
        // Clusters holding one of a list of documents.
        ClusterFilter byDocs;
        byDocs.documents =
            std::make_shared<const std::vector<uint32_t>>(std::vector<uint32_t>{instead});
        const auto found = q.clusters(runId, byDocs, ClusterSort::Size, true, 0, 10);
        QCOMPARE(found.size(), std::size_t{1});
        QCOMPARE(found[0].cluster, bigNow);
        byDocs.documents = std::make_shared<const std::vector<uint32_t>>(
            std::vector<uint32_t>{instead, wholeMember, twoPairs[0].a});
        QCOMPARE(q.clusterCount(runId, byDocs), uint64_t{2});
        // Cutting every pair between the two halves of the largest cluster splits it; further
        // pieces are numbered after the run's clusters and list their own members.
        const auto bigMembers = [&] {
            std::vector<uint32_t> out;
            for (uint32_t d = 0; d < run_.clusterOf.size(); ++d)
                if (run_.clusterOf[d] == uint32_t(big.cluster)) out.push_back(d);
            return out;
        }();
        const uint32_t middle = bigMembers[bigMembers.size() / 2];
        {
            ProjectStore store(copy);
            for (const ScoredPair& p : run_.pairs)
                if (run_.clusterOf[p.a] == uint32_t(big.cluster) &&
                    run_.clusterOf[p.b] == uint32_t(big.cluster) &&
                    (p.a < middle) != (p.b < middle))
                    recordDecision(store, run_.datasetId, DecisionKind::NotDuplicate, p.a, p.b);
            audited = store.loadRun(runId);
        }
        std::set<uint32_t> pieces;
        for (const uint32_t d : bigMembers)
            if (audited.clusterOf[d] != RunResult::kNoCluster) pieces.insert(audited.clusterOf[d]);
        QVERIFY(pieces.size() >= 2);
        const auto split = q.clusters(runId, {}, ClusterSort::Cluster, false, 0, 100000);
        QCOMPARE(uint64_t(split.size()), audited.counts.clusters);
        int numberedAfter = 0;
        for (const auto& r : split) {
            const uint32_t c = audited.clusterOf[r.representative];
            QCOMPARE(audited.representative[c], r.representative);
            if (r.cluster < int64_t(run_.counts.clusters)) continue;
            ++numberedAfter;
            QVERIFY(r.decisions & kMarkSplit);
            for (const auto& m : q.clusterMembers(runId, r.cluster)) {
                QCOMPARE(audited.clusterOf[m.docIndex], c);
                QCOMPARE(q.clusterOfDocument(runId, m.docIndex), r.cluster);
            }
            QCOMPARE(uint64_t(q.clusterPairs(runId, r.cluster).size()), r.pairs);
        }
        QCOMPARE(numberedAfter, int(pieces.size()) - 1);

        // Undoing every decision gives the stored clustering back.
        {
            ProjectStore store(copy);
            while (undoDecision(store, run_.datasetId)) {
            }
        }
        QCOMPARE(q.clusterCount(runId, {}), total);
        QCOMPARE(q.clusterCount(runId, decided), uint64_t{0});
        QCOMPARE(q.clusterOfDocument(runId, twoPairs[0].a), int64_t(two.cluster));
    }
};

QTEST_GUILESS_MAIN(TestProjectQueriesAudit)
#include "test_project_queries_audit.moc"
