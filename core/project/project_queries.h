// Read-only queries over a project file for the workbench's views: runs, paged and sorted
// cluster listings, cluster members and pairs, bucket statistics, document locations. Opens
// its own read-only connection, so it never takes the write lock a running pipeline needs.
//
// Clusters are shown as audited (core/project/decisions.h): a stored cluster holding a document
// named by a decision is replaced by its pieces, re-clustered from its stored pairs with the
// decisions (in this connection's temp schema). The first piece keeps the stored cluster's
// number; further pieces of a split are numbered (the run's cluster count + their smallest
// member). Work per decision is proportional to the clusters it reaches, not to the run. A
// decision recorded through another connection shows at the next call.
//
// At another threshold than the run's own (ClusterFilter::threshold: the workbench's threshold
// slider), the listing is the whole run re-clustered from its stored pairs at that threshold,
// with the run's removal rule and the decisions (clusterWithDecisions, as `neardup export` and a
// run at that threshold reusing these pairs decide); clusters are then numbered 0, 1, ... in
// the order of their smallest member. Members, pairs, the cluster of a document and the
// clustered documents follow the threshold of the run's latest listing.
//
// Not thread-safe (one instance per thread); interrupt() alone may be called from any thread.
// A missing project, run or dataset throws QueryError; a failing statement (an interrupted one
// included) throws StoreError, as everywhere in the project's data-access layer.
//
// Split by job: project_queries.cpp (opening, runs, datasets, documents, decisions, bucket
// statistics) and project_queries_clusters.cpp (the audited cluster listing).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "audit_rows.h"
#include "component_diameter.h"
#include "decisions.h"
#include "document_fetcher.h"
#include "document_table.h"
#include "notable_components.h"
#include "params.h"
#include "run_result.h"
#include "witness_chain.h"

