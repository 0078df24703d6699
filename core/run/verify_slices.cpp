#include "verify_slices.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "pair_verifier.h"

namespace neardup {

namespace {

// What verifying holds for a document: its line, its parsed copy and 8 bytes a shingle.
uint64_t documentCost(const DocumentTable& docs, uint32_t d) {
    return 2 * uint64_t{docs.length[d]} + 8 * uint64_t{docs.chars[d]} + 96;
}
// And for a pair of a slice: its copy, its place and its documents' (verifySlice, verifyPairs).
constexpr uint64_t kPairCost = sizeof(ScoredPair) + 4 * sizeof(std::size_t);
// The slicing's own bookkeeping, for the whole verification: a pair's component and place, an
// involved document's index, component and cost, and every document's place among them.
constexpr uint64_t kPairBookkeeping = sizeof(uint64_t);
constexpr uint64_t kDocumentBookkeeping = 2 * sizeof(uint32_t) + sizeof(uint64_t);
constexpr uint64_t kPlaceBookkeeping = sizeof(uint32_t);

// Sorts on the run's threads (the sorted values are distinct or equal whole, so the order is
// the same whatever the threads).
template <typename T>
void sortOnThreads(std::vector<T>& v, int threads) {
    tbb::task_arena arena(threads);
    arena.execute([&] { tbb::parallel_sort(v.begin(), v.end()); });
}

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
    sortOnThreads(read, threads);
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
    // The pairs to verify and their documents (marked, so they come out in order, once); the
    // others get what verifyPairs gives them (no exact Jaccard when the mode does not verify
    // them, theirs kept when they have one). A document's mark becomes its place among the
    // involved: the slicing looks places up for every pair, several times, on one thread.
    // Which pairs are verified here is decided once, on the run's threads: the mode's test is
    // what the loops below would otherwise repeat for every pair, on one thread. A pair stays
    // wanted until verified (its exact Jaccard set).
    std::vector<uint8_t> chosen(pairs.size());
    {
        tbb::task_arena arena(threads);
        arena.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pairs.size(), 1 << 14),
                              [&](const tbb::blocked_range<std::size_t>& r) {
                                  for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                      ScoredPair& p = pairs[i];
                                      const bool verifies = modeVerifies(p, params);
                                      if (!verifies) p.exact = -1.0f;
                                      chosen[i] = verifies && p.exact < 0.0f;
                                  }
                              });
        });
    }
    constexpr uint32_t kNotInvolved = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> place(docs.size(), kNotInvolved);
    std::size_t wanted = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (chosen[i]) {
            ++wanted;
            place[pairs[i].a] = place[pairs[i].b] = 0;
        }
    VerifyCounts counts;
    if (wanted == 0) return counts;
    auto isWanted = [&](std::size_t i) { return chosen[i] != 0 && pairs[i].exact < 0.0f; };
    std::vector<uint32_t> involved;
    uint64_t total = wanted * kPairCost;
    for (uint32_t d = 0; d < static_cast<uint32_t>(place.size()); ++d)
        if (place[d] != kNotInvolved) {
            place[d] = static_cast<uint32_t>(involved.size());
            involved.push_back(d);
            total += documentCost(docs, d);
        }
    if (total <= allowance) {
        std::vector<uint32_t>().swap(place);
        std::vector<std::size_t> all;
        all.reserve(wanted);
        for (std::size_t i = 0; i < pairs.size(); ++i)
            if (isWanted(i)) all.push_back(i);
        verifySlice(pairs, all, files, docs, params, threads, checkCancel, counts);
        return counts;
    }

    // Beyond the allowance, slices of whole components of the pairs' graph, so that every
    // document is read and shingled once (slicing the pairs in their order read a document
    // again in every slice with one of its pairs: 1.5 times each on a 5.4 GB corpus under
    // 512M). Components are taken whole while slices fill, in the order of their first
    // documents; those larger than the allowance alone are then cut in the order of their
    // pairs (a crowded corpus is often one such component). The bookkeeping comes out of the
    // allowance (where it would take more than half, half is left: slices go on).
    auto after = [](uint64_t room, uint64_t used) {
        return room > 2 * used ? room - used : room / 2;
    };
    const uint64_t fullAllowance = allowance;
    allowance = after(allowance, involved.size() * kDocumentBookkeeping +
                                     place.size() * kPlaceBookkeeping + chosen.size());
    auto indexOf = [&](uint32_t d) { return place[d]; };
    Components components(involved.size());
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (isWanted(i)) components.join(indexOf(pairs[i].a), indexOf(pairs[i].b));
    std::vector<uint64_t> componentCost(involved.size(), 0);
    for (uint32_t x = 0; x < static_cast<uint32_t>(involved.size()); ++x)
        componentCost[components.root(x)] += documentCost(docs, involved[x]);
    auto rootOfPair = [&](const ScoredPair& p) { return components.root(indexOf(p.a)); };
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (isWanted(i)) componentCost[rootOfPair(pairs[i])] += kPairCost;
    auto whole = [&](uint32_t root) { return componentCost[root] <= allowance; };

    // The pairs of the components taken whole, by component then in order, each as
    // (root << 32 | pair index); beyond 2^32 pairs, every component is cut instead.
    const bool packable = pairs.size() <= std::numeric_limits<uint32_t>::max();
    std::vector<uint64_t> byComponent;
    if (packable) {
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            if (!isWanted(i)) continue;
            const uint32_t root = rootOfPair(pairs[i]);
            if (whole(root)) byComponent.push_back(uint64_t{root} << 32 | i);
        }
        sortOnThreads(byComponent, threads);
    }
    uint64_t room = after(allowance, byComponent.size() * kPairBookkeeping);

    std::vector<std::size_t> slice;
    uint64_t sliceCost = 0;
    auto flush = [&] {
        if (slice.empty()) return;
        verifySlice(pairs, slice, files, docs, params, threads, checkCancel, counts);
        slice.clear();
        sliceCost = 0;
    };
    // Adds one pair of a component being cut, counted with both its documents.
    auto addCut = [&](std::size_t i) {
        const ScoredPair& p = pairs[i];
        const uint64_t cost = documentCost(docs, p.a) + documentCost(docs, p.b) + kPairCost;
        if (!slice.empty() && sliceCost + cost > room) flush();
        slice.push_back(i);
        sliceCost += cost;
    };
    for (std::size_t k = 0; k < byComponent.size();) {
        const uint64_t root = byComponent[k] >> 32;
        std::size_t end = k;
        while (end < byComponent.size() && byComponent[end] >> 32 == root)
            ++end;
        // A component whole within the allowance but not within what the bookkeeping leaves
        // is left to the cutting below, like those beyond the allowance.
        const uint64_t cost = componentCost[root];
        if (cost <= room) {
            if (sliceCost + cost > room) flush();
            for (std::size_t j = k; j < end; ++j)
                slice.push_back(static_cast<std::size_t>(byComponent[j] & 0xFFFFFFFFu));
            sliceCost += cost;
        }
        k = end;
    }
    flush();
    // What is left to verify is the components too large to take whole (the pairs verified
    // above are no longer wanted): the bookkeeping goes, and their pairs are cut in order within
    // the whole allowance.
    std::vector<uint64_t>().swap(byComponent);
    std::vector<uint64_t>().swap(componentCost);
    std::vector<uint32_t>().swap(components.parent);
    std::vector<uint32_t>().swap(involved);
    std::vector<uint32_t>().swap(place);
    room = fullAllowance;
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (isWanted(i)) addCut(i);
    flush();
    return counts;
}

}  // namespace neardup
