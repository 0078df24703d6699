// Strategy control for the exact similarity join declared in evaluation.h (for tests and
// benchmarks; the public exactJoin uses Auto).
#pragma once

#include <string>
#include <vector>

#include "corpus_generator.h"

namespace neardup {

enum class JoinStrategy {
    Auto,    // estimate both costs on a sample of documents and take the cheaper
    Prefix,  // inverted index over prefixes (AllPairs/PPJoin): best for high floors, rare tokens
    Scan,    // every size-compatible pair through a bitmap filter: best for low floors on text
             // whose rarest half of shingles is still common (character 5-grams at 0.5)
};

// Returns the strategy actually used (never Auto).
JoinStrategy exactJoin(const std::vector<std::string>& ids, const std::vector<std::string>& texts,
                       GroundTruth& truth, int threads, JoinStrategy strategy);

const char* toString(JoinStrategy s);

}  // namespace neardup
