// The re-clustered pieces of the workbench's queries (adjusted_clusters.h).
#include "adjusted_clusters.h"

namespace neardup {

void insertAdjustedClusters(sql::Database& db, int64_t runId, const RunResult& r,
                            const std::vector<uint8_t>& clusterMarks,
                            const std::vector<uint32_t>& docOf,
                            const std::vector<int64_t>& clusterId) {
    auto document = [&](uint32_t i) { return int64_t{docOf.empty() ? i : docOf[i]}; };
    auto number = [&](uint32_t k) { return clusterId.empty() ? int64_t{k} : clusterId[k]; };
    std::vector<uint64_t> size(r.representative.size(), 0);
    auto m = db.prepare("INSERT INTO temp.adj_members VALUES (?1, ?2, ?3, ?4)");
    m.bind(1, runId);
    for (std::size_t i = 0; i < r.clusterOf.size(); ++i) {
        const uint32_t k = r.clusterOf[i];
        if (k == RunResult::kNoCluster) continue;
        ++size[k];
        m.bind(2, document(static_cast<uint32_t>(i))).bind(3, number(k));
        if (r.removed(i))
            m.bind(4, document(r.removedFor.empty() ? r.representative[k] : r.removedFor[i]));
        else
            m.bindNull(4);
        m.run();
    }
    auto c = db.prepare("INSERT INTO temp.adj_clusters VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    c.bind(1, runId);
    for (std::size_t k = 0; k < r.representative.size(); ++k) {
        const bool keptWhole = !r.keepAll.empty() && r.keepAll[k];
        c.bind(2, number(static_cast<uint32_t>(k)))
            .bind(3, document(r.representative[k]))
            .bind(4, static_cast<int64_t>(size[k]))
            .bind(5, int64_t{keptWhole ? 1 : 0})
            .bind(6, int64_t{clusterMarks.empty() ? 0 : clusterMarks[k]});
        c.run();
    }
}

}  // namespace neardup
