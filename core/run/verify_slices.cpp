#include "verify_slices.h"

#include <algorithm>
#include <numeric>

#include "pair_verifier.h"

namespace neardup {

namespace {

// Whether verification mode `params` verifies pair `p` at all (verifyPairs' own rule).
bool modeVerifies(const ScoredPair& p, const RunParams& params) {
    const VerifyMode mode = params.compare.verify;
    return mode == VerifyMode::Exact ||
           (mode == VerifyMode::Borderline &&
            isBorderline(p.matches, params.signature.hashes, params.compare.threshold));
}

// What verifying holds for a document: its line, its parsed copy and 8 bytes a shingle.
uint64_t documentCost(const DocumentTable& docs, uint32_t d) {
    return 2 * uint64_t{docs.length[d]} + 8 * uint64_t{docs.chars[d]} + 96;
}
// And for a pair of a slice: its copy, its place and its documents' (verifySlice, verifyPairs).
constexpr uint64_t kPairCost = sizeof(ScoredPair) + 4 * sizeof(std::size_t);
// The slicing's own bookkeeping, for the whole verification: a pair's place and component, a
// document's component and cost.
constexpr uint64_t kPairBookkeeping = sizeof(std::size_t) + 2 * sizeof(std::size_t);
constexpr uint64_t kDocumentBookkeeping = 2 * sizeof(uint32_t) + sizeof(uint64_t);

// Union-find over the involved documents (dense indices), by halving paths.
struct Components {
    std::vector<uint32_t> parent;
    explicit Components(std::size_t n) : parent(n) {
        std::iota(parent.begin(), parent.end(), uint32_t{0});
    }
    uint32_t root(uint32_t x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    }
    // The smaller index becomes the root, so a component's root is its first document.
    void join(uint32_t a, uint32_t b) {
        a = root(a);
        b = root(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
};

// Verifies the pairs `pairs[at[i]]` together, writing their results back.
void verifySlice(std::vector<ScoredPair>& pairs, const std::vector<std::size_t>& at,
                 const std::vector<InputFile>& files, const DocumentTable& docs,
                 const RunParams& params, int threads, const std::function<void()>& checkCancel,
                 VerifyCounts& counts) {
    std::vector<ScoredPair> slice;
    slice.reserve(at.size());
    std::vector<uint32_t> read;
    read.reserve(2 * at.size());
    for (const std::size_t i : at) {
        slice.push_back(pairs[i]);
        read.push_back(pairs[i].a);
        read.push_back(pairs[i].b);
    }
    std::sort(read.begin(), read.end());
    counts.documentsRead +=
        static_cast<std::size_t>(std::unique(read.begin(), read.end()) - read.begin());
    counts.pairs += verifyPairs(slice, files, docs, params, threads, checkCancel);
    ++counts.slices;
    for (std::size_t k = 0; k < at.size(); ++k)
        pairs[at[k]].exact = slice[k].exact;
}

}  // namespace

VerifyCounts verifyWithinBudget(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                                const DocumentTable& docs, const RunParams& params, int threads,
                                uint64_t allowance, const std::function<void()>& checkCancel) {
    // The pairs to verify; the others get what verifyPairs gives them (no exact Jaccard when
    // the mode does not verify them, theirs kept when they have one).
    std::vector<std::size_t> todo;
    std::vector<uint32_t> involved;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        ScoredPair& p = pairs[i];
        if (!modeVerifies(p, params)) {
            p.exact = -1.0f;
        } else if (p.exact < 0.0f) {
            todo.push_back(i);
            involved.push_back(p.a);
            involved.push_back(p.b);
        }
    }
    VerifyCounts counts;
    if (todo.empty()) return counts;
    std::sort(involved.begin(), involved.end());
    involved.erase(std::unique(involved.begin(), involved.end()), involved.end());
    auto indexOf = [&](uint32_t d) {
        return static_cast<uint32_t>(std::lower_bound(involved.begin(), involved.end(), d) -
                                     involved.begin());
    };
    uint64_t total = todo.size() * kPairCost;
    for (const uint32_t d : involved)
        total += documentCost(docs, d);
    if (total <= allowance) {
        verifySlice(pairs, todo, files, docs, params, threads, checkCancel, counts);
        return counts;
    }

    // Beyond the allowance, slices of whole components of the pairs' graph, so that every
    // document is read and shingled once (slicing the pairs in their order read a document
    // again in every slice with one of its pairs: 1.5 times each on a 5.4 GB corpus under
    // 512M). A component is taken whole while slices fill in the order of their first
    // documents; one larger than the allowance alone is cut in the order of its pairs.
    // The bookkeeping comes out of the allowance (where it would take more than half, half is
    // left: slices of a pair at least go on).
    const uint64_t bookkeeping =
        todo.size() * kPairBookkeeping + involved.size() * kDocumentBookkeeping;
    allowance = allowance > 2 * bookkeeping ? allowance - bookkeeping : allowance / 2;
    Components components(involved.size());
    for (const std::size_t i : todo)
        components.join(indexOf(pairs[i].a), indexOf(pairs[i].b));
    std::vector<uint64_t> componentCost(involved.size(), 0);
    for (uint32_t x = 0; x < static_cast<uint32_t>(involved.size()); ++x)
        componentCost[components.root(x)] += documentCost(docs, involved[x]);
    // The pairs by component (their roots: first documents, in file order), then in order.
    std::vector<std::pair<std::size_t, std::size_t>> byComponent;
    byComponent.reserve(todo.size());
    for (const std::size_t i : todo) {
        const uint32_t root = components.root(indexOf(pairs[i].a));
        componentCost[root] += kPairCost;
        byComponent.emplace_back(root, i);
    }
    std::vector<std::size_t>().swap(todo);
    std::sort(byComponent.begin(), byComponent.end());

    std::vector<std::size_t> slice;
    uint64_t sliceCost = 0;
    auto flush = [&] {
        if (slice.empty()) return;
        verifySlice(pairs, slice, files, docs, params, threads, checkCancel, counts);
        slice.clear();
        sliceCost = 0;
    };
    for (std::size_t k = 0; k < byComponent.size();) {
        const std::size_t root = byComponent[k].first;
        std::size_t end = k;
        while (end < byComponent.size() && byComponent[end].first == root)
            ++end;
        const uint64_t cost = componentCost[root];
        if (cost <= allowance) {
            if (sliceCost + cost > allowance) flush();
            for (std::size_t j = k; j < end; ++j)
                slice.push_back(byComponent[j].second);
            sliceCost += cost;
        } else {
            // Too large to hold whole: its pairs in order, as many as fit at a time (each
            // counted with both its documents).
            flush();
            for (std::size_t j = k; j < end; ++j) {
                const ScoredPair& p = pairs[byComponent[j].second];
                const uint64_t pairCost =
                    documentCost(docs, p.a) + documentCost(docs, p.b) + kPairCost;
                if (!slice.empty() && sliceCost + pairCost > allowance) flush();
                slice.push_back(byComponent[j].second);
                sliceCost += pairCost;
            }
            flush();
        }
        k = end;
    }
    flush();
    return counts;
}

}  // namespace neardup
