// The removal decision as the clustering (clustering.cpp) calls it: which stored pairs are
// duplicates of the run (DuplicateTest); the witnesses found in input order in one pass over
// pairs sorted by (a, b), which the union's own pass finds on its way; and decide(), the
// removals by rule (witness_rule.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "clustering.h"

namespace neardup::witness_rule {

// isDuplicate at a fixed threshold, less the excluded pairs and the pairs of two reference
// documents, with its constants computed once. Two reference documents are never a duplicate
// pair of the run: neither is removed, so neither may be the other's witness (and a reference
// document that had a kept duplicate earlier in keep order would be removed by the rule).
class DuplicateTest {
  public:
    DuplicateTest(int hashes, double threshold, std::span<const DocPair> excluded,
                  uint32_t referenceDocuments)
        : needed_(static_cast<uint32_t>(std::ceil(threshold * hashes - 1e-9))),
          hashes_(static_cast<uint32_t>(hashes)),
          exactFloor_(threshold - 1e-6),
          referenceDocuments_(referenceDocuments),
          excluded_(excluded) {}
    // True for a pair of identical signatures (every position equal).
    bool copy(const ScoredPair& p) const { return p.matches >= hashes_; }
    bool operator()(const ScoredPair& p) const {
        if (p.exact >= 0.0f ? static_cast<double>(p.exact) < exactFloor_ : p.matches < needed_)
            return false;
        if (p.b < referenceDocuments_) return false;  // a < b: both are reference documents
        return excluded_.empty() ||
               !std::binary_search(excluded_.begin(), excluded_.end(), DocPair{p.a, p.b});
    }

  private:
    uint32_t needed_;
    uint32_t hashes_;
    double exactFloor_;
    uint32_t referenceDocuments_;
    std::span<const DocPair> excluded_;
};

// No witness: the document is kept.
inline constexpr uint32_t kNone = RunResult::kNoDocument;
// How many pairs ahead the passes over pairs prefetch what they read at random for the later
// document of a pair (its union-find parent, its witness, its visiting rank).
inline constexpr std::size_t kPrefetchAhead = 16;

// Witnesses in input order (--keep first, every representative its cluster's smallest member,
// no cluster kept whole) from pairs sorted by (a, b): they arrive grouped by their earlier
// document a, after every pair (x, a) with x < a, so a's status is final when its own pairs
// come: a kept a is the witness of each b that has none yet, the smallest such a.
inline void inputOrderWitness(std::vector<uint32_t>& removedFor, const ScoredPair& p) {
    const uint32_t wa = removedFor[p.a], wb = removedFor[p.b];
    removedFor[p.b] = wa == kNone && wb == kNone ? p.a : wb;
}

// What a pass of input-order witnesses found about the duplicate pairs: whether they were
// sorted by (a, b) (otherwise its witnesses are to be discarded), and whether some are signature
// copies (then its witnesses hold for the heads of the copy classes only: see findWitnesses).
struct InputOrder {
    bool sorted = true;
    bool copies = false;
};

// Input-order witnesses over the duplicate pairs in the order given.
// `ahead(b)` is called for the pair a few places ahead (prefetches of what `visit` reads).
template <typename Visit, typename Ahead>
InputOrder inputOrderWitnesses(const std::vector<ScoredPair>& pairs, const DuplicateTest& duplicate,
                               std::vector<uint32_t>& removedFor, Visit visit, Ahead ahead) {
    uint64_t previous = 0;
    InputOrder found;
    const std::size_t count = pairs.size();
    for (std::size_t i = 0; i < count; ++i) {
        if (i + kPrefetchAhead < count) {
            const uint32_t b = pairs[i + kPrefetchAhead].b;
            __builtin_prefetch(removedFor.data() + b);
            ahead(b);
        }
        const ScoredPair& p = pairs[i];
        if (!duplicate(p)) continue;
        visit(p);
        const uint64_t key = uint64_t{p.a} << 32 | p.b;
        found.sorted &= key > previous;
        found.copies |= duplicate.copy(p);
        previous = key;
        inputOrderWitness(removedFor, p);
    }
    return found;
}

// The removals of a clustered run (clusterOf, representative, keepAll set) by `rule`: fills
// removedFor, chained, copyOf and the counts, as decideRemovals says (clustering.h). `inputOrder`
// and `inputOrderCopies`: what the union's own pass found (findWitnesses, witness_rule.cpp).
void decide(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
            std::span<const DocPair> excluded, KeepPolicy policy, DecideRule rule,
            const DocumentTable& docs, RunResult& run, std::vector<uint32_t>* inputOrder,
            bool inputOrderCopies);

}  // namespace neardup::witness_rule