namespace neardup {

namespace sql {
class Database;
}

class QueryError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// What the views need to know about a run, from its row in `runs`: its counts as the run stored
// them (those counted from the document table, duplicateIds and fileLineIds, stay 0), who it
// is and how it was run.
struct RunInfo : RunCounts {
    int64_t runId = 0;
    int64_t datasetId = 0;
    std::string status;
    RunParams params;  // reader fields, signature, LSH and compare parameters, keep, decide
    uint64_t resolvedBuckets = 0;
    // A run against a reference (`neardup run --reference`): documents [0, referenceDocuments)
    // are the reference's, never removed.
    bool reference(uint64_t doc) const { return doc < referenceDocuments; }
};

// The inputs of a dataset, enough to read its documents back.
struct DatasetSource {
    int64_t datasetId = 0;
    std::vector<InputFile> files;
    ReaderOptions reader;
    uint64_t documents = 0;
};

enum class ClusterSort {
    Cluster,
    Size,
    Representative,
    MinEstimated,
    MeanEstimated,
    MinExact,
    Decision,
    // Lowest estimated Jaccard with the representative (component_chain.h); needs the
    // listing's diameters stored first (listingDiameters), unknown ones (NULL) first ascending.
    Diameter
};

struct ClusterFilter {
    std::string idSearch;      // substring of any member's id (case-sensitive); empty = all
    uint64_t minSize = 0;      // clusters with at least this many members
    bool decidedOnly = false;  // clusters shaped by a decision (ClusterRow::decisions != 0)
    // Clusters flagged as a chain or a large component (ComponentDiameter::flagged); needs the
    // listing's diameters stored first (listingDiameters).
    bool flaggedOnly = false;
    // Clusters with a member from the run's reference (RunInfo::referenceDocuments): those whose
    // representative is a reference document, since the reference comes first in keep order
    // under every policy and no decision keeps a new document in its place.
    bool referenceOnly = false;
    // Clusters with a member among these documents (e.g. a text search's matches); null = all.
    std::shared_ptr<const std::vector<uint32_t>> documents = nullptr;
    // The threshold to cluster at; NaN: the run's own (its stored clustering).
    double threshold = std::numeric_limits<double>::quiet_NaN();
};

struct ClusterRow {
    int64_t cluster = 0;
    uint64_t size = 0;
    uint32_t representative = 0;  // document index
    std::string representativeId;
    // Over the stored pairs with both members in the cluster: estimated Jaccard
    // (matches / hashes) and, when the run verified pairs, exact Jaccard; NaN when none.
    uint64_t pairs = 0;
    double minEstimated = 0, meanEstimated = 0;
    double minExact = 0, meanExact = 0;
    uint8_t decisions = 0;   // DecisionMark bits (core/project/decisions.h); 0 when none shaped it
    bool reference = false;  // the representative is a reference document: the cluster matched
                             // the reference (ClusterFilter::referenceOnly)
};

struct ClusterMember {
    uint32_t docIndex = 0;
    std::string docId;
    bool representative = false;
    bool kept = false;        // not removed: the representative, a member without a kept duplicate
                              // under the witness rule, or any member of a cluster kept whole
    int64_t removedFor = -1;  // the kept document it is removed for (its witness under the
                              // witness rule, the representative under components); -1 if kept
    bool keptWhole = false;   // its cluster is kept whole by a "keep all" decision
    bool reference = false;   // a document of the run's reference: never removed (kept is true)
    uint32_t chars = 0;       // normalized code points
    DocumentLocation location;
};

// Review progress of a run: of its clusters as listed (at the working threshold, with the
// decisions), those a person has looked at: a member is named by a decision of any kind
// (confirmed duplicate included) or is in a pair given a verdict in one of the run's sampled
// audits.
struct ReviewProgress {
    uint64_t reviewed = 0;
    uint64_t clusters = 0;
};

// The diameters of a listing's components (component_chain.h), and why they are unknown (NaN)
// when the run's signatures are not cached ("" when they are known).
struct StoredDiameters {
    std::vector<ComponentDiameter> components;
    std::string why;
};

struct BandRow {
    int band = 0;
    uint64_t buckets = 0, multiBuckets = 0;
    double meanSize = 0, stddevSize = 0;
    uint64_t maxSize = 0, comparisons = 0, outlierCount = 0;
};

struct HistogramBin {
    int bin = 0;
    uint64_t sizeMin = 0, sizeMax = 0;  // inclusive bucket sizes
    uint64_t count = 0;                 // buckets with a size in [sizeMin, sizeMax]
};

struct OutlierRow {
    int band = 0;
    uint64_t key = 0;
    uint64_t size = 0;
    uint64_t comparisons = 0;
    double share = 0;  // comparisons / all comparisons of the run (every band)
};

struct SizeMoments {
    double mean = 0, stddev = 0;
    uint64_t buckets = 0;
};

class ProjectQueries {
  public:
    // Opens `path` read-only; throws QueryError when it is missing or not a project.
    explicit ProjectQueries(const std::string& path);
    ~ProjectQueries();
    ProjectQueries(const ProjectQueries&) = delete;
    ProjectQueries& operator=(const ProjectQueries&) = delete;

    // All runs, oldest first.
    std::vector<int64_t> runIds();
    RunInfo runInfo(int64_t runId);
    DatasetSource datasetSource(int64_t datasetId);
    DocumentLocation documentLocation(int64_t datasetId, uint32_t docIndex);
    std::string documentId(int64_t datasetId, uint32_t docIndex);

