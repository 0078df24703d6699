// The clustering step on its own (`neardup bench --clustering DOCS`): union-find and the two
// removal rules timed on synthetic duplicate pairs, so that their cost at millions of documents
// can be measured without generating and signing a corpus of that size first; or on the pairs a
// stored run found (`--clustering-from PROJECT`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "document_table.h"
#include "run_result.h"

namespace neardup {

// One timed case: a keep policy (first, longest, max:FIELD), with or without exact signature
// copies among the pairs, and what was timed ("union-find" alone, or the whole step under the
// "witness" or "components" rule).
struct ClusteringBenchmarkRow {
    std::string keep;  // first, longest or max:FIELD
    bool copies = false;
    std::string step;
    uint64_t documents = 0;
    uint64_t pairs = 0;
    uint64_t removed = 0;
    double medianSeconds = 0;
    // The process's CPU time, median of the runs: on a machine shared with other work the wall
    // time also counts the moments the benchmark waited for a core, the CPU time does not.
    double medianCpuSeconds = 0;
};

// Synthetic pairs over `documents` documents (lengths and field values drawn at random, with
// ties): three quarters of them in stars (2–20 members), chains (2–30, each version a duplicate
// of the two before it) and cliques (2–8), members scattered over the input as in a real corpus,
// estimates between 0.86 and 0.99 at 128 hashes, and one pair in ten an exact copy in the
// "copies" cases. Each case runs `repeat` times; the median wall and CPU times are reported.
// Single-threaded, like the pipeline's union phase.
std::vector<ClusteringBenchmarkRow> runClusteringBenchmark(uint32_t documents, int repeat,
                                                           uint64_t seed);

// The same cases on a stored run's duplicate pairs and documents (`neardup bench
// --clustering-from PROJECT`): the step on a real corpus's duplicate structure, which plants
// near-duplicates mostly around one original, where the synthetic pairs make a third of their
// clusters chains. max:FIELD only when some document has a field value; "copies" says whether
// any pair is one of identical signatures.
std::vector<ClusteringBenchmarkRow> runClusteringBenchmarkOn(const std::vector<ScoredPair>& pairs,
                                                             const DocumentTable& docs, int hashes,
                                                             double threshold, int repeat);

// A Markdown table of the rows, with each step's time relative to union-find alone.
std::string clusteringBenchmarkTable(const std::vector<ClusteringBenchmarkRow>& rows);

}  // namespace neardup
