// The chain of a component, for the workbench's cluster view: which kept document vouches for
// which removal, drawn as a tree, so that users spot a chain of near-duplicates (documents
// linked only through the documents between them) before exporting.
//
// The tree: the representative is the root; under each kept member hang the removals it is the
// witness of (ChainMember::removedFor), each with the stored pair's Jaccard; under a removed
// member hang the kept members the cluster reaches only through it (no two kept documents form
// a duplicate pair under the witness rule, so a kept member other than the representative is
// always linked through a removed one). Under the components rule every removal hangs under the
// representative, and one without a stored pair with it is marked as a chained removal.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace neardup {

// A member of the cluster, as the tree needs it.
struct ChainMember {
    uint32_t docIndex = 0;
    bool representative = false;
    bool kept = false;
    int64_t removedFor = -1;  // the kept document it is removed for; -1 if kept
};

// A stored pair of the cluster's members.
struct PairRow {
    uint32_t a = 0, b = 0;  // document indices, a < b
    uint32_t matches = 0;
    double estimated = 0;
    double exact = 0;           // NaN when not verified
    bool notDuplicate = false;  // a decision says the two are not duplicates (still linked)
};

struct ChainNode {
    uint32_t doc = 0;
    int parent = -1;  // index of the parent node in the list; -1 for the root(s)
    int depth = 0;
    bool kept = false;
    bool representative = false;
    // The stored pair with the parent: estimated and exact Jaccard (NaN when not verified).
    // False for a removal hanging under a document it has no stored pair with (the
    // components rule's chained removals, or a pair beyond the pairs loaded).
    bool linked = false;
    double estimated = std::numeric_limits<double>::quiet_NaN();
    double exact = std::numeric_limits<double>::quiet_NaN();
};

// The tree of one cluster's members (in document order), in pre-order (a parent before its
// children, children in document order), each member once. Only the pairs that are duplicates
// at `threshold` (the listing's: isDuplicate(), the exact Jaccard when verified) and not marked
// "not a duplicate" link members. Members not reached from the representative through them (a
// truncated listing) hang under any placed member they are linked to, else are further roots.
std::vector<ChainNode> witnessChain(const std::vector<ChainMember>& members,
                                    const std::vector<PairRow>& pairs, int hashes,
                                    double threshold);

}  // namespace neardup