    // Clusters of a run, a page at a time. The first call for a run builds a per-connection
    // summary (one pass over the run's pairs), so later pages and sort orders are index walks.
    uint64_t clusterCount(int64_t runId, const ClusterFilter& filter);
    std::vector<ClusterRow> clusters(int64_t runId, const ClusterFilter& filter, ClusterSort sort,
                                     bool descending, uint64_t offset, uint64_t limit);
    // Members in document order; pairs with both ends in the cluster, in (a, b) order. A limit
    // of 0 means all (a giant cluster can have millions of pairs).
    std::vector<ClusterMember> clusterMembers(int64_t runId, int64_t cluster, uint64_t limit = 0);
    std::vector<PairRow> clusterPairs(int64_t runId, int64_t cluster, uint64_t limit = 0);
    // Every member of every cluster listed at `threshold` (as in ClusterFilter; audited pieces
    // in place of the clusters a decision reached), grouped by cluster, in document order
    // within each: what the components' diameters are measured over (component_chain.h).
    std::vector<ListingMember> listingMembers(
        int64_t runId, double threshold = std::numeric_limits<double>::quiet_NaN());
    // The diameters of the components listed at `threshold`, kept beside the listing so that it
    // sorts (ClusterSort::Diameter) and filters (ClusterFilter::flaggedOnly) by them:
    // storeDiameters keeps those measured over listingMembers (and why they are unknown, when
    // the run's signatures are not cached); storedDiameters reads them back in cluster order,
    // nullopt when none are stored for the listing as it is now (another threshold, a decision
    // since). What measures them is component_chain.h's listingDiameters.
    void storeDiameters(int64_t runId, double threshold, const StoredDiameters& diameters);
    std::optional<StoredDiameters> storedDiameters(int64_t runId, double threshold);

    std::vector<BandRow> bandStats(int64_t runId);
    // Bucket-size histogram of one band, or of all bands summed when band < 0.
    std::vector<HistogramBin> histogram(int64_t runId, int band);
    // Stored outlier buckets of one band (or all when band < 0), largest first.
    std::vector<OutlierRow> outliers(int64_t runId, int band);
    // Mean and standard deviation of bucket sizes of one band, or pooled over all bands.
    SizeMoments bucketSizeMoments(int64_t runId, int band);

    // The dataset's audit decisions, oldest first.
    std::vector<Decision> decisions(int64_t datasetId);
    // The cluster holding a document (as listed: audited when there are decisions), or -1.
    int64_t clusterOfDocument(int64_t runId, uint32_t docIndex);
    // Every clustered document of the run with its location, in document (input) order: what a
    // text search reads.
    std::vector<std::pair<uint32_t, DocumentLocation>> clusteredDocuments(int64_t runId);

    // Review progress of the run's listing at `threshold` (NaN: the run's own).
    ReviewProgress reviewProgress(int64_t runId,
                                  double threshold = std::numeric_limits<double>::quiet_NaN());
    // The run's latest sampled audit with its verdicts; none when it has none.
    std::optional<StoredAudit> latestAudit(int64_t runId);

    // Aborts the statement running on another thread (it then throws QueryError).
    void interrupt();

  private:
    // The listing of a run: the stored clusters, except those reached by a decision, which
    // are replaced by their audited pieces (temp.adj_*; listed in temp.touched).
    struct RunView {
        bool built = false;
        double threshold = 0;             // the listing's threshold
        bool whole = false;               // re-clustered whole at another threshold
        std::vector<Decision> decisions;  // those the listing was built with
        std::set<int64_t> touched;        // stored clusters replaced by pieces
        // Why the listing's diameters are unknown ("" when known), once they are stored in
        // temp.cluster_summary; nullopt until then, and again whenever the listing changes.
        std::optional<std::string> diametersWhy;
        int64_t storedClusters = 0;  // pieces other than the first: this + smallest member
        bool audited(int64_t cluster) const {
            return whole || cluster >= storedClusters || touched.count(cluster) > 0;
        }
    };
    // The listing of a run at `threshold` (NaN: the run's own; nullopt: the latest listing's).
    RunView& ensureClusterSummary(int64_t runId, std::optional<double> threshold = std::nullopt);
    void buildWholeRun(const RunInfo& run, double threshold, const std::vector<Decision>& list,
                       RunView& v);
    void insertSummary(const RunInfo& run, bool adjusted, const std::string& only);
    void buildPieces(const RunInfo& run, int64_t cluster, int64_t storedClusters,
                     const std::vector<Decision>& list);
    void useDocumentFilter(const ClusterFilter& f);

    std::unique_ptr<sql::Database> db_;
    std::string path_;
    std::map<int64_t, RunView> views_;
    std::shared_ptr<const std::vector<uint32_t>> filterDocuments_;  // now in temp.filter_docs
};

}  // namespace neardup
