// How two runs over the same dataset differ in outcome: the documents the second run removes
// that the first kept, and those the first removed that the second keeps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace neardup {

struct RunDiffRow {
    uint32_t docIndex = 0;
    std::string docId;
    int64_t clusterA = -1;  // cluster of the document in run A, -1 when in none
    int64_t clusterB = -1;  // in run B
    // The kept document the document is removed for in the run that removes it: its witness,
    // or under the components rule its cluster's representative.
    uint32_t representative = 0;
    std::string representativeId;
};

struct RunDiff {
    int64_t runA = 0, runB = 0, datasetId = 0;
    uint64_t documents = 0;
    uint64_t removedA = 0, removedB = 0;      // documents each run removes
    uint64_t removedBoth = 0;                 // removed by both runs
    std::vector<RunDiffRow> newlyRemoved;     // removed by B, kept by A; in document order
    std::vector<RunDiffRow> noLongerRemoved;  // removed by A, kept by B; in document order
};

// Compares the outcomes (which documents each run removes, and for which kept document) of two
// finished runs of the project at `projectPath`, with set operations in SQL over
// cluster_members (its removed_for column; one indexed pass
// per direction, whatever the number of documents), on a read-only connection of its own. When
// the dataset has audit decisions (core/project/decisions.h), which are applied as runs are loaded,
// both runs are loaded with them and compared in one pass instead, so the diff is what their
// exports would differ by. Throws std::runtime_error when a run is missing or unfinished, or when
// the runs read different datasets (their document numbers would not correspond).
RunDiff diffRuns(const std::string& projectPath, int64_t runA, int64_t runB);

}  // namespace neardup
