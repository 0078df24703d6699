// Audit decisions: what a person decided about clusters in the workbench, recorded per dataset
// in the project (table `decisions`, docs/reference/project-format.md), and applied to a run's
// clustering on top of its stored pairs. Every export of a stored run honours them
// (ProjectStore::loadRun applies them; decision_rows.h maps the table), and so does the workbench's
// clusters table and threshold slider.
//
//   not_duplicate(a, b)  the pair's edge is removed before union-find: the cluster may split in
//                        two or more (a and b stay together when other pairs still link them),
//                        and neither is the other's witness;
//   keep_instead(a)      a becomes the representative of the cluster holding it: kept, and
//                        under the witness rule visited first, so the other members' witnesses
//                        are found again (a removal whose witness is now removed finds another
//                        kept duplicate, or is kept);
//   keep_all(a)          no member of the cluster holding a is removed;
//   confirmed_duplicate(a, b)  a verdict, not a change: a person looked at the pair and agrees
//                        it is a duplicate. It changes no clustering and no removal (exports
//                        ignore it), and counts the clusters holding a or b as reviewed.
//
// Later decisions win: of several keep_instead / keep_all decisions about one (adjusted)
// cluster, the most recent one decides. A decision about documents that are not clustered
// (say, at another threshold) has no effect.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "document_table.h"
#include "run_result.h"

namespace neardup {

class ProjectStore;

enum class DecisionKind : uint8_t { NotDuplicate, KeepInstead, KeepAll, ConfirmedDuplicate };

// "not_duplicate", "keep_instead", "keep_all", "confirmed_duplicate"
const char* toString(DecisionKind kind);
std::optional<DecisionKind> parseDecisionKind(std::string_view name);
// A decision about a pair (a < b): not_duplicate and confirmed_duplicate.
bool isPairDecision(DecisionKind kind);
// Whether the decision can change a clustering or a removal (confirmed_duplicate cannot).
bool shapesClusters(DecisionKind kind);

struct Decision {
    int64_t id = 0;  // recording order: a higher id is a later decision
    DecisionKind kind = DecisionKind::KeepAll;
    uint32_t a = 0;
    uint32_t b = 0;  // the other document of a pair decision (a < b); 0 otherwise
    std::string createdAt;
};

// Per-cluster marks of the decisions that shaped it (bit set).
enum DecisionMark : uint8_t {
    kMarkSplit = 1,        // a not_duplicate decision removed an edge of it
    kMarkKeepInstead = 2,  // its representative was chosen by a keep_instead decision
    kMarkKeepAll = 4,      // a keep_all decision keeps every member
};

// The store's decision API (ProjectStore::recordDecision, decisions, undoDecision), as free
// functions for the call sites that predate it. recordDecision returns the new decision's id;
// a pair decision is stored with a < b (the order given does not matter). It throws
// StoreError when the documents are not in the dataset or a pair decision names one document
// twice.
int64_t recordDecision(ProjectStore& store, int64_t datasetId, DecisionKind kind, uint32_t a,
                       uint32_t b = 0);
// The dataset's decisions, oldest first.
std::vector<Decision> listDecisions(const ProjectStore& store, int64_t datasetId);
// Deletes decision `decisionId`, or the latest one of the dataset when 0; returns what was
// deleted, or nothing when there was none.
std::optional<Decision> undoDecision(ProjectStore& store, int64_t datasetId,
                                     int64_t decisionId = 0);

struct AppliedDecisions {
    uint64_t applied = 0;               // decisions that changed or fixed something
    std::vector<uint8_t> clusterMarks;  // per cluster of the result: DecisionMark bits
};

// Clusters `pairs` at `threshold` like clusterDocuments (core/lsh/clustering.h), honouring
// `decisions` (in any order; ids decide which is later), and decides removals by `rule`: fills
// run.clusterOf, representative, keepAll, removedFor, counts (duplicatePairs, clusters, kept,
// removed, chainedRemovals) and decisionsApplied. Pure.
AppliedDecisions clusterWithDecisions(const std::vector<ScoredPair>& pairs, int hashes,
                                      double threshold, KeepPolicy policy, DecideRule rule,
                                      const DocumentTable& docs,
                                      const std::vector<Decision>& decisions, RunResult& run);

// Re-clusters a loaded run (its pairs, threshold, keep policy) with the dataset's decisions.
// `docs` needs chars and keepValue for the policy. Leaves the run untouched when there are none.
void applyDecisions(const std::vector<Decision>& decisions, const DocumentTable& docs,
                    RunResult& run);

// A copy of `run` (all but its pairs) re-clustered from run.pairs with `decisions`: what the
// pipeline exports for a dataset that has decisions, while it stores the run as clustered.
RunResult withDecisions(RunResult& run, const std::vector<Decision>& decisions,
                        const DocumentTable& docs);

}  // namespace neardup
