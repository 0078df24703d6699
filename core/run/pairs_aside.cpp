#include "pairs_aside.h"

#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <string>

#include "memory_budget.h"
#include "pair_verifier.h"

namespace neardup {

namespace {

// Pairs read from the spilled comparison's file at a time.
constexpr std::size_t kFileBlockPairs = std::size_t{1} << 16;
constexpr uint64_t kLargestAsideBuffer = uint64_t{256} << 20;

// What the budget holds beside the pairs: the documents' floor, the signatures of a run that
// keeps them in memory (the project is still being given them), and the project's page cache.
uint64_t besidePairs(const RunState& s) {
    return s.memory.floorBytes(s.docs) + capacityBytes(s.sigs.values) + s.memory.storeCacheBytes();
}

// Memory for the runs' buffer: half of what the budget leaves beside the documents and the
// pairs kept, at least half the smallest working set.
uint64_t asideBufferBytes(const RunState& s, uint64_t keptBytes) {
    const uint64_t used = besidePairs(s) + keptBytes;
    const uint64_t left = s.memory.budget() > used ? s.memory.budget() - used : 0;
    return std::clamp(left / 2, kSmallestWorkingBytes / 2, kLargestAsideBuffer);
}

// What stays in memory after the split, when it still does not fit: the run says so rather than
// overshoot in silence.
void warnOfPairsBeyondBudget(RunState& s) {
    const uint64_t bytes = capacityBytes(s.pairs);
    if (pairsFitBudget(s, bytes)) return;
    // A higher store floor stores fewer pairs, but none of those that can change the run.
    s.report.info("warning: the " + std::to_string(s.pairs.size()) +
                  (s.pairsAside ? " stored pairs that can change this run's result take "
                                : " stored pairs take ") +
                  formatBytes(bytes) + ", more than the memory budget of " +
                  formatBytes(s.memory.budget()) + " leaves beside the documents and signatures (" +
                  formatBytes(besidePairs(s)) + "); they stay in memory until stored" +
                  (s.pairsAside ? "" : " (a higher --store-floor stores fewer)"));
}

void reportAside(RunState& s) {
    const uint64_t aside = s.pairsAside->size();
    s.report.info("the " + std::to_string(s.pairs.size() + aside) +
                  " stored pairs exceed the memory budget beside the documents: the " +
                  std::to_string(aside) +
                  " that cannot change this run's result (below the threshold, not verified) go "
                  "to the project from disk (" +
                  std::to_string(s.pairsAside->runs()) + " sorted run(s))");
    warnOfPairsBeyondBudget(s);
}

}  // namespace

bool pairsFitBudget(const RunState& s, uint64_t pairBytes) {
    return besidePairs(s) + pairBytes <= s.memory.budget();
}

namespace {

// The pairs `source` visits (twice: first to count those that stay) split: those that can change
// the run into a vector of exactly their size, which becomes s.pairs, the others into
// s.pairsAside. Returns false, with nothing changed, when every pair can change the run (all are
// verified with --verify exact, and at 16 hashes the borderline band covers every stored pair).
// `heldBytes`: what is in memory meanwhile besides the documents.
bool split(RunState& s, const PairSource& source, uint64_t heldBytes) {
    std::size_t kept = 0, total = 0;
    source([&](const ScoredPair& p) {
        kept += canChangeRun(p, s.params) ? 1 : 0;
        ++total;
    });
    if (kept == total) return false;
    const uint64_t keptBytes = kept * sizeof(ScoredPair);
    s.pairsAside = std::make_unique<PairRuns>(s.work, "pairs-aside.bin",
                                              asideBufferBytes(s, heldBytes + keptBytes));
    std::vector<ScoredPair> keep;
    keep.reserve(kept);
    source([&](ScoredPair p) {
        if (canChangeRun(p, s.params)) {
            keep.push_back(p);
        } else {
            p.exact = -1.0f;  // as verifyPairs clears it
            s.pairsAside->add(p);
        }
    });
    s.pairsAside->finish();
    s.pairs.swap(keep);
    return true;
}

}  // namespace

void setAsidePairsBeyondBudget(RunState& s) {
    const std::vector<ScoredPair>& pairs = s.pairs;
    if (pairsFitBudget(s, capacityBytes(pairs))) return;
    const PairSource inMemory = [&pairs](const PairVisitor& visit) {
        for (const ScoredPair& p : pairs)
            visit(p);
    };
    if (split(s, inMemory, capacityBytes(pairs))) {
        releaseFreedMemory();  // the pairs' old array
        reportAside(s);
    } else {
        warnOfPairsBeyondBudget(s);
    }
}

double loadPairsWithinBudget(RunState& s, uint64_t count, const PairSource& source) {
    std::vector<ScoredPair>& pairs = s.pairs;
    const bool splits = !pairsFitBudget(s, count * sizeof(ScoredPair)) && split(s, source, 0);
    if (!splits) {
        pairs.clear();
        pairs.reserve(static_cast<std::size_t>(count));
        source([&pairs](const ScoredPair& p) { pairs.push_back(p); });
    }
    const auto t0 = SteadyClock::now();
    tbb::task_arena arena(s.run.threads);
    arena.execute([&] { tbb::parallel_sort(pairs.begin(), pairs.end()); });
    const double sortSeconds = secondsSince(t0);
    if (splits)
        reportAside(s);
    else
        warnOfPairsBeyondBudget(s);
    return sortSeconds;
}

PairSource pairsOfFile(const SpillFile& file) {
    return [&file](const PairVisitor& visit) {
        const auto total = static_cast<std::size_t>(file.size() / sizeof(ScoredPair));
        std::vector<ScoredPair> block;
        for (std::size_t at = 0; at < total; at += kFileBlockPairs) {
            block.resize(std::min(kFileBlockPairs, total - at));
            file.readAt(at * sizeof(ScoredPair), block.data(), block.size() * sizeof(ScoredPair));
            for (const ScoredPair& p : block)
                visit(p);
        }
    };
}

}  // namespace neardup
