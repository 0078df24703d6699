// Union-find over duplicate pairs, and the choice of one representative per cluster.
#pragma once

#include <cstdint>
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

  private:
    std::vector<uint32_t> parent_;
};

// True when the pair counts as a duplicate at `threshold`: its exact Jaccard when it was
// verified, its estimated Jaccard (matches / hashes) otherwise.
bool isDuplicate(const ScoredPair& p, int hashes, double threshold);

// True when document x should be kept rather than y under `policy` (ties go to the earliest).
bool keepRather(KeepPolicy policy, const DocumentTable& docs, uint32_t x, uint32_t y);

// A pair of document indices (a < b) that must not be joined, sorted.
using DocPair = std::pair<uint32_t, uint32_t>;

// Clusters the documents from the duplicate pairs and picks representatives by `policy`
// (ties go to the earliest document). Fills clusterOf, representative and the counts
// duplicatePairs, clusters, kept, removed of `run`, and clears keepAll. Pairs listed in
// `excluded` (sorted; "not a duplicate" decisions) are neither joined nor counted.
void clusterDocuments(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                      KeepPolicy policy, const DocumentTable& docs, RunResult& run,
                      std::span<const DocPair> excluded = {});

// Recounts run.counts.kept and removed from clusterOf, representative and keepAll.
void countRemovals(RunResult& run);

}  // namespace neardup
