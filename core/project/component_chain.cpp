// The chain tree and the diameter of a component (component_chain.h).
#include "component_chain.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <utility>

#include "clustering.h"
#include "pair_verifier.h"
#include "project_store.h"
#include "signature_rows.h"

namespace neardup {

std::vector<ChainNode> witnessChain(const std::vector<ClusterMember>& members,
                                    const std::vector<PairRow>& pairs, int hashes,
                                    double threshold) {
    const std::size_t n = members.size();
    std::map<uint32_t, std::size_t> slot;  // document -> member index
    for (std::size_t i = 0; i < n; ++i)
        slot[members[i].docIndex] = i;
    // Neighbours through the duplicate pairs (the store keeps pairs somewhat below θ too; a
    // pair marked "not a duplicate" links no witness), and each pair by (smaller, larger)
    // document.
    std::vector<std::vector<std::size_t>> next(n);
    std::map<std::pair<uint32_t, uint32_t>, const PairRow*> pairOf;
    for (const PairRow& p : pairs) {
        const auto a = slot.find(p.a), b = slot.find(p.b);
        if (a == slot.end() || b == slot.end() || p.notDuplicate) continue;
        const ScoredPair scored{p.a, p.b, p.matches,
                                std::isnan(p.exact) ? -1.0f : static_cast<float>(p.exact)};
        if (!isDuplicate(scored, hashes, threshold)) continue;
        next[a->second].push_back(b->second);
        next[b->second].push_back(a->second);
        pairOf[{std::min(p.a, p.b), std::max(p.a, p.b)}] = &p;
    }
    // The removals each kept member vouches for, in document order (members come sorted).
    std::vector<std::vector<std::size_t>> vouched(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (members[i].removedFor < 0) continue;
        const auto w = slot.find(static_cast<uint32_t>(members[i].removedFor));
        if (w != slot.end() && w->second != i) vouched[w->second].push_back(i);
    }
    for (auto& v : next)
        std::sort(v.begin(), v.end());

    // Breadth first from the representative: a kept member takes its removals, then any kept
    // member linked to it directly (a cluster kept whole); a removed member takes the kept
    // members linked through it. A removal waits for its witness.
    std::vector<int> parent(n, -2);  // -2: not placed yet
    std::vector<std::vector<std::size_t>> children(n);
    std::vector<std::size_t> roots;
    std::deque<std::size_t> queue;
    auto place = [&](std::size_t child, int under) {
        parent[child] = under;
        if (under >= 0)
            children[static_cast<std::size_t>(under)].push_back(child);
        else
            roots.push_back(child);
        queue.push_back(child);
    };
    auto drain = [&] {
        while (!queue.empty()) {
            const std::size_t u = queue.front();
            queue.pop_front();
            if (members[u].kept)
                for (const std::size_t r : vouched[u])
                    if (parent[r] == -2) place(r, static_cast<int>(u));
            for (const std::size_t v : next[u])
                if (parent[v] == -2 && members[v].kept) place(v, static_cast<int>(u));
        }
    };
    for (std::size_t i = 0; i < n; ++i)
        if (members[i].representative) place(i, -1);
    drain();
    // Whatever the representative does not reach (a witness beyond the members loaded, a
    // truncated listing): hung under any placed neighbour, else a root of its own.
    for (bool grew = true; grew;) {
        grew = false;
        for (std::size_t i = 0; i < n; ++i) {
            if (parent[i] != -2) continue;
            for (const std::size_t v : next[i])
                if (parent[v] != -2) {
                    place(i, static_cast<int>(v));
                    grew = true;
                    break;
                }
            drain();
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        if (parent[i] == -2) {
            place(i, -1);
            drain();
        }

    // Pre-order, children in document order.
    for (auto& c : children)
        std::sort(c.begin(), c.end());
    std::vector<ChainNode> out;
    out.reserve(n);
    std::vector<std::pair<std::size_t, int>> stack;  // member, parent node index
    for (auto r = roots.rbegin(); r != roots.rend(); ++r)
        stack.emplace_back(*r, -1);
    while (!stack.empty()) {
        const auto [i, up] = stack.back();
        stack.pop_back();
        const ClusterMember& m = members[i];
        ChainNode node;
        node.doc = m.docIndex;
        node.parent = up;
        node.kept = m.kept;
        node.representative = m.representative;
        if (up >= 0) {
            const ChainNode& p = out[static_cast<std::size_t>(up)];
            node.depth = p.depth + 1;
            const auto it = pairOf.find({std::min(p.doc, m.docIndex), std::max(p.doc, m.docIndex)});
            if (it != pairOf.end()) {
                node.linked = true;
                node.estimated = it->second->estimated;
                node.exact = it->second->exact;
            }
        }
        const int self = static_cast<int>(out.size());
        out.push_back(node);
        for (auto c = children[i].rbegin(); c != children[i].rend(); ++c)
            stack.emplace_back(*c, self);
    }
    return out;
}

double chainBelow(double threshold, int hashes) {
    if (hashes <= 0) return threshold;
    return threshold - borderlineMargin(threshold, hashes);  // the borderline band's bottom
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
    signatures_ = SignatureMatrix{};
    rows_.clear();
    why_ = row.run.spilled ? "the run's signatures were not cached (they went to spill files)"
                           : "the run's signatures are not in the project's cache";
}

bool ComponentDiameters::load(const ProjectStore& store, int64_t runId) {
    const RunRow row = start(store, runId);
    SignatureMatrix sigs;
    if (!store.loadSignatures(row.run.datasetId, row.signatureKey, sigs) ||
        sigs.hashes != hashes_) {
        notCached(row);
        return false;
    }
    signatures_ = std::move(sigs);
    return true;
}

bool ComponentDiameters::loadRows(const ProjectStore& store, int64_t runId,
                                  const std::vector<uint32_t>& docs) {
    const RunRow row = start(store, runId);
    if (docs.empty() || hashes_ <= 0 ||
        !loadSignatureRows(store, row.run.datasetId, row.signatureKey, docs, signatures_.values)) {
        notCached(row);
        return false;
    }
    signatures_.hashes = hashes_;
    rows_ = docs;
    return true;
}

const uint32_t* ComponentDiameters::rowOf(uint32_t d) const {
    if (!loaded()) return nullptr;
    if (rows_.empty()) return d < signatures_.size() ? signatures_.row(d) : nullptr;
    const auto it = std::lower_bound(rows_.begin(), rows_.end(), d);
    if (it == rows_.end() || *it != d) return nullptr;
    return signatures_.values.data() +
           static_cast<std::size_t>(it - rows_.begin()) * static_cast<std::size_t>(hashes_);
}

double ComponentDiameters::similarity(uint32_t a, uint32_t b) const {
    const uint32_t* ra = rowOf(a);
    const uint32_t* rb = rowOf(b);
    if (!ra || !rb) return std::numeric_limits<double>::quiet_NaN();
    return matchingPositions(ra, rb, hashes_) / static_cast<double>(hashes_);
}

std::vector<ComponentDiameter> ComponentDiameters::measure(
    const std::vector<ListingMember>& members, double threshold) const {
    const double below = chainBelow(std::isnan(threshold) ? threshold_ : threshold, hashes_);
    std::vector<ComponentDiameter> out;
    for (const ListingMember& m : members) {
        if (out.empty() || out.back().cluster != m.cluster) {
            out.push_back({});
            out.back().cluster = m.cluster;
            out.back().representative = m.representative;
            out.back().farthest = m.representative;
        }
        ComponentDiameter& c = out.back();
        ++c.size;
        if (m.doc == m.representative) continue;
        const double s = similarity(m.doc, m.representative);
        if (std::isnan(s)) continue;
        if (std::isnan(c.diameter) || s < c.diameter) {
            c.diameter = s;
            c.farthest = m.doc;
        }
    }
    for (ComponentDiameter& c : out) {
        c.large = c.size >= kLargeComponent;
        c.chain = !std::isnan(c.diameter) && c.diameter < below;
    }
    return out;
}

NotableComponents notableComponents(const ProjectStore& store, const RunResult& run,
                                    std::size_t few) {
    NotableComponents out;
    out.measured = true;
    out.chainBelow = chainBelow(run.params.compare.threshold, run.params.signature.hashes);
    const std::size_t clusters = run.representative.size();
    std::vector<uint64_t> size(clusters, 0);
    for (const uint32_t c : run.clusterOf)
        if (c != RunResult::kNoCluster) ++size[c];
    std::vector<uint32_t> chosen(clusters);
    std::iota(chosen.begin(), chosen.end(), 0u);
    std::stable_sort(chosen.begin(), chosen.end(),
                     [&size](uint32_t x, uint32_t y) { return size[x] > size[y]; });
    std::size_t keep = std::min(few, clusters);
    while (keep < clusters && size[chosen[keep]] >= kLargeComponent)
        ++keep;
    chosen.resize(keep);
    if (chosen.empty()) return out;
    // Their members, grouped by cluster in the order chosen, as measure() takes them.
    std::vector<uint32_t> slot(clusters, RunResult::kNoCluster);
    for (std::size_t k = 0; k < chosen.size(); ++k)
        slot[chosen[k]] = static_cast<uint32_t>(k);
    std::vector<std::vector<uint32_t>> members(chosen.size());
    std::vector<uint32_t> docs;
    for (std::size_t i = 0; i < run.clusterOf.size(); ++i) {
        const uint32_t c = run.clusterOf[i];
        if (c == RunResult::kNoCluster || slot[c] == RunResult::kNoCluster) continue;
        members[slot[c]].push_back(static_cast<uint32_t>(i));
        docs.push_back(static_cast<uint32_t>(i));
    }
    std::vector<ListingMember> listing;
    listing.reserve(docs.size());
    for (std::size_t k = 0; k < chosen.size(); ++k)
        for (const uint32_t d : members[k])
            listing.push_back({chosen[k], d, run.representative[chosen[k]]});
    ComponentDiameters diameters;
    if (!diameters.loadRows(store, run.runId, docs))  // NaN diameters when not cached
        out.diameterUnknown = diameters.why();
    out.components = diameters.measure(listing, run.params.compare.threshold);
    return out;
}

}  // namespace neardup
