// The chain tree and the diameter of a component (component_chain.h).
#include "component_chain.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
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

namespace {

// The diameter and farthest member of component `c` (its representative set) over its members
// `docs[0 .. count)`, in document order: the representative's row read once, then the other
// members' rows at most `blockRows` at a time; a tie keeps the first farthest member, as comparing
// them all at once would. False when a row cannot be read. `held`: the most rows held at once.
bool measureComponent(const SignatureRowSource& read, int hashes, const uint32_t* docs,
                      std::size_t count, std::size_t blockRows, ComponentDiameter& c,
                      uint64_t& held) {
    if (hashes <= 0) return false;
    const auto h = static_cast<std::size_t>(hashes);
    std::vector<uint32_t> representative, block, values;
    if (!read({c.representative}, representative)) return false;
    for (std::size_t at = 0; at < count;) {
        block.clear();
        for (; at < count && block.size() < blockRows; ++at)
            if (docs[at] != c.representative) block.push_back(docs[at]);
        if (block.empty()) continue;
        if (!read(block, values)) return false;
        held = std::max<uint64_t>(held, block.size() + 1);
        for (std::size_t i = 0; i < block.size(); ++i) {
            const double s =
                matchingPositions(values.data() + i * h, representative.data(), hashes) /
                static_cast<double>(hashes);
            if (std::isnan(c.diameter) || s < c.diameter) {
                c.diameter = s;
                c.farthest = block[i];
            }
        }
    }
    return true;
}

// The size and chain flags of measured components, against the chain threshold `below`.
void setFlags(std::vector<ComponentDiameter>& list, double below) {
    for (ComponentDiameter& c : list) {
        c.large = c.size >= kLargeComponent;
        c.chain = !std::isnan(c.diameter) && c.diameter < below;
    }
}

// No diameter for any component rather than some, when a row could not be read.
void forgetDiameters(std::vector<ComponentDiameter>& list) {
    for (ComponentDiameter& c : list) {
        c.diameter = std::numeric_limits<double>::quiet_NaN();
        c.farthest = c.representative;
    }
}

// Why a run has no diameters: its signatures are not in the project's cache (its sidecar
// folder was removed or cleared; or the run spilled to disk in a project without a file, whose
// cache would be one BLOB of the whole matrix).
std::string notCachedWhy(const RunRow& row) {
    return row.run.spilled
               ? "the run's signatures are not in the project's cache (it spilled to disk: a "
                 "project file caches them in its sidecar folder, an in-memory project does not)"
               : "the run's signatures are not in the project's cache";
}

}  // namespace

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
    why_ = notCachedWhy(row);
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
    if (!readRows(store, row, docs)) {
        notCached(row);
        return false;
    }
    return true;
}

bool ComponentDiameters::readRows(const ProjectStore& store, const RunRow& row,
                                  const std::vector<uint32_t>& docs) {
    rows_.clear();
    if (docs.empty() || hashes_ <= 0 ||
        !loadSignatureRows(store, row.run.datasetId, row.signatureKey, docs, signatures_.values))
        return false;
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
    setFlags(out, below);
    return out;
}

