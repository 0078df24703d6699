// The chains and diameters of a stored run's components, read from the project: the chain tree
// of a listed cluster (witness_chain.h of core/lsh) over its members and pairs as the workbench's
// queries list them, and the diameters (component_diameter.h of core/lsh) over the signature rows
// of the run's cache, for the workbench's listing and for the components a run names.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "component_diameter.h"
#include "notable_components.h"
#include "project_queries.h"
#include "project_store.h"
#include "run_result.h"
#include "witness_chain.h"

namespace neardup {

// witnessChain() over a cluster's members as ProjectQueries::clusterMembers lists them (in
// document order) and its pairs (clusterPairs).
std::vector<ChainNode> witnessChain(const std::vector<ClusterMember>& members,
                                    const std::vector<PairRow>& pairs, int hashes,
                                    double threshold);

// The signatures of a run, loaded once, and the diameters of its components.
class ComponentDiameters {
  public:
    // Loads the run's signatures from the project's signature cache. False, with why() set, when
    // they are not cached (a run that spilled, a cleared sidecar directory); then diameters are
    // NaN and only the size flags. Throws StoreError when the run does not exist.
    bool load(const ProjectStore& store, int64_t runId);
    // The same for the documents `docs` only (sorted), read row by row from the cache: what a
    // few components need, without a pass over the whole cache. Holds all their rows at once:
    // notableComponents reads big components a block at a time instead.
    bool loadRows(const ProjectStore& store, int64_t runId, const std::vector<uint32_t>& docs);
    int64_t runId() const { return runId_; }
    bool loaded() const { return rows_.loaded(); }
    const std::string& why() const { return why_; }

    // Estimated Jaccard of two documents from their signatures; NaN when not loaded.
    double similarity(uint32_t a, uint32_t b) const;

    // One entry per cluster of `members` (grouped by cluster, as ProjectQueries::listingMembers
    // gives them), in that order; a chain is flagged against `threshold` (the listing's; NaN:
    // the run's own).
    std::vector<ComponentDiameter> measure(
        const std::vector<ListingMember>& members,
        double threshold = std::numeric_limits<double>::quiet_NaN()) const;

    // measure(), reading the rows from the run's signature cache as it goes instead of from
    // load(): consecutive clusters whose members fit `blockRows` rows with one read, a larger
    // cluster its representative's row once and its other members' rows a block at a time, so
    // that a listing of millions of members (the workbench's) holds one block, never the whole
    // cache (2 GB at 4 M documents and H = 128). The same diameters
    // and farthest members as load() + measure() (members in document order; a tie keeps the
    // first); NaN diameters, with why() set, when the run's signatures are not cached. Nothing
    // stays loaded: similarity() needs load() or loadRows().
    std::vector<ComponentDiameter> measureFromCache(
        const ProjectStore& store, int64_t runId, const std::vector<ListingMember>& members,
        double threshold = std::numeric_limits<double>::quiet_NaN(),
        std::size_t blockRows = kDiameterBlockRows);

  private:
    // Reads the run's parameters; the row and cache key of the run.
    RunRow start(const ProjectStore& store, int64_t runId);
    void notCached(const RunRow& row);
    // The cached rows of `docs` (sorted) as the loaded rows; false when they cannot be read.
    bool readRows(const ProjectStore& store, const RunRow& row, const std::vector<uint32_t>& docs);

    int64_t runId_ = 0;
    int hashes_ = 0;
    double threshold_ = 0;  // the run's
    DiameterRows rows_;
    std::string why_;
};

// The diameters of every component listed at `threshold` (NaN: the run's own), measured over
// ProjectQueries::listingMembers from the run's signature cache (measureFromCache) the first
// time a listing asks, and kept in it (ProjectQueries::storeDiameters), so that the workbench
// sorts and filters the listing by them and measures each listing once; later calls read them
// back. In cluster order.
StoredDiameters listingDiameters(ProjectQueries& queries, const ProjectStore& store, int64_t runId,
                                 double threshold = std::numeric_limits<double>::quiet_NaN());

// Why a run has no diameters: its signatures are not in the project's cache (its sidecar folder
// was removed or cleared; or the run spilled to disk in a project without a file, whose cache
// would be one BLOB of the whole matrix).
std::string signaturesNotCachedWhy(bool spilled);

// The components to name after a run (`neardup run`'s summary on stderr, --summary-json, the
// HTML report): every component is measured, as the workbench's listing measures them, so that
// the three count the same chains; named are the `few` largest and every flagged one (a chain,
// or kLargeComponent members or more), largest first (ties: cluster order), with their
// diameters from the signature rows of their members alone (one read per member, not a pass
// over the cache; NaN, flagged by size only and diameterUnknown saying why, when the run's
// signatures are not cached). `run` is the finished run (clusterOf, representative); cluster is
// its index. Independent of the thread count: it reads only the run's clusters and its cached
// signatures. The measurement itself is measureNotableComponents (component_diameter.h).
//
// Memory: a component of 859,091 members has 440 MB of rows at H = 128, so its rows are never
// held together: each component's representative row is read once, then its other members'
// rows a block at a time (reading->blockRows; by default diameterBlockRows of the run's
// budget), so the measurement holds one block plus one row (at most an eighth of the budget)
// besides the chosen components' member lists (4 bytes a member, less than the run's own
// clusterOf). The cache is read through one open file (SignatureRowReader); an in-memory
// project (no -p), whose cache is in memory already, is decoded once whole instead. The result
// is the same for any block size: members are compared in document order and a tie keeps the
// first farthest member. `reading` (tests) sets the block and gets back the most rows held at
// once.
//
// `reading->rows`, when set, is where the rows come from instead of the project's cache: a run
// that spilled in a project without a file cached no signatures, so `neardup run` reads its
// members' rows from the spill file, still open at the run's end (run/export_phase.cpp). It
// gets documents ascending and distinct, and returns false when a row cannot be read.
struct DiameterReading {
    std::size_t blockRows = 0;    // in: members' rows read at a time; 0: diameterBlockRows
    uint64_t rowsHeldAtMost = 0;  // out: the most rows held at once; 0 when none were read
    SignatureRowSource rows;      // in: the rows' source; empty: the project's cache
};
NotableComponents notableComponents(const ProjectStore& store, const RunResult& run,
                                    std::size_t few = 3, DiameterReading* reading = nullptr);

}  // namespace neardup
