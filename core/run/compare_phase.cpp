// The candidate pairs: buckets and compare, in memory or over spilled signatures
// (BucketComparePhase), or taken from an earlier run (ReusePairsPhase); see run_phases.h.
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "lsh_buckets.h"
#include "memory_budget.h"
#include "pair_verifier.h"
#include "pairs_aside.h"
#include "run_phases.h"
#include "spill_compare.h"
#include "spill_files.h"

namespace neardup {

void ReusePairsPhase::run() {
    RunResult earlier = s_.store.loadRunOutline(earlierRun_);
    s_.report.info("reusing the compared pairs of run " + std::to_string(earlierRun_) + " (b x r " +
                   std::to_string(s_.params.lsh.bands) + " x " +
                   std::to_string(s_.params.lsh.rows) + ")");
    // An earlier run with a lower store floor stored pairs this run's comparison would not
    // have: they are dropped, so the run stores and decides exactly what comparing again would
    // give. Beyond the budget, the pairs that cannot change the run go to disk as they are read.
    const int minMatches = storeMinMatches(s_.params);
    const int64_t runId = earlierRun_;
    ProjectStore& store = s_.store;
    loadPairsWithinBudget(s_, earlier.counts.storedPairs,
                          [&store, runId, minMatches](const PairVisitor& visit) {
                              store.forEachPair(runId, [&](const ScoredPair& p) {
                                  if (static_cast<int>(p.matches) >= minMatches) visit(p);
                              });
                          });
    s_.run.bands = std::move(earlier.bands);
    s_.run.counts.candidatePairs = earlier.counts.candidatePairs;
    s_.run.pairsReused = true;
    s_.report.finished(s_.run, {"buckets", 0, 0, 0, true});
    s_.report.finished(s_.run, {"compare", 0, s_.run.counts.candidatePairs, 0, true});
}

namespace {

// The run of the reference's own dataset whose stored pairs serve this run's parameters (as an
// earlier run's pairs serve a re-run: the same signatures, bands, rows, keys and buckets, a
// store floor as low): its pairs are this run's pairs among reference documents.
std::optional<int64_t> referencePairsSource(const RunState& s) {
    if (!s.referenceDatasetId || s.docs.referenceDocuments == 0) return std::nullopt;
    return s.store.findReusablePairs(*s.referenceDatasetId, s.params, s.run.resolvedBuckets);
}

// Appends the pairs run `runId` stored at or above this run's store floor to `found`, going to
// the pair file a buffer at a time, unverified: verification gives them the verdicts that run
// stored (VerifyPhase), as to any pair. Returns the pairs that run decided.
uint64_t takeReferencePairs(const RunState& s, int64_t runId, int minMatches,
                            SpilledComparison& spilled, std::vector<ScoredPair>& found,
                            std::size_t bufferPairs) {
    s.store.forEachPair(runId, [&](const ScoredPair& p) {
        if (static_cast<int>(p.matches) < minMatches) return;
        found.push_back({p.a, p.b, p.matches, -1.0f});
        if (found.size() >= bufferPairs) spilled.flushPairs(found);
    });
    spilled.flushPairs(found);
    return s.store.loadRunOutline(runId).counts.candidatePairs;
}

}  // namespace

void BucketComparePhase::run() {
    if (s_.memory.spilled())
        spilled();
    else
        inMemory();
}

int BucketComparePhase::minMatches() const {
    return storeMinMatches(s_.params);
}

void BucketComparePhase::inMemory() {
    const auto& lsh = s_.params.lsh;
    const int threads = s_.run.threads;
    const std::size_t n = s_.docs.size();
    const SignatureMatrix& sigs = s_.sigs;
    std::vector<ScoredPair>& pairs = s_.pairs;
    std::vector<uint64_t> keys(n * static_cast<std::size_t>(lsh.bands));
    s_.report.started("buckets");
    auto t0 = SteadyClock::now();
    s_.backend.computeBandKeys(sigs, lsh, s_.run.resolvedBuckets, keys.data());
    double bucketSeconds = secondsSince(t0), compareSeconds = 0;
    uint64_t entries = 0;
    std::vector<BucketEntry> scratch;
    BucketBatch batch;
    pairs.clear();
    uint64_t decided = 0;
    CompareRequest req{&sigs, keys.data(), lsh.bands, minMatches()};
    // The pairs found stay in memory while they fit beside what the comparison holds; beyond
    // that, a band's worth at a time goes to a file, and they come back once the band keys are
    // gone (loadPairsWithinBudget: sorted, and split if they still do not fit). Left to grow,
    // their vector doubles and holds both copies while it does: 7.3 million crowded pairs took a
    // run to 443 MiB under a 300 MiB budget.
    std::unique_ptr<SpillFile> pairFile;
    auto pairsOutgrowBudget = [&] {
        static const std::vector<ScoredPair> kNoPairs;
        const uint64_t working = s_.memory.workingBytes(s_.docs, sigs, kNoPairs);
        const uint64_t held = capacityBytes(sigs.values) + capacityBytes(keys) +
                              capacityBytes(scratch) + capacityBytes(batch.members) +
                              capacityBytes(batch.bucketBegin);
        // Twice the pairs' capacity, as workingBytes counts them: the copies while they grow.
        return held + 2 * capacityBytes(pairs) > working;
    };
    s_.report.started("compare");
    for (int band = 0; band < lsh.bands; ++band) {
        s_.report.checkCancel();
        t0 = SteadyClock::now();
        BandStats stats;
        buildBuckets(keys.data(), n, lsh.bands, band, sigs.eligible, threads, scratch, batch,
                     stats);
        entries += scratch.size();
        s_.run.bands.push_back(std::move(stats));
        const auto t1 = SteadyClock::now();
        bucketSeconds += std::chrono::duration<double>(t1 - t0).count();
        decided += s_.backend.compareBuckets(batch, req, pairs);
        if (pairsOutgrowBudget()) {
            if (!pairFile) pairFile = std::make_unique<SpillFile>(s_.work, "pairs.bin");
            pairFile->append(pairs.data(), pairs.size() * sizeof(ScoredPair));
            std::vector<ScoredPair>().swap(pairs);
        }
        compareSeconds += secondsSince(t1);
        s_.report.progress("compare", static_cast<uint64_t>(band + 1),
                           static_cast<uint64_t>(lsh.bands));
    }
    s_.run.counts.candidatePairs = decided;
    s_.report.finished(s_.run, {"buckets", bucketSeconds, entries, 0, false});
    if (pairFile) {
        t0 = SteadyClock::now();
        pairFile->append(pairs.data(), pairs.size() * sizeof(ScoredPair));
        std::vector<ScoredPair>().swap(pairs);
        std::vector<uint64_t>().swap(keys);
        std::vector<BucketEntry>().swap(scratch);
        batch = BucketBatch{};
        releaseFreedMemory();
        loadPairsWithinBudget(s_, pairFile->size() / sizeof(ScoredPair), pairsOfFile(*pairFile));
        compareSeconds += secondsSince(t0);
        s_.report.finished(s_.run, {"compare", compareSeconds, decided, 0, false});
        return;
    }
    // Each pair is decided in exactly one band (its first collision), so sorting is all that is
    // needed for a canonical order.
    t0 = SteadyClock::now();
    tbb::task_arena arena(threads);
    arena.execute([&] { tbb::parallel_sort(pairs.begin(), pairs.end()); });
    compareSeconds += secondsSince(t0);
    s_.report.finished(s_.run, {"compare", compareSeconds, decided, 0, false});
    setAsidePairsBeyondBudget(s_);
}

void BucketComparePhase::spilled() {
    const auto& lsh = s_.params.lsh;
    const int threads = s_.run.threads;
    const SignatureMatrix& sigs = s_.sigs;
    std::vector<ScoredPair>& pairs = s_.pairs;
    std::vector<ScoredPair>().swap(pairs);
    // The pairs found go to a file a buffer at a time and come back into a vector of exactly
    // their size once every band is done: a vector growing by doubling would hold up to twice
    // their bytes, and its old and new copies at once while it grows.
    const uint64_t working = s_.memory.workingBytes(s_.docs, sigs, pairs);
    const std::size_t bufferPairs = std::clamp<std::size_t>(
        static_cast<std::size_t>(working / 8 / sizeof(ScoredPair)), 4096, std::size_t{1} << 20);
    const uint64_t bufferBytes = bufferPairs * sizeof(ScoredPair);
    SpillFile pairFile(s_.work, "pairs.bin");
    // The comparison's working memory (its passes' rows, the components, its buffers) is all
    // given back before the pairs are loaded, which the budget counts beside the documents only.
    auto spilled = std::make_unique<SpilledComparison>(
        s_.backend, s_.work, s_.memory.spill(), sigs.digests, sigs.eligible, lsh,
        s_.run.resolvedBuckets, minMatches(), threads);
    std::vector<ScoredPair> found;
    found.reserve(bufferPairs);
    spilled->spillPairsTo(pairFile, bufferPairs);
    const std::optional<int64_t> referencePairsOf = referencePairsSource(s_);
    if (referencePairsOf) spilled->leaveOutReferencePairs(s_.docs.referenceDocuments);
    s_.report.started("buckets");
    s_.report.started("compare");
    uint64_t decided = spilled->run(
        working > bufferBytes ? working - bufferBytes : 0, s_.run.bands, found,
        [this](uint64_t done, uint64_t total) {
            releaseFreedMemory();
            s_.report.progress("compare", done, total);
        },
        [this] { s_.report.checkCancel(); });
    spilled->flushPairs(found);
    if (spilled->referenceLeftOut()) {
        decided +=
            takeReferencePairs(s_, *referencePairsOf, minMatches(), *spilled, found, bufferPairs);
        s_.report.info("the pairs among the reference's " +
                       std::to_string(s_.docs.referenceDocuments) + " documents come from run " +
                       std::to_string(*referencePairsOf) +
                       ": only buckets holding an input document were compared");
    }
    std::vector<ScoredPair>().swap(found);
    const std::string summary =
        "out-of-core comparison: up to " + std::to_string(spilled->maxPartitions()) +
        " partition(s) per band, at least " + std::to_string(spilled->minPassRows()) +
        " rows per pass; " + std::to_string(spilled->components()) +
        " components of documents sharing buckets, compared whole in " +
        std::to_string(spilled->passes()) + " pass(es), " +
        std::to_string(spilled->largeComponentDocuments()) +
        " documents in components larger than a pass compared band by band; " +
        std::to_string(s_.memory.spill().rowsRead()) + " signature rows read";
    const PhaseTiming buckets{"buckets", spilled->bucketSeconds(), spilled->entries(), 0, false};
    const double compareSeconds = spilled->compareSeconds();
    spilled.reset();
    releaseFreedMemory();
    const double sortSeconds =
        loadPairsWithinBudget(s_, pairFile.size() / sizeof(ScoredPair), pairsOfFile(pairFile));
    s_.report.info(summary);
    s_.run.counts.candidatePairs = decided;
    s_.report.finished(s_.run, buckets);
    s_.report.finished(s_.run, {"compare", compareSeconds + sortSeconds, decided, 0, false});
}

}  // namespace neardup
