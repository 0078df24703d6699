// Step three's buckets larger than a pass (spill_compare.h): their signature copies joined by
// digest, then their leaders compared tile by tile, two tiles of rows in memory at a time.
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "bucket_compare.h"
#include "elapsed.h"
#include "spill_compare.h"
#include "spill_compare_arena.h"

namespace neardup {

uint64_t SpilledComparison::compareLoaded(const Loaded& a, const Loaded& b, bool same, int band,
                                          std::vector<ScoredPair>& pairs) {
    const auto h = static_cast<std::size_t>(spill_.hashes());
    const auto keysPerRow = static_cast<std::size_t>(band);  // the earlier bands' (load())
    auto pointers = [&](const Loaded& l, std::vector<const uint32_t*>& rows,
                        std::vector<const uint64_t*>& keys) {
        rows.resize(l.ids.size());
        keys.resize(l.ids.size());
        for (std::size_t i = 0; i < l.ids.size(); ++i) {
            rows[i] = l.sigs.values.data() + i * h;
            keys[i] = l.keys.data() + i * keysPerRow;
        }
    };
    std::vector<const uint32_t*> rowsA, rowsB;
    std::vector<const uint64_t*> keysA, keysB;
    pointers(a, rowsA, keysA);
    if (!same) pointers(b, rowsB, keysB);
    const auto& rb = same ? rowsA : rowsB;
    const auto& kb = same ? keysA : keysB;
    const Loaded& lb = same ? a : b;
    const CompareRule rule{band, spill_.hashes(), minMatches_};
    struct Local {
        std::vector<ScoredPair> pairs;
        uint64_t decided = 0;
    };
    tbb::enumerable_thread_specific<Local> locals;
    const std::size_t tilesA = tileCount(a.ids.size()), tilesB = tileCount(lb.ids.size());
    auto tile = [](const Loaded& l, const std::vector<const uint32_t*>& rows,
                   const std::vector<const uint64_t*>& keys, std::size_t t) {
        const std::size_t first = t * kCompareTile;
        return CompareTile{l.ids.data() + first, rows.data() + first, keys.data() + first,
                           std::min(kCompareTile, l.ids.size() - first)};
    };
    arena_->arena.execute([&] {
        tbb::parallel_for(std::size_t{0}, tilesA, [&](std::size_t ta) {
            Local& local = locals.local();
            const CompareTile x = tile(a, rowsA, keysA, ta);
            for (std::size_t tb = same ? ta : 0; tb < tilesB; ++tb)
                local.decided +=
                    compareTiles(x, tile(lb, rb, kb, tb), same && ta == tb, rule, local.pairs);
        });
    });
    uint64_t decided = 0;
    for (Local& local : locals) {
        decided += local.decided;
        pairs.insert(pairs.end(), local.pairs.begin(), local.pairs.end());
    }
    return decided;
}

void SpilledComparison::compareLarge(const uint32_t* members, std::size_t size, int band,
                                     std::size_t passRows, std::vector<ScoredPair>& pairs,
                                     const std::function<void()>& checkCancel) {
    const auto start = SteadyClock::now();
    const int hashes = spill_.hashes();
    const auto h = static_cast<std::size_t>(hashes);
    const auto keysPerRow = static_cast<std::size_t>(band);  // the earlier bands' (load())
    // Step one, as collapseCopies does it: members grouped by digest; within a group, members
    // equal to the group's first member are joined to it, the others become leaders.
    std::vector<std::pair<uint64_t, uint32_t>> byDigest(size);
    for (std::size_t i = 0; i < size; ++i)
        byDigest[i] = {digests_[members[i]], members[i]};
    std::sort(byDigest.begin(), byDigest.end());
    std::vector<uint32_t> leaders, group;
    std::vector<uint32_t> leaderRow(h);
    std::vector<uint64_t> leaderKeys(keysPerRow);
    Loaded& rows = loaded_;
    for (std::size_t i = 0; i < size;) {
        std::size_t j = i + 1;
        while (j < size && byDigest[j].first == byDigest[i].first)
            ++j;
        const uint32_t leader = byDigest[i].second;
        leaders.push_back(leader);
        if (j - i > 1) {
            load(&leader, 1, band, rows);
            std::copy(rows.sigs.values.begin(), rows.sigs.values.begin() + static_cast<long>(h),
                      leaderRow.begin());
            std::copy(rows.keys.begin(), rows.keys.begin() + static_cast<long>(keysPerRow),
                      leaderKeys.begin());
            // The group's members after the leader are in document order: read in passes.
            for (std::size_t g = i + 1; g < j; g += passRows) {
                checkCancel();
                group.clear();
                for (std::size_t m = g; m < std::min(j, g + passRows); ++m)
                    group.push_back(byDigest[m].second);
                load(group.data(), group.size(), band, rows);
                for (std::size_t k = 0; k < group.size(); ++k) {
                    const uint32_t* row = rows.sigs.values.data() + k * h;
                    if (std::memcmp(row, leaderRow.data(), h * sizeof(uint32_t)) != 0) {
                        leaders.push_back(group[k]);
                        continue;
                    }
                    if (band > 0 && sharesEarlierKey(leaderKeys.data(),
                                                     rows.keys.data() + k * keysPerRow, band))
                        continue;
                    ++decided_;
                    if (hashes >= minMatches_)
                        pairs.push_back({leader, group[k], static_cast<uint32_t>(hashes), -1.0f});
                }
                spillFullPairs(pairs);
            }
        }
        i = j;
    }
    std::sort(leaders.begin(), leaders.end());
    // Step two: leaders in tiles of `tile` rows, two tiles in memory at a time; each pair of
    // tiles is compared in kCompareTile sub-tiles that stay in cache.
    const std::size_t tile = std::max(kCompareTile, passRows / 2 / kCompareTile * kCompareTile);
    const std::size_t count = leaders.size();
    Loaded other;
    for (std::size_t ti = 0; ti < count; ti += tile) {
        checkCancel();
        load(leaders.data() + ti, std::min(tile, count - ti), band, rows);
        decided_ += compareLoaded(rows, rows, true, band, pairs);
        spillFullPairs(pairs);
        for (std::size_t tj = ti + tile; tj < count; tj += tile) {
            checkCancel();
            load(leaders.data() + tj, std::min(tile, count - tj), band, other);
            decided_ += compareLoaded(rows, other, false, band, pairs);
            spillFullPairs(pairs);
        }
    }
    compareSeconds_ += secondsSince(start);
}

}  // namespace neardup
