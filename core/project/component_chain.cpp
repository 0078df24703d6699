// The chains and diameters of a stored run's components, read from the project
// (component_chain.h).
#include "component_chain.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "project_store.h"
#include "signature_rows.h"

namespace neardup {

std::vector<ChainNode> witnessChain(const std::vector<ClusterMember>& members,
                                    const std::vector<PairRow>& pairs, int hashes,
                                    double threshold) {
    std::vector<ChainMember> chain;
    chain.reserve(members.size());
    for (const ClusterMember& m : members)
        chain.push_back({m.docIndex, m.representative, m.kept, m.removedFor});
    return witnessChain(chain, pairs, hashes, threshold);
}

std::string signaturesNotCachedWhy(bool spilled) {
    return spilled
               ? "the run's signatures are not in the project's cache (it spilled to disk: a "
                 "project file caches them in its sidecar folder, an in-memory project does not)"
               : "the run's signatures are not in the project's cache";
}

RunRow ComponentDiameters::start(const ProjectStore& store, int64_t runId) {
    *this = ComponentDiameters{};
    runId_ = runId;
    RunRow row = store.runRow(runId);
    hashes_ = row.run.params.signature.hashes;
    threshold_ = row.run.params.compare.threshold;
    return row;
}

void ComponentDiameters::notCached(const RunRow& row) {
    rows_.clear();
    why_ = signaturesNotCachedWhy(row.run.spilled);
}

bool ComponentDiameters::load(const ProjectStore& store, int64_t runId) {
    const RunRow row = start(store, runId);
    SignatureMatrix sigs;
    if (!store.loadSignatures(row.run.datasetId, row.signatureKey, sigs) ||
        sigs.hashes != hashes_) {
        notCached(row);
        return false;
    }
    rows_.holdAll(std::move(sigs));
    return true;
}

bool ComponentDiameters::loadRows(const ProjectStore& store, int64_t runId,
                                  const std::vector<uint32_t>& docs) {
    const RunRow row = start(store, runId);
    if (!readRows(store, row, docs)) {
        notCached(row);
        return false;
    }
    return true;
}

bool ComponentDiameters::readRows(const ProjectStore& store, const RunRow& row,
                                  const std::vector<uint32_t>& docs) {
    std::vector<uint32_t> values;
    if (docs.empty() || hashes_ <= 0 ||
        !loadSignatureRows(store, row.run.datasetId, row.signatureKey, docs, values)) {
        rows_.clear();
        return false;
    }
    rows_.holdSome(hashes_, std::move(values), docs);
    return true;
}

double ComponentDiameters::similarity(uint32_t a, uint32_t b) const {
    return rows_.similarity(a, b);
}

std::vector<ComponentDiameter> ComponentDiameters::measure(
    const std::vector<ListingMember>& members, double threshold) const {
    return rows_.measure(members,
                         chainBelow(std::isnan(threshold) ? threshold_ : threshold, hashes_));
}

std::vector<ComponentDiameter> ComponentDiameters::measureFromCache(
    const ProjectStore& store, int64_t runId, const std::vector<ListingMember>& members,
    double threshold, std::size_t blockRows) {
    const RunRow row = start(store, runId);
    blockRows = std::max<std::size_t>(blockRows, 1);
    // One look-up and one open of the cache for every cluster of the listing.
    const SignatureRowReader cache(store, row.run.datasetId, row.signatureKey);
    const SignatureRowSource read = [&cache](const std::vector<uint32_t>& docs,
                                             std::vector<uint32_t>& values) {
        return cache.read(docs, values);
    };
    auto clusterEnd = [&members](std::size_t i) {
        std::size_t end = i;
        while (end < members.size() && members[end].cluster == members[i].cluster)
            ++end;
        return end;
    };
    std::vector<ComponentDiameter> out;
    std::vector<uint32_t> docs;
    bool cached = true;
    uint64_t held = 0;
    for (std::size_t first = 0; first < members.size();) {
        std::size_t end = clusterEnd(first);
        if (end - first <= blockRows) {  // with the clusters after it that fit the block too
            while (end < members.size() && clusterEnd(end) - first <= blockRows)
                end = clusterEnd(end);
            const std::vector<ListingMember> batch(
                members.begin() + static_cast<std::ptrdiff_t>(first),
                members.begin() + static_cast<std::ptrdiff_t>(end));
            docs.clear();
            for (const ListingMember& m : batch)
                docs.insert(docs.end(), {m.doc, m.representative});
            std::sort(docs.begin(), docs.end());
            docs.erase(std::unique(docs.begin(), docs.end()), docs.end());
            cached = cached && readRows(store, row, docs);
            for (const ComponentDiameter& c : measure(batch, threshold))
                out.push_back(c);
        } else {
            docs.clear();
            for (std::size_t i = first; i < end; ++i)
                docs.push_back(members[i].doc);
            ComponentDiameter c;
            c.cluster = members[first].cluster;
            c.representative = members[first].representative;
            c.farthest = c.representative;
            c.size = end - first;
            cached = cached &&
                     measureComponent(read, hashes_, docs.data(), docs.size(), blockRows, c, held);
            out.push_back(c);
        }
        first = end;
    }
    rows_.clear();
    if (!cached) {
        notCached(row);
        forgetDiameters(out);
    }
    flagComponents(out, chainBelow(std::isnan(threshold) ? threshold_ : threshold, hashes_));
    return out;
}

StoredDiameters listingDiameters(ProjectQueries& queries, const ProjectStore& store, int64_t runId,
                                 double threshold) {
    if (std::optional<StoredDiameters> stored = queries.storedDiameters(runId, threshold))
        return std::move(*stored);
    ComponentDiameters diameters;
    StoredDiameters measured;
    // listingMembers groups members by cluster in cluster order, and the measure follows it.
    measured.components = diameters.measureFromCache(
        store, runId, queries.listingMembers(runId, threshold), threshold);
    measured.why = diameters.why();
    queries.storeDiameters(runId, threshold, measured);
    return measured;
}

NotableComponents notableComponents(const ProjectStore& store, const RunResult& run,
                                    std::size_t few, DiameterReading* reading) {
    const bool given = reading && reading->rows;
    std::optional<RunRow> row;
    std::optional<SignatureRowReader> cache;
    // The run's row (and with it its cache) only when it has components to measure: a run
    // without any needs no project.
    if (!run.representative.empty()) {
        row = store.runRow(run.runId);  // throws StoreError when the run does not exist
        if (!given) cache.emplace(store, row->run.datasetId, row->signatureKey);
    }
    const SignatureRowSource read = [&](const std::vector<uint32_t>& docs,
                                        std::vector<uint32_t>& values) {
        return given ? reading->rows(docs, values) : cache->read(docs, values);
    };
    uint64_t held = 0;
    bool unreadable = false;
    // The project's cache is read with pread, safe from several threads; a source given by the
    // caller is read from one.
    const int threads = given ? 1 : run.threads;
    NotableComponents out = measureNotableComponents(run, read, reading ? reading->blockRows : 0,
                                                     few, threads, held, unreadable);
    // Not cached (or unreadable part way): no diameter at all rather than some.
    if (unreadable) out.diameterUnknown = signaturesNotCachedWhy(row->run.spilled);
    if (reading) reading->rowsHeldAtMost = held;
    return out;
}

}  // namespace neardup
