// Stored pairs beyond the memory budget (core/run/pairs_aside.h): the pairs that cannot change a
// run go to sorted runs on disk (core/outofcore/pair_runs.h) and reach the project from there.
// Checked: the runs come back as one sequence in (a, b) order; which pairs can change a run;
// and whole `neardup run` processes, spilled and reusing an earlier run's pairs, that store the
// same pairs and remove the same documents as a run without a budget, compared in memory,
// spilled, and reusing an earlier run's pairs.
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cli_process.h"
#include "clustering.h"
#include "decisions.h"
#include "pair_runs.h"
#include "pair_verifier.h"
#include "project_store.h"
#include "recluster_at.h"
#include "run_compare.h"
#include "test_support.h"

using namespace neardup;
using testsupport::q;
using testsupport::readFile;

namespace {

// Pairs of distinct documents in random order, no pair twice.
std::vector<ScoredPair> randomPairs(std::size_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<uint32_t> doc(0, 5000);
    std::set<std::pair<uint32_t, uint32_t>> seen;
    std::vector<ScoredPair> pairs;
    while (pairs.size() < count) {
        uint32_t a = doc(rng), b = doc(rng);
        if (a == b) continue;
        if (a > b) std::swap(a, b);
        if (!seen.insert({a, b}).second) continue;
        pairs.push_back(
            {a, b, static_cast<uint32_t>(rng() % 129), (rng() % 4 == 0) ? 0.5f : -1.0f});
    }
    return pairs;
}

std::vector<ScoredPair> readBack(const PairRuns& runs) {
    std::vector<ScoredPair> out;
    runs.forEachBlock([&](std::span<const ScoredPair> block) {
        QVERIFY(!block.empty());
        out.insert(out.end(), block.begin(), block.end());
    });
    return out;
}

// For every document, the witness pair that `some` (a run loaded with only some of its pairs)
// gives is the one `all` (loaded with every pair) gives.
void compareWitnesses(const RunResult& some, const RunResult& all) {
    for (uint32_t d = 0; d < all.clusterOf.size(); ++d) {
        const auto expected = witnessPair(all, all.pairs, d);
        const auto got = witnessPair(some, some.pairs, d);
        QCOMPARE(got.has_value(), expected.has_value());
        if (!expected) continue;
        QCOMPARE(got->a, expected->a);
        QCOMPARE(got->b, expected->b);
        QCOMPARE(got->matches, expected->matches);
        QCOMPARE(got->exact, expected->exact);
    }
}

// `count` documents of six words out of twelve: most pairs share enough shingles to be stored
// (store floor 0.5), few are duplicates at 0.8, so most stored pairs cannot change the run.
void writeCrowdedCorpus(const std::string& path, int count) {
    std::mt19937 rng(7);
    std::vector<int> words(12);
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < count; ++i) {
        for (int w = 0; w < 12; ++w)
            words[static_cast<std::size_t>(w)] = w;
        std::shuffle(words.begin(), words.end(), rng);
        out << "{\"id\":\"d" << i << "\",\"text\":\"";
        for (int w = 0; w < 6; ++w)
            out << (w ? " word" : "word") << words[static_cast<std::size_t>(w)] << 'x';
        out << "\"}\n";
    }
}

}  // namespace

