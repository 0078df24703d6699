// Accuracy against exact Jaccard (`neardup eval`) and the exact similarity join that produces
// ground truth for any corpus (`neardup truth`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus_generator.h"
#include "params.h"

namespace neardup {

struct ClusterMember {
    std::string id;
    uint64_t cluster = 0;
    bool representative = false;
};

// Reads --out-clusters JSONL ({"id": ..., "cluster": N, "representative": bool}); throws
// std::runtime_error naming file and line on bad input.
std::vector<ClusterMember> readClusters(const std::string& path);

struct EvalResult {
    double threshold = 0.8;
    // The papers' metric (FED Table 3): documents having at least one near-duplicate.
    uint64_t truthDocuments = 0, predictedDocuments = 0, commonDocuments = 0;
    double documentJaccard = 0, documentPrecision = 0, documentRecall = 0;
    // Pair level: truth pairs >= threshold vs pairs of documents sharing a predicted cluster.
    uint64_t truthPairs = 0, predictedPairs = 0, commonPairs = 0;
    double pairPrecision = 0, pairRecall = 0;
};

EvalResult evaluate(const GroundTruth& truth, const std::vector<ClusterMember>& clusters,
                    double threshold);
std::string toJson(const EvalResult& r);

// Exact all-pairs similarity join over the documents' shingle sets (prefix filtering, so it
// is far cheaper than N^2): every pair with exact Jaccard >= floor. Documents are given as ids
// and UTF-8 texts; shingling follows `truth`'s shingle kind, ngram and normalization.
void exactJoin(const std::vector<std::string>& ids, const std::vector<std::string>& texts,
               GroundTruth& truth, int threads);

}  // namespace neardup
