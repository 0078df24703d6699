// What --annotate adds to every document instead of removing duplicates, the way FineWeb-2
// ships its deduplication: the document's cluster ("cluster_id", -1 for a document in no
// cluster), the cluster's size ("cluster_size", 1 for a document in no cluster) and whether the
// run removes it ("duplicate_removed"), so that keeping the rows where it is false gives exactly
// the deduplicated dataset (which documents a rule removes cannot be told from the cluster alone).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "run_result.h"

namespace neardup {

class ClusterAnnotation {
  public:
    static constexpr const char* kClusterId = "cluster_id";
    static constexpr const char* kClusterSize = "cluster_size";
    static constexpr const char* kRemoved = "duplicate_removed";

    explicit ClusterAnnotation(const RunResult& run);

    int64_t clusterId(std::size_t doc) const;
    int64_t clusterSize(std::size_t doc) const;
    bool removed(std::size_t doc) const { return run_.removed(doc); }

    // `line` (a JSON object, as read) with the three fields appended inside its closing brace:
    // its bytes up to that brace and after it are kept as they are. A line without a closing
    // brace (never a document) is returned unchanged.
    std::string annotateLine(std::string_view line, std::size_t doc) const;

  private:
    const RunResult& run_;
    std::vector<uint32_t> sizes_;  // members per cluster
};

}  // namespace neardup
