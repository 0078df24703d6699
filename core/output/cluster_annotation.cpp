// ClusterAnnotation: cluster sizes counted once, and the fields appended to a JSON line.
#include "cluster_annotation.h"

namespace neardup {

ClusterAnnotation::ClusterAnnotation(const RunResult& run)
    : run_(run), sizes_(run.representative.size(), 0) {
    for (const uint32_t c : run.clusterOf)
        if (c != RunResult::kNoCluster && c < sizes_.size()) ++sizes_[c];
}

int64_t ClusterAnnotation::clusterId(std::size_t doc) const {
    const uint32_t c = run_.clusterOf[doc];
    return c == RunResult::kNoCluster ? -1 : static_cast<int64_t>(c);
}

int64_t ClusterAnnotation::clusterSize(std::size_t doc) const {
    const uint32_t c = run_.clusterOf[doc];
    return c == RunResult::kNoCluster ? 1 : static_cast<int64_t>(sizes_[c]);
}

std::string ClusterAnnotation::annotateLine(std::string_view line, std::size_t doc) const {
    const std::size_t close = line.rfind('}');
    if (close == std::string_view::npos) return std::string(line);
    // An object with no member yet takes no leading comma.
    std::size_t before = close;
    while (before > 0 && (line[before - 1] == ' ' || line[before - 1] == '\t' ||
                          line[before - 1] == '\r' || line[before - 1] == '\n'))
        --before;
    const bool empty = before > 0 && line[before - 1] == '{';
    std::string out(line.substr(0, close));
    out += empty ? "\"" : ",\"";
    out += kClusterId;
    out += "\":" + std::to_string(clusterId(doc)) + ",\"" + kClusterSize +
           "\":" + std::to_string(clusterSize(doc)) + ",\"" + kRemoved + "\":";
    out += removed(doc) ? "true" : "false";
    out += line.substr(close);
    return out;
}

}  // namespace neardup