class TestPairsAside : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_;

    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }
    testsupport::CliResult run(QStringList args) {
        args.prepend(QStringLiteral("run"));
        return testsupport::neardup(args, testsupport::CliOptions().withTimeout(240000));
    }
    // Runs the corpus into `project` with `extra` options; the removed ids and clusters go to
    // files named after the project.
    testsupport::CliResult runInto(const std::string& project, const QStringList& extra) {
        QStringList args{q(corpus_),
                         QStringLiteral("-p"),
                         q(path(project)),
                         QStringLiteral("-j"),
                         QStringLiteral("2"),
                         QStringLiteral("--out-removed"),
                         q(path(project + ".removed")),
                         QStringLiteral("--out-clusters"),
                         q(path(project + ".clusters")),
                         QStringLiteral("--summary-json"),
                         q(path(project + ".json"))};
        args += extra;
        return run(args);
    }
    std::vector<ScoredPair> latestPairs(const std::string& project) {
        ProjectStore store(path(project), ProjectStore::Mode::ReadOnly);
        return store.loadPairs(*store.latestRun());
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("crowded.jsonl");
        writeCrowdedCorpus(corpus_, 40000);
    }

    // Appended in random order, several runs of a small buffer come back as one sequence in
    // (a, b) order, every pair once, as often as asked.
    void runsMergeIntoOneSortedSequence() {
        WorkDir work(path("work"));
        const std::vector<ScoredPair> pairs = randomPairs(30000, 1);
        PairRuns runs(work, "pairs.bin", 4096 * sizeof(ScoredPair));
        for (const ScoredPair& p : pairs)
            runs.add(p);
        runs.finish();
        QCOMPARE(runs.size(), uint64_t{30000});
        QVERIFY(runs.runs() >= 7);
        std::vector<ScoredPair> expected = pairs;
        std::sort(expected.begin(), expected.end());
        testsupport::comparePairs(readBack(runs), expected);
        testsupport::comparePairs(readBack(runs), expected);  // again, from the first pair

        PairRuns none(work, "none.bin", 0);
        none.finish();
        QCOMPARE(none.size(), uint64_t{0});
        QVERIFY(readBack(none).empty());
    }

    // A pair can change a run when the run verifies it or its estimate makes it a duplicate;
    // with exact verification every pair can.
    void whichPairsCanChangeARun() {
        RunParams params;
        params.signature.hashes = 128;
        params.compare.threshold = 0.8;
        for (const VerifyMode mode :
             {VerifyMode::None, VerifyMode::Borderline, VerifyMode::Exact}) {
            params.compare.verify = mode;
            for (uint32_t m = 0; m <= 128; ++m) {
                const ScoredPair p{0, 1, m, 0.95f};  // an exact value from an earlier run
                ScoredPair estimateOnly = p;
                estimateOnly.exact = -1.0f;
                const bool verified = mode == VerifyMode::Exact ||
                                      (mode == VerifyMode::Borderline && isBorderline(m, 128, 0.8));
                QCOMPARE(canChangeRun(p, params), verified || isDuplicate(estimateOnly, 128, 0.8));
            }
        }
        params.compare.verify = VerifyMode::Borderline;
        QVERIFY(!canChangeRun({0, 1, 70, -1.0f}, params));  // 0.55: only stored
        QVERIFY(canChangeRun({0, 1, 100, -1.0f}, params));  // 0.78: borderline
        QVERIFY(canChangeRun({0, 1, 120, -1.0f}, params));  // 0.94: a duplicate
    }

    // A run whose stored pairs exceed its budget (and whose signatures spill) sets most of them
    // aside, yet stores every pair and removes what a run without a budget removes.
    void spilledRunStoresEveryPairFromDisk() {
        auto r = runInto("free.ndw", {});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("cannot change this run's result")),
                 qPrintable(r.err));
        r = runInto("tight.ndw", {QStringLiteral("--memory-budget"), QStringLiteral("12M")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("out-of-core comparison")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("that cannot change this run's result")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("\nstore ")), qPrintable(r.err));

        const std::vector<ScoredPair> all = latestPairs("free.ndw");
        QVERIFY(all.size() > 500000);  // far beyond the 12 MiB budget's room for pairs
        testsupport::comparePairs(latestPairs("tight.ndw"), all);
        QCOMPARE(readFile(path("tight.ndw.removed")), readFile(path("free.ndw.removed")));
        QCOMPARE(readFile(path("tight.ndw.clusters")), readFile(path("free.ndw.clusters")));
        const std::string stored = "\"stored_pairs\": " + std::to_string(all.size());
        QVERIFY(readFile(path("tight.ndw.json")).find(stored) != std::string::npos);
    }

    // Exporting a stored run loads only the pairs its outputs name: each removed document's
    // witness pair (and for signature copies their leaders'), a small part of the stored pairs
    // here. Every witness is the one the whole set gives, and `neardup export` writes the run's
    // own outputs. A report loads the duplicate pairs only.
    void exportLoadsOnlyTheWitnessPairs() {
        const int64_t runId = [&] {
            ProjectStore store(path("free.ndw"), ProjectStore::Mode::ReadOnly);
            return *store.latestRun();
        }();
        {
            ProjectStore store(path("free.ndw"), ProjectStore::Mode::ReadOnly);
            const RunResult all = store.loadRun(runId);
            const RunResult some = store.loadRun(runId, ProjectStore::StoredPairs::Witnesses);
            QVERIFY(all.counts.removed > 1000);
            QVERIFY2(some.pairs.size() * 10 < all.pairs.size(),
                     qPrintable(QString::number(some.pairs.size())));
            QVERIFY(std::includes(all.pairs.begin(), all.pairs.end(), some.pairs.begin(),
                                  some.pairs.end(), [](const ScoredPair& x, const ScoredPair& y) {
                                      return std::tie(x.a, x.b) < std::tie(y.a, y.b);
                                  }));
            QCOMPARE(some.removedFor, all.removedFor);
            QCOMPARE(some.copyOf, all.copyOf);
            // Few witnesses among many stored pairs: they were looked up by key, not read out
            // of every pair (loadWitnessPairs); the copies' run below reads its pairs through.
            QVERIFY(witnessPairKeys(all).size() * 16 < all.counts.storedPairs);
            compareWitnesses(some, all);
            bool copies = false;
            for (uint32_t d = 0; d < all.clusterOf.size(); ++d)
                copies = copies || (all.removed(d) && all.copyOf[d] != RunResult::kNoDocument);
            QVERIFY(copies);
            // What `neardup report` loads: the duplicate pairs at the run's threshold.
            std::vector<ScoredPair> duplicates;
            for (const ScoredPair& p : all.pairs)
                if (isDuplicate(p, all.params.signature.hashes, all.params.compare.threshold))
                    duplicates.push_back(p);
            QVERIFY(duplicates.size() * 10 < all.pairs.size());
            const RunResult reported = store.loadRun(runId, ProjectStore::StoredPairs::Duplicates);
            testsupport::comparePairs(reported.pairs, duplicates);
            compareWitnesses(reported, all);  // its clusters CSV names the same witnesses
        }
        const auto r = testsupport::neardup(
            {QStringLiteral("export"), QStringLiteral("-p"), q(path("free.ndw")),
             QStringLiteral("--out-removed"), q(path("exported.removed")),
             QStringLiteral("--out-clusters"), q(path("exported.clusters"))},
            testsupport::CliOptions().withTimeout(240000));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("exported.removed")), readFile(path("free.ndw.removed")));
        QCOMPARE(readFile(path("exported.clusters")), readFile(path("free.ndw.clusters")));

        // Signature copies: five copies each of two near-duplicate documents among unrelated
        // ones. The copies of the second are removed for the first's leader, and only the two
        // leaders' pair is stored: the leaders' pair is loaded for them.
        {
            std::ofstream out(path("copies.jsonl"), std::ios::binary);
            std::mt19937 rng(3);
            const std::string x =
                "the quick brown fox jumps over the lazy dog near the river bank "
                "while seven small birds sing in the tall green trees today";
            std::string y = x;
            y.replace(y.find("seven"), 5, "eight");
            for (int i = 0; i < 300; ++i) {
                std::string text;
                for (int w = 0; w < 30; ++w)
                    text += (w ? " w" : "w") + std::to_string(rng() % 100000);
                if (i % 30 == 0) text = (i / 30) % 2 ? y : x;
                out << "{\"id\":\"c" << i << "\",\"text\":\"" << text << "\"}\n";
            }
        }
        auto made = testsupport::neardup(
            {QStringLiteral("run"), q(path("copies.jsonl")), QStringLiteral("-p"),
             q(path("copies.ndw")), QStringLiteral("--out-clusters"), q(path("copies.clusters"))});
        QVERIFY2(made.code == 0, qPrintable(made.err));
        {
            ProjectStore store(path("copies.ndw"), ProjectStore::Mode::ReadOnly);
            const RunResult all = store.loadRun(*store.latestRun());
            const RunResult some =
                store.loadRun(*store.latestRun(), ProjectStore::StoredPairs::Witnesses);
            compareWitnesses(some, all);
            int throughLeaders = 0;
            for (uint32_t d = 0; d < all.clusterOf.size(); ++d)
                throughLeaders += witnessPair(all, all.pairs, d).has_value() &&
                                  findPair(all.pairs, d, all.removedFor[d]) == nullptr;
            QVERIFY(throughLeaders > 0);
        }
        made = testsupport::neardup({QStringLiteral("export"), QStringLiteral("-p"),
                                     q(path("copies.ndw")), QStringLiteral("--out-clusters"),
                                     q(path("copies.exported"))});
        QVERIFY2(made.code == 0, qPrintable(made.err));
        QCOMPARE(readFile(path("copies.exported")), readFile(path("copies.clusters")));
    }

    // Audit decisions cluster a run again, which reads only its duplicate pairs: exporting or
    // reporting a run of a dataset with decisions, or exporting it at the workbench's working
    // threshold, holds those and the witness pairs, never every stored pair (a crowded corpus
    // stores millions beyond its duplicates), and gives what every stored pair gives.
    void decidedRunLoadsOnlyItsDuplicatePairs() {
        std::filesystem::copy_file(path("free.ndw"), path("decided.ndw"));
        ProjectStore decided(path("decided.ndw"));
        const int64_t runId = *decided.latestRun();
        const RunResult before = decided.loadRun(runId);
        const int hashes = before.params.signature.hashes;
        const double threshold = before.params.compare.threshold;
        // "Not a duplicate" on a duplicate pair, and "keep this one instead" on a removed
        // document: both change the clustering.
        const auto cut =
            std::find_if(before.pairs.begin(), before.pairs.end(), [&](const ScoredPair& p) {
                return isDuplicate(p, hashes, threshold) && before.removed(p.b) &&
                       before.removedFor[p.b] == p.a;
            });
        QVERIFY(cut != before.pairs.end());
        decided.recordDecision(before.datasetId, DecisionKind::NotDuplicate, cut->a, cut->b);
        uint32_t instead = 0;
        while (instead < before.clusterOf.size() && (!before.removed(instead) || instead == cut->b))
            ++instead;
        QVERIFY(instead < before.clusterOf.size());
        decided.recordDecision(before.datasetId, DecisionKind::KeepInstead, instead);

        const RunResult all = decided.loadRun(runId);
        QCOMPARE(all.pairs.size(), before.pairs.size());
        QVERIFY(all.removedFor != before.removedFor);  // the decisions were applied
        std::vector<ScoredPair> duplicates;
        for (const ScoredPair& p : all.pairs)
            if (isDuplicate(p, hashes, threshold)) duplicates.push_back(p);
        QVERIFY(duplicates.size() * 10 < all.pairs.size());

        for (const auto kind :
             {ProjectStore::StoredPairs::Witnesses, ProjectStore::StoredPairs::Duplicates}) {
            const RunResult some = decided.loadRun(runId, kind);
            if (kind == ProjectStore::StoredPairs::Duplicates)
                testsupport::comparePairs(some.pairs, duplicates);
            else
                QVERIFY2(some.pairs.size() * 10 < all.pairs.size(),
                         qPrintable(QString::number(some.pairs.size())));
            QCOMPARE(some.clusterOf, all.clusterOf);
            QCOMPARE(some.representative, all.representative);
            QCOMPARE(some.removedFor, all.removedFor);
            QCOMPARE(some.counts.removed, all.counts.removed);
            QCOMPARE(some.counts.duplicatePairs, all.counts.duplicatePairs);
            QCOMPARE(some.decisionsApplied, all.decisionsApplied);
            compareWitnesses(some, all);
        }

        // At a working threshold, as the workbench exports: re-clustered from every pair and
        // from the duplicates at that threshold alone, with the same witnesses.
        DocumentTable docs;
        decided.loadDataset(all.datasetId, &docs);
        for (const double at : {0.7, 0.9}) {
            RunResult whole = decided.loadRun(runId);
            reclusterAt(at, decided.decisions(all.datasetId), docs, whole);
            const RunResult some = decided.loadRunAt(runId, at);
            QVERIFY2(some.pairs.size() * 10 < whole.pairs.size(),
                     qPrintable(QString::number(some.pairs.size())));
            QCOMPARE(some.params.compare.threshold, at);
            QCOMPARE(some.clusterOf, whole.clusterOf);
            QCOMPARE(some.removedFor, whole.removedFor);
            QCOMPARE(some.counts.removed, whole.counts.removed);
            QVERIFY(some.counts.removed != all.counts.removed);
            compareWitnesses(some, whole);
        }
    }

    // A run compared in memory whose stored pairs exceed its budget (16 hashes: the signatures
    // fit, the pairs do not; no verification, whose band would cover every stored pair at 16
    // hashes) sets them aside once compared, and finishes: its summary measures the largest
    // components from the project's signature cache, which used to be locked out by the run's
    // own write of its pairs ("project busy", exit 1).
    void inMemoryRunWithPairsBeyondItsBudget() {
        const QStringList sixteen{QStringLiteral("--hashes"), QStringLiteral("16"),
                                  QStringLiteral("--verify"), QStringLiteral("none")};
        auto r = runInto("free16.ndw", sixteen);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runInto("tight16.ndw", QStringList(sixteen) << QStringLiteral("--memory-budget")
                                                        << QStringLiteral("12M"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("out-of-core comparison")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("that cannot change this run's result")),
                 qPrintable(r.err));
        testsupport::comparePairs(latestPairs("tight16.ndw"), latestPairs("free16.ndw"));
        QCOMPARE(readFile(path("tight16.ndw.removed")), readFile(path("free16.ndw.removed")));
        QCOMPARE(readFile(path("tight16.ndw.clusters")), readFile(path("free16.ndw.clusters")));
        QVERIFY(readFile(path("tight16.ndw.json")).find("\"diameter\"") != std::string::npos);
    }

    // A later run at another threshold reuses the stored pairs, read from the project one at a
    // time, and sets aside those that cannot change it as they are read: the same pairs and
    // removals as without a budget.
    void reusedPairsSetAsideAsTheyAreRead() {
        const QStringList lower{QStringLiteral("-t"), QStringLiteral("0.7"), QStringLiteral("-b"),
                                QStringLiteral("18"), QStringLiteral("-r"),  QStringLiteral("7")};
        auto r = runInto("free.ndw", lower);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runInto("tight.ndw", QStringList(lower)
                                     << QStringLiteral("--memory-budget") << QStringLiteral("12M"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("reusing the compared pairs")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("that cannot change this run's result")),
                 qPrintable(r.err));
        testsupport::comparePairs(latestPairs("tight.ndw"), latestPairs("free.ndw"));
        QCOMPARE(readFile(path("tight.ndw.removed")), readFile(path("free.ndw.removed")));
        QCOMPARE(readFile(path("tight.ndw.clusters")), readFile(path("free.ndw.clusters")));
    }
};

QTEST_GUILESS_MAIN(TestPairsAside)
#include "test_pairs_aside.moc"
