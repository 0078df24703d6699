// The diameter of a component: the lowest estimated Jaccard (equal signature positions / H, the
// estimate the run compared with) between any member and the component's representative,
// measured over the run's signature rows (exact for that estimate, one row comparison per
// member). A star of near-duplicates around its representative has a diameter near θ or above;
// a chain has one far below it. Where the rows come from (the project's signature cache, a spill
// file) is the caller's: core/project's component_chain.h reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "notable_components.h"
#include "run_result.h"
#include "signatures.h"

namespace neardup {

// The diameter under which a component is a chain: θ − 3·sqrt(θ(1 − θ)/H), the low end of the
// borderline band of --verify borderline (0.694 at θ = 0.8, H = 128): below it the estimate
// says, beyond its noise, that the farthest member is not a near-duplicate of the representative.
double chainBelow(double threshold, int hashes);

// The most members' rows read at a time when diameters are measured from the signature cache.
constexpr std::size_t kDiameterBlockRows = 65536;  // 32 MiB of rows at H = 128

// How many members' signature rows notableComponents reads at a time: an eighth of
// `memoryBudget` (the run's, resolved) in rows of `hashes` values, at least 1 and at most
// kDiameterBlockRows; kDiameterBlockRows when the budget is 0 (unknown).
std::size_t diameterBlockRows(uint64_t memoryBudget, int hashes);

// Reads the signature rows of documents `docs` (ascending and distinct) into `values`
// (docs.size() * H); false when a row cannot be read.
using SignatureRowSource =
    std::function<bool(const std::vector<uint32_t>& docs, std::vector<uint32_t>& values)>;

// One member of a listed cluster, with its cluster's representative (core/project's
// ProjectQueries::listingMembers()).
struct ListingMember {
    int64_t cluster = 0;
    uint32_t doc = 0;
    uint32_t representative = 0;
};

// Signature rows held in memory, the whole matrix of a run or the rows of some documents, and the
// similarities and diameters measured over them.
class DiameterRows {
  public:
    // Every document's row.
    void holdAll(SignatureMatrix signatures);
    // The rows of the documents `docs` (sorted), in that order, `hashes` values each.
    void holdSome(int hashes, std::vector<uint32_t> values, std::vector<uint32_t> docs);
    void clear();
    bool loaded() const { return !signatures_.values.empty(); }

    // Estimated Jaccard of two documents from their rows; NaN when either is not held.
    double similarity(uint32_t a, uint32_t b) const;

    // One entry per cluster of `members` (grouped by cluster), in that order, with its size, its
    // farthest member and diameter (NaN when no member's row is held), flagged large or a chain
    // (a diameter below `below`).
    std::vector<ComponentDiameter> measure(const std::vector<ListingMember>& members,
                                           double below) const;

  private:
    // The row of document d (rows_ empty: the whole matrix is held), or nullptr.
    const uint32_t* rowOf(uint32_t d) const;

    SignatureMatrix signatures_;
    std::vector<uint32_t> rows_;  // with holdSome: the documents of signatures_'s rows, sorted
};

// The diameter and farthest member of component `c` (its representative set) over its members
// `docs[0 .. count)`, in document order: the representative's row read once, then the other
// members' rows at most `blockRows` at a time; a tie keeps the first farthest member, as comparing
// them all at once would. False when a row cannot be read. `held`: the most rows held at once.
bool measureComponent(const SignatureRowSource& read, int hashes, const uint32_t* docs,
                      std::size_t count, std::size_t blockRows, ComponentDiameter& c,
                      uint64_t& held);

// The size and chain flags of measured components, against the chain threshold `below`.
void flagComponents(std::vector<ComponentDiameter>& list, double below);
// No diameter for any component rather than some, when a row could not be read.
void forgetDiameters(std::vector<ComponentDiameter>& list);

// The members of some components of a run, grouped by component, each group in document order:
// component k's are docs[begin[k], begin[k + 1]). One array, 4 bytes a member.
struct MemberLists {
    std::vector<uint32_t> docs;
    std::vector<std::size_t> begin;
};

// Every component of `run` into `components`, largest first (ties: cluster order), sizes and
// representatives set, not yet measured (farthest: the representative); returns their members.
MemberLists componentsBySize(const RunResult& run, std::vector<ComponentDiameter>& components);

// Each of `components` (sizes and representatives set) measured by measureComponent over its
// member list in `members`; false when a row cannot be read. With `threads` above 1, by that
// many threads at once (`read` must then be safe to call from several), each reading blocks of
// blockRows / threads rows: the same diameters, and `held` the most rows all of them held.
bool measureInBlocks(const SignatureRowSource& read, int hashes, const MemberLists& members,
                     std::size_t blockRows, std::vector<ComponentDiameter>& components,
                     uint64_t& held, int threads = 1);

// Of `components` (largest first), the `few` largest and every flagged one, still largest first.
std::vector<ComponentDiameter> namedComponents(const std::vector<ComponentDiameter>& components,
                                               std::size_t few);

// The components to name after a run, measured from `read` alone (no project): every
// component of `run` measured a block of `blockRows` rows at a time (0: diameterBlockRows of the
// run's budget), flagged, and the `few` largest and every flagged one named. When a row cannot
// be read, no component has a diameter and `unreadable` is set; the caller says why.
// `threads`: as measureInBlocks. `held`: the most rows held at once.
NotableComponents measureNotableComponents(const RunResult& run, const SignatureRowSource& read,
                                           std::size_t blockRows, std::size_t few, int threads,
                                           uint64_t& held, bool& unreadable);

}  // namespace neardup
