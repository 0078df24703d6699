// The diameters the run summary names (component_chain.h: notableComponents) are measured in
// bounded memory: a component's members' signature rows are read block by block, never all at
// once, and the result is the same as comparing every member with the representative at once
// (same diameter, same farthest member, ties to the first member in document order), for any
// block size; the block follows the run's memory budget; a run without cached signatures gets
// no diameters and the reason.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "component_chain.h"
#include "params.h"
#include "project_store.h"
#include "signatures.h"

using namespace neardup;

namespace {

constexpr int kHashes = 32;
constexpr uint32_t kDocs = 5606;

// Docs 0..5599: every tenth (9, 19, ...) in cluster 1 (560 members, representative 9), the rest
// in cluster 0 (5,040 members, representative 17: not its first member); 5600-5601 cluster 2
// (2 members), 5602 alone, 5603-5605 cluster 3 (3 members, representative 5605).
RunResult makeRun(int64_t datasetId) {
    RunResult run;
    run.datasetId = datasetId;
    run.params.signature.hashes = kHashes;
    run.params.compare.threshold = 0.8;
    run.startedAt = "2026-01-01T00:00:00.000Z";
    run.status = "ok";
    run.clusterOf.assign(kDocs, RunResult::kNoCluster);
    for (uint32_t d = 0; d < 5600; ++d)
        run.clusterOf[d] = d % 10 == 9 ? 1u : 0u;
    run.clusterOf[5600] = run.clusterOf[5601] = 2;
    run.clusterOf[5603] = run.clusterOf[5604] = run.clusterOf[5605] = 3;
    run.representative = {17, 9, 5600, 5605};
    return run;
}

// Each member's row is its representative's with a few positions changed (0 to 19, from the
// document's index), so that many members tie for the lowest similarity, in different blocks.
SignatureMatrix makeSignatures(const RunResult& run) {
    SignatureMatrix sig;
    sig.resize(kDocs, kHashes);
    for (uint32_t d = 0; d < kDocs; ++d)
        for (int h = 0; h < kHashes; ++h)
            sig.row(d)[h] = d * 1000u + static_cast<uint32_t>(h);  // unlike any other row
    for (uint32_t d = 0; d < kDocs; ++d) {
        const uint32_t c = run.clusterOf[d];
        if (c == RunResult::kNoCluster || run.representative[c] == d) continue;
        const uint32_t* rep = sig.row(run.representative[c]);
        const uint32_t changed = (d * 7919u) % 20u;
        for (int h = 0; h < kHashes; ++h)
            sig.row(d)[h] = static_cast<uint32_t>(h) < changed ? rep[h] + 1 : rep[h];
    }
    return sig;
}

// Every member compared with its representative at once: the diameter and the first farthest
// member in document order.
ComponentDiameter expected(const RunResult& run, const SignatureMatrix& sig, uint32_t cluster) {
    ComponentDiameter c;
    c.cluster = cluster;
    c.representative = run.representative[cluster];
    c.farthest = c.representative;
    for (uint32_t d = 0; d < kDocs; ++d) {
        if (run.clusterOf[d] != cluster) continue;
        ++c.size;
        if (d == c.representative) continue;
        const double s = matchingPositions(sig.row(d), sig.row(c.representative), kHashes) /
                         static_cast<double>(kHashes);
        if (std::isnan(c.diameter) || s < c.diameter) {
            c.diameter = s;
            c.farthest = d;
        }
    }
    return c;
}

void compareComponents(const std::vector<ComponentDiameter>& got,
                       const std::vector<ComponentDiameter>& want) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].cluster, want[i].cluster);
        QCOMPARE(got[i].size, want[i].size);
        QCOMPARE(got[i].representative, want[i].representative);
        QCOMPARE(got[i].diameter, want[i].diameter);
        QCOMPARE(got[i].farthest, want[i].farthest);
        QCOMPARE(got[i].large, want[i].size >= kLargeComponent);
    }
}

// notableComponents reading members' rows `blockRows` at a time (0: as the run's budget says),
// with the most rows it held at once.
struct Measured {
    NotableComponents notable;
    uint64_t rowsHeldAtMost = 0;
};

