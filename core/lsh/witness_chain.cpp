// The chain tree of a component (witness_chain.h).
#include "witness_chain.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include "clustering.h"

namespace neardup {

std::vector<ChainNode> witnessChain(const std::vector<ChainMember>& members,
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
        const ChainMember& m = members[i];
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

}  // namespace neardup
