// Synthetic corpora with planted near-duplicates and exact ground truth (`neardup gen`).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "params.h"

namespace neardup {

struct GeneratorOptions {
    uint64_t documents = 1000;
    uint64_t seed = 1;
    double meanChars = 2600;          // mean document length in bytes (English-like text)
    double duplicateFraction = 0.35;  // share of documents that are planted variants
};

// A pair of documents with their exact Jaccard under the truth's shingling.
struct TruthPair {
    std::string a, b;  // document ids
    double jaccard = 0;
    std::string kind;  // how b was derived from a: copy, word_edits_3pct, sentence_drop, ...
};

struct GroundTruth {
    uint64_t documents = 0;
    ShingleKind shingle = ShingleKind::Char;
    int ngram = 5;
    NormalizeOptions normalize;
    double floor = 0.5;  // every pair with exact Jaccard >= floor is listed
    std::vector<TruthPair> pairs;
};

// Writes `documents` JSONL lines ({"id": "doc-000001", "text": ...}) to corpus and fills truth
// with every pair of exact Jaccard >= truth.floor (computed with the engine's own normalizer
// and shingler, so "exact" means exactly what --verify exact computes).
void generateCorpus(const GeneratorOptions& options, std::ostream& corpus, GroundTruth& truth);

void writeTruth(const GroundTruth& truth, std::ostream& out);  // JSON
GroundTruth readTruth(const std::string& path);                // throws std::runtime_error

}  // namespace neardup
