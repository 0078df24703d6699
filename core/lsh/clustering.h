// Union-find over duplicate pairs (clusters: connected components), the choice of one
// representative per cluster, and which documents are removed: by witness (the default) or by
// component (DecideRule, core/base/params.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "document_table.h"
#include "run_result.h"

namespace neardup {

class UnionFind {
  public:
    explicit UnionFind(std::size_t n);
    uint32_t find(uint32_t x);
    // The smaller root becomes the parent, so a component's root is its smallest member
    // whatever the order of the unions.
    void unite(uint32_t a, uint32_t b);
    // Hints that x's parent will be read soon: a pass over pairs sorted by their first document
    // reads the second one's at random, and a prefetch a few pairs ahead turns those cache
    // misses from latency into bandwidth.
    void prefetch(uint32_t x) const { __builtin_prefetch(parent_.data() + x); }
    // Every element's root, in one pass; the structure is used up.
    std::vector<uint32_t> roots() &&;

  private:
    std::vector<uint32_t> parent_;
};

// True when the pair counts as a duplicate at `threshold`: its exact Jaccard when it was
// verified, its estimated Jaccard (matches / hashes) otherwise.
bool isDuplicate(const ScoredPair& p, int hashes, double threshold);

// The keep order: true when document x comes before y under `policy`. A total order on
// documents: the policy's key first (input position; more characters; a numeric field value
// before none, then the larger value), then input order, so ties go to the earliest document.
bool keepRather(KeepPolicy policy, const DocumentTable& docs, uint32_t x, uint32_t y);

// A pair of document indices (a < b) that must not be joined, sorted.
using DocPair = std::pair<uint32_t, uint32_t>;

// Clusters the documents from the duplicate pairs, picks each cluster's representative (its
// first member in keep order) and decides the removals by `rule` (decideRemovals). Fills
// clusterOf, representative, removedFor and the counts duplicatePairs, clusters, kept, removed
// and chainedRemovals of `run`, and clears keepAll. Pairs listed in `excluded` (sorted; "not a
// duplicate" decisions) are neither joined, nor witnesses, nor counted.
void clusterDocuments(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                      KeepPolicy policy, DecideRule rule, const DocumentTable& docs, RunResult& run,
                      std::span<const DocPair> excluded = {});

// The first half of clusterDocuments: union-find, clusterOf, representative, the counts
// duplicatePairs and clusters; keepAll, removedFor and chained cleared.
void clusterComponents(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                       KeepPolicy policy, const DocumentTable& docs, RunResult& run,
                       std::span<const DocPair> excluded = {});

// The second half: fills removedFor, chained and the counts kept, removed and chainedRemovals
// from the clustering in `run` (clusterOf, representative, keepAll) and the duplicate pairs
// (the pairs that are duplicates at `threshold`, less `excluded`).
//   Witness: the members of each cluster are visited in keep order, the representative first
//     (it is first in keep order unless a "keep this one instead" decision chose it); a member
//     is removed when it forms a duplicate pair with a member already kept, and its witness is
//     the earliest such member in visiting order; otherwise it is kept.
//   Components: every member but the representative is removed for the representative.
// Members of a cluster kept whole (keepAll) are kept either way. The result depends only on the
// pairs as a set, never on their order (nor on threads, workers or ranks). Cost: one pass over
// the pairs for --keep first when they are sorted by (a, b) and no representative was moved;
// otherwise one pass decides every document with a pair with its representative (or a copy of
// it), which is removed for the representative, and only the others are visited: a radix sort
// of them by a keep key precomputed per document, a pass over the pairs and a radix sort of one
// rank pair per duplicate pair between them (radix_sort.h).
void decideRemovals(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                    std::span<const DocPair> excluded, KeepPolicy policy, DecideRule rule,
                    const DocumentTable& docs, RunResult& run);

// Recounts run.counts.kept and removed from clusterOf, representative, removedFor and keepAll.
void countRemovals(RunResult& run);

// The stored pair of documents x and y in `pairs` (sorted by (a, b)), or nullptr.
const ScoredPair* findPair(const std::vector<ScoredPair>& pairs, uint32_t x, uint32_t y);

// The duplicate pair (at the run's threshold) of a removed document and the kept document it
// is removed for, looked up in `pairs` (the run's, sorted by (a, b)): its witness pair. For a
// signature copy (run.copyOf) whose pair is stored with its copy only, the pair of the copy and
// the witness, with the document put in (same estimate; its exact Jaccard when each of the two
// has its leader's very shingle set, a copy pair verified at exact 1, else unknown, -1). Empty when
// doc is not removed, or when the components rule removes it without one (chained).
std::optional<ScoredPair> witnessPair(const RunResult& run, const std::vector<ScoredPair>& pairs,
                                      uint32_t doc);

// Every stored pair witnessPair may look up for the run's removed documents, as a << 32 | b
// (a < b), ascending and distinct: each removed document with the document it is removed for,
// and for signature copies their leaders, and (in a run verifying every pair) each of the two
// with its leader. A run's outputs need no other pair.
std::vector<uint64_t> witnessPairKeys(const RunResult& run);

}  // namespace neardup
