// The witness pairs of a run's removals, looked up in its stored pairs (clustering.h:
// findPair, witnessPair, witnessPairKeys).
#include <algorithm>

#include "clustering.h"

namespace neardup {

const ScoredPair* findPair(const std::vector<ScoredPair>& pairs, uint32_t x, uint32_t y) {
    const ScoredPair key{std::min(x, y), std::max(x, y), 0, -1.0f};
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), key);
    return it != pairs.end() && it->a == key.a && it->b == key.b ? &*it : nullptr;
}

namespace {

// The kept document a removed `doc` is removed for.
uint32_t keptByOf(const RunResult& run, uint32_t doc) {
    return run.removedFor.empty() ? run.representative[run.clusterOf[doc]] : run.removedFor[doc];
}

// The leader of `d`'s group of signature copies (d itself when it has none): copies share their
// leader's pairs.
uint32_t copyLeader(const RunResult& run, uint32_t d) {
    return run.copyOf.empty() || run.copyOf[d] == RunResult::kNoDocument ? d : run.copyOf[d];
}

}  // namespace

std::optional<ScoredPair> witnessPair(const RunResult& run, const std::vector<ScoredPair>& pairs,
                                      uint32_t doc) {
    if (!run.removed(doc)) return std::nullopt;
    const uint32_t rep = run.representative[run.clusterOf[doc]];
    const uint32_t keptBy = keptByOf(run, doc);
    if (keptBy == rep && !run.chained.empty() && run.chained[doc]) return std::nullopt;
    const ScoredPair* p = findPair(pairs, doc, keptBy);
    if (!p && !run.copyOf.empty()) {
        // A witness in the same class of signature copies is an identical signature, another
        // one is judged by the two leaders' pair.
        const uint32_t ld = copyLeader(run, doc), lw = copyLeader(run, keptBy);
        const ScoredPair self{std::min(doc, keptBy), std::max(doc, keptBy),
                              static_cast<uint32_t>(run.params.signature.hashes), -1.0f};
        if (ld == lw) return self;
        // The leaders' exact Jaccard is the pair's own when each document's shingle set is its
        // leader's (their pair verified at exact 1): a verified run then names it too.
        auto sameSet = [&pairs](uint32_t x, uint32_t leader) {
            if (x == leader) return true;
            const ScoredPair* c = findPair(pairs, x, leader);
            return c != nullptr && c->exact >= 1.0f;
        };
        if (const ScoredPair* q = findPair(pairs, ld, lw))
            return ScoredPair{self.a, self.b, q->matches,
                              sameSet(doc, ld) && sameSet(keptBy, lw) ? q->exact : -1.0f};
    }
    if (!p) return std::nullopt;
    // A witness other than the representative was chosen for its duplicate pair; a removal for
    // the representative has one when the clustering found it (not chained), or, for a run
    // loaded without that mark, when the stored pair is a duplicate at the threshold.
    if (keptBy != rep || !run.chained.empty()) return *p;
    if (isDuplicate(*p, run.params.signature.hashes, run.params.compare.threshold)) return *p;
    return std::nullopt;
}

std::vector<uint64_t> witnessPairKeys(const RunResult& run) {
    std::vector<uint64_t> keys;
    auto add = [&keys](uint32_t x, uint32_t y) {
        if (x != y) keys.push_back(uint64_t{std::min(x, y)} << 32 | std::max(x, y));
    };
    for (uint32_t doc = 0; doc < run.clusterOf.size(); ++doc) {
        if (!run.removed(doc)) continue;
        const uint32_t keptBy = keptByOf(run, doc);
        add(doc, keptBy);
        add(copyLeader(run, doc), copyLeader(run, keptBy));
        // And each with its leader: whether their shingle sets are equal (witnessPair), which
        // only a run that verifies every pair knows.
        if (run.params.compare.verify == VerifyMode::Exact) {
            add(doc, copyLeader(run, doc));
            add(keptBy, copyLeader(run, keptBy));
        }
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

}  // namespace neardup
