// Loading the pair of documents of a cluster for the side-by-side view (the workbench's
// comparison, in the clusters panel and the sampled audit): each document's text read back from
// the input files at its stored location and checked against its stored id, shortened when very
// long, the word diff as the run's matcher compared words, and the exact Jaccard, verified by the
// run or computed from the texts. Optionally, where each document stands in its cluster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "document_fetcher.h"
#include "project_queries.h"
#include "word_diff.h"

namespace neardup {

// Texts longer than this are shown shortened (at a character boundary): the diff and the text
// widget stay responsive.
inline constexpr std::size_t kPairDisplayBytes = 200 * 1024;

// As many members of a cluster as are read to find a document's standing (as many as the
// clusters panel lists of a giant cluster).
inline constexpr uint64_t kStandingMembersRead = 5000;

// Where a document stands in the run: its cluster and its row there, as the members list shows.
struct ClusterStanding {
    int64_t cluster = -1;                 // -1: in no cluster of the run
    std::optional<ClusterMember> member;  // none when it is not among the members read
    // The id of the member it is removed for, when that member is among those read.
    std::optional<std::string> witnessId;
};

struct PairDocument {
    uint32_t doc = 0;  // the document's number in its dataset
    std::string id;    // as read back; the stored id when it could not be read
    std::string text;  // UTF-8, shortened to kPairDisplayBytes when longer
    bool shortened = false;
    std::string error;         // why it could not be read back (unreadable or changed file, damaged
                               // row); empty when it was
    ClusterStanding standing;  // when asked for
};

struct PairToLoad {
    PairRow pair;  // documents a and b; with `stored`, its matches, estimate and exact Jaccard
    // `pair` is the run's stored pair; else its estimate is unknown and the exact Jaccard is
    // computed from the texts.
    bool stored = false;
    bool standings = false;  // also each document's ClusterStanding (a pair judged outside the
                             // clusters panel: the sampled audit)
};

struct DocumentPair {
    PairDocument a, b;
    bool notDuplicate = false;  // a decision says the two are not duplicates
    int hashes = 0;             // the run's signature length
    uint32_t matches = 0;
    double estimated = std::numeric_limits<double>::quiet_NaN();  // NaN: not a stored pair
    double exact = std::numeric_limits<double>::quiet_NaN();      // NaN: a text is unreadable
    bool exactStored = false;   // verified by the run, rather than computed from the texts
    WordDiff diff;              // of the (shortened) texts, words keyed as the run normalized them
    NormalizeOptions compared;  // how the diff compared words: the run's normalization
};

// `fetcher` reads `run`'s dataset (DocumentFetcher over queries.datasetSource(run.datasetId));
// one per thread. Throws QueryError for a project that cannot be queried; a document that cannot
// be read back is reported in its `error`, not thrown.
DocumentPair loadDocumentPair(ProjectQueries& queries, DocumentFetcher& fetcher, const RunInfo& run,
                              const PairToLoad& request);

// Where document `doc` stands in run `runId` (its cluster, row and witness's id).
ClusterStanding clusterStanding(ProjectQueries& queries, int64_t runId, uint32_t doc);

}  // namespace neardup