Measured measured(const ProjectStore& store, const RunResult& run, std::size_t blockRows) {
    DiameterReading reading;
    reading.blockRows = blockRows;
    Measured m;
    m.notable = notableComponents(store, run, 3, &reading);
    m.rowsHeldAtMost = reading.rowsHeldAtMost;
    return m;
}

}  // namespace

class TestComponentDiameters : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string project_;
    RunResult run_;
    SignatureMatrix signatures_;

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = dir_.filePath(QStringLiteral("diameters.ndw")).toStdString();
        ProjectStore store(project_);
        DocumentTable docs;
        for (uint32_t d = 0; d < kDocs; ++d)
            docs.append(0, d + 1, d * 100, 50, 40, std::nan(""), "doc-" + std::to_string(d));
        run_ = makeRun(store.saveDataset(DatasetRecord{}, docs));
        run_.runId = store.beginRun(run_);
        signatures_ = makeSignatures(run_);
        store.saveSignatures(run_.datasetId,
                             signatureCacheKey(run_.params.signature, run_.params.reader),
                             signatures_);
    }

    // A 5,040-member component read 1,000 rows at a time: never more than 1,001 rows held (the
    // representative's and one block), and the diameters, farthest members and order of a
    // whole comparison.
    void blocksGiveTheWholeComparison() {
        const ProjectStore store(project_, ProjectStore::Mode::ReadOnly);
        const Measured blocked = measured(store, run_, 1000);
        QVERIFY(blocked.notable.diameterUnknown.empty());
        QVERIFY2(blocked.rowsHeldAtMost <= 1001,
                 qPrintable(QString::number(blocked.rowsHeldAtMost)));
        QVERIFY(blocked.rowsHeldAtMost > 0);
        // Largest first: clusters 0 (5,040), 1 (560), 3 (3), then cluster 2 (2 members), named
        // beyond the three largest because it is flagged: a chain.
        compareComponents(blocked.notable.components,
                          {expected(run_, signatures_, 0), expected(run_, signatures_, 1),
                           expected(run_, signatures_, 3), expected(run_, signatures_, 2)});
        QVERIFY(blocked.notable.components[3].chain);
        QVERIFY(blocked.notable.components[0].diameter < 1.0);  // the rows do differ
        // The same as one block (the default for an unknown budget holds them all here), and as
        // blocks of 7 rows (not dividing any component).
        const Measured whole = measured(store, run_, 0);
        compareComponents(blocked.notable.components, whole.notable.components);
        QCOMPARE(whole.rowsHeldAtMost, uint64_t{5040});  // 5,039 members and the representative
        const Measured sevenRows = measured(store, run_, 7);
        compareComponents(sevenRows.notable.components, whole.notable.components);
        QCOMPARE(sevenRows.rowsHeldAtMost, uint64_t{8});
        for (std::size_t i = 0; i < whole.notable.components.size(); ++i)
            QCOMPARE(blocked.notable.components[i].chain, whole.notable.components[i].chain);
    }

    // Measured by four threads at once: the same components, and the rows held at once by all
    // of them within the one block and a row each that one thread would hold.
    void threadsGiveTheSameComponents() {
        const ProjectStore store(project_, ProjectStore::Mode::ReadOnly);
        const Measured one = measured(store, run_, 1000);
        RunResult parallel = run_;
        parallel.threads = 4;
        const Measured four = measured(store, parallel, 1000);
        compareComponents(four.notable.components, one.notable.components);
        for (std::size_t i = 0; i < one.notable.components.size(); ++i)
            QCOMPARE(four.notable.components[i].chain, one.notable.components[i].chain);
        QVERIFY(four.rowsHeldAtMost > 0);
        QVERIFY2(four.rowsHeldAtMost <= 1000 + 4, qPrintable(QString::number(four.rowsHeldAtMost)));
    }

    // The block follows the run's (resolved) memory budget: an eighth of it in rows.
    void blockFollowsTheBudget() {
        QCOMPARE(diameterBlockRows(0, 128), kDiameterBlockRows);
        QCOMPARE(diameterBlockRows(uint64_t{1} << 20, 128), std::size_t{256});  // 1 MiB / 8 / 512
        QCOMPARE(diameterBlockRows(uint64_t{512} << 20, 128), kDiameterBlockRows);  // capped
        QCOMPARE(diameterBlockRows(100, 128), std::size_t{1});

        const ProjectStore store(project_, ProjectStore::Mode::ReadOnly);
        RunResult budgeted = run_;
        budgeted.memoryBudget = 8 * 100 * kHashes * sizeof(uint32_t);  // blocks of 100 rows
        const Measured small = measured(store, budgeted, 0);
        QCOMPARE(small.rowsHeldAtMost, uint64_t{101});
        compareComponents(small.notable.components, measured(store, run_, 0).notable.components);
    }

    // Without the project's signature cache: the sizes, no diameters, and why.
    void absentCacheGivesNoDiameters() {
        namespace fs = std::filesystem;
        const std::string copy = dir_.filePath(QStringLiteral("uncached.ndw")).toStdString();
        fs::copy_file(project_, copy);  // the project without its sidecar directory
        const ProjectStore store(copy, ProjectStore::Mode::ReadOnly);
        const Measured none = measured(store, run_, 1000);
        QVERIFY(!none.notable.diameterUnknown.empty());
        QCOMPARE(none.rowsHeldAtMost, uint64_t{0});
        QCOMPARE(none.notable.components.size(), std::size_t{3});
        QCOMPARE(none.notable.components[0].size, uint64_t{5040});
        for (const ComponentDiameter& c : none.notable.components) {
            QVERIFY(std::isnan(c.diameter));
            QCOMPARE(c.farthest, c.representative);
            QVERIFY(!c.chain);
        }
        QVERIFY(none.notable.components[0].large);
    }

    // The workbench's listing measured from the cache a block at a time (measureFromCache): the
    // diameters, farthest members and flags of the whole matrix loaded and measured, for blocks
    // of 1, 7 and 1,000 rows and one block, with nothing left loaded; without the cache, the
    // sizes, NaN diameters and why.
    void listingFromCacheEqualsTheLoadedMatrix() {
        std::vector<ListingMember> members;  // by cluster, then document, as listingMembers
        for (std::size_t c = 0; c < run_.representative.size(); ++c)
            for (uint32_t d = 0; d < run_.clusterOf.size(); ++d)
                if (run_.clusterOf[d] == c)
                    members.push_back({static_cast<int64_t>(c), d, run_.representative[c]});
        const ProjectStore store(project_, ProjectStore::Mode::ReadOnly);
        ComponentDiameters loaded;
        QVERIFY(loaded.load(store, run_.runId));
        const std::vector<ComponentDiameter> want = loaded.measure(members);
        QCOMPARE(want.size(), run_.representative.size());
        QVERIFY(want[0].diameter < 1.0);
        for (const std::size_t blockRows :
             {std::size_t{1}, std::size_t{7}, std::size_t{1000}, kDiameterBlockRows}) {
            ComponentDiameters streamed;
            const std::vector<ComponentDiameter> got =
                streamed.measureFromCache(store, run_.runId, members, std::nan(""), blockRows);
            QVERIFY(streamed.why().empty());
            QVERIFY(!streamed.loaded());
            compareComponents(got, want);
            for (std::size_t i = 0; i < got.size(); ++i)
                QCOMPARE(got[i].chain, want[i].chain);
        }

        namespace fs = std::filesystem;
        const std::string copy = dir_.filePath(QStringLiteral("uncached-list.ndw")).toStdString();
        fs::copy_file(project_, copy);  // the project without its sidecar directory
        const ProjectStore bare(copy, ProjectStore::Mode::ReadOnly);
        ComponentDiameters none;
        const std::vector<ComponentDiameter> sizes =
            none.measureFromCache(bare, run_.runId, members, std::nan(""), 1000);
        QVERIFY(!none.why().empty());
        QCOMPARE(sizes.size(), want.size());
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            QCOMPARE(sizes[i].size, want[i].size);
            QVERIFY(std::isnan(sizes[i].diameter));
            QCOMPARE(sizes[i].farthest, sizes[i].representative);
            QVERIFY(!sizes[i].chain);
        }
    }
};

QTEST_GUILESS_MAIN(TestComponentDiameters)
#include "test_component_diameters.moc"