std::vector<ComponentDiameter> ComponentDiameters::measureFromCache(
    const ProjectStore& store, int64_t runId, const std::vector<ListingMember>& members,
    double threshold, std::size_t blockRows) {
    const RunRow row = start(store, runId);
    blockRows = std::max<std::size_t>(blockRows, 1);
    const SignatureRowSource read = [&](const std::vector<uint32_t>& docs,
                                        std::vector<uint32_t>& values) {
        return loadSignatureRows(store, row.run.datasetId, row.signatureKey, docs, values);
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
    signatures_ = SignatureMatrix{};
    rows_.clear();
    if (!cached) {
        notCached(row);
        forgetDiameters(out);
    }
    setFlags(out, chainBelow(std::isnan(threshold) ? threshold_ : threshold, hashes_));
    return out;
}

std::size_t diameterBlockRows(uint64_t memoryBudget, int hashes) {
    if (memoryBudget == 0 || hashes <= 0) return kDiameterBlockRows;
    const uint64_t rows = memoryBudget / 8 / (static_cast<uint64_t>(hashes) * sizeof(uint32_t));
    return static_cast<std::size_t>(std::clamp<uint64_t>(rows, 1, kDiameterBlockRows));
}

namespace {

// The members of the components chosen, grouped by component in the order chosen, each group
// in document order: group k is docs[begin[k], begin[k + 1]). One array, 4 bytes a member.
struct MemberLists {
    std::vector<uint32_t> docs;
    std::vector<std::size_t> begin;
};

MemberLists membersOf(const RunResult& run, const std::vector<uint32_t>& chosen) {
    std::vector<uint32_t> slot(run.representative.size(), RunResult::kNoCluster);
    for (std::size_t k = 0; k < chosen.size(); ++k)
        slot[chosen[k]] = static_cast<uint32_t>(k);
    MemberLists m;
    m.begin.assign(chosen.size() + 1, 0);
    for (const uint32_t c : run.clusterOf)
        if (c != RunResult::kNoCluster && slot[c] != RunResult::kNoCluster) ++m.begin[slot[c] + 1];
    std::partial_sum(m.begin.begin(), m.begin.end(), m.begin.begin());
    m.docs.resize(m.begin.back());
    std::vector<std::size_t> next(m.begin.begin(), m.begin.end() - 1);
    for (std::size_t i = 0; i < run.clusterOf.size(); ++i) {
        const uint32_t c = run.clusterOf[i];
        if (c != RunResult::kNoCluster && slot[c] != RunResult::kNoCluster)
            m.docs[next[slot[c]]++] = static_cast<uint32_t>(i);
    }
    return m;
}

// Each component of `out` (sizes and representatives set) measured by measureComponent over its
// member list; false when a row cannot be read.
bool measureInBlocks(const SignatureRowSource& read, int hashes, const MemberLists& members,
                     std::size_t blockRows, NotableComponents& out, uint64_t& held) {
    for (std::size_t k = 0; k < out.components.size(); ++k)
        if (!measureComponent(read, hashes, members.docs.data() + members.begin[k],
                              members.begin[k + 1] - members.begin[k], blockRows, out.components[k],
                              held))
            return false;
    return true;
}

}  // namespace

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
    if (chosen.empty()) return out;

    const MemberLists members = membersOf(run, chosen);
    for (std::size_t k = 0; k < chosen.size(); ++k) {
        ComponentDiameter c;
        c.cluster = chosen[k];
        c.size = members.begin[k + 1] - members.begin[k];
        c.representative = run.representative[chosen[k]];
        c.farthest = c.representative;
        out.components.push_back(c);
    }
    const RunRow row = store.runRow(run.runId);  // throws StoreError when the run does not exist
    const int hashes = row.run.params.signature.hashes;
    std::size_t blockRows = reading ? reading->blockRows : 0;
    if (blockRows == 0)  // the block charged to the run's budget: an eighth of it
        blockRows = diameterBlockRows(
            run.memoryBudget != 0 ? run.memoryBudget : run.params.memoryBudget, hashes);
    // A project file's cache is read a block of rows at a time. An in-memory project (`neardup
    // run` without -p) holds its cache in memory already, as one BLOB that loadSignatureRows
    // would decode whole on every call: it is decoded once instead.
    SignatureMatrix whole;
    const bool given = reading && reading->rows;
    const bool inMemory = !given && (store.path().empty() || store.path() == ":memory:");
    const bool wholeLoaded = inMemory &&
                             store.loadSignatures(row.run.datasetId, row.signatureKey, whole) &&
                             whole.hashes == hashes;
    const SignatureRowSource read = [&](const std::vector<uint32_t>& docs,
                                        std::vector<uint32_t>& values) {
        if (given) return reading->rows(docs, values);
        if (!inMemory)
            return loadSignatureRows(store, row.run.datasetId, row.signatureKey, docs, values);
        values.clear();
        for (const uint32_t d : docs) {
            if (!wholeLoaded || d >= whole.size()) return false;
            values.insert(values.end(), whole.row(d), whole.row(d) + whole.hashes);
        }
        return wholeLoaded;
    };
    uint64_t held = 0;
    if (!measureInBlocks(read, hashes, members, blockRows, out, held)) {
        // Not cached (or unreadable part way): no diameter at all rather than some.
        out.diameterUnknown = notCachedWhy(row);
        held = 0;
        forgetDiameters(out.components);
    }
    if (reading) reading->rowsHeldAtMost = held;
    setFlags(out.components, chainBelow(run.params.compare.threshold, hashes));
    // Named: the few largest and every flagged one, still largest first.
    std::vector<ComponentDiameter> named;
    for (std::size_t k = 0; k < out.components.size(); ++k)
        if (k < few || out.components[k].flagged()) named.push_back(out.components[k]);
    out.components = std::move(named);
    return out;
}

}  // namespace neardup
