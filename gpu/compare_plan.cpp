#include "compare_plan.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "bucket_compare.h"

namespace neardup::gpu {

void collapseBatch(const BucketBatch& buckets, const CompareRequest& req, CollapsedBatch& out) {
    const std::size_t n = buckets.buckets();
    out.leaders.resize(buckets.members.size());
    out.begin.assign(buckets.bucketBegin.begin(), buckets.bucketBegin.end());
    out.count.assign(n, 0);
    out.copies.clear();
    out.copiesDecided = 0;
    struct Local {
        BucketScratch scratch;
        std::vector<ScoredPair> pairs;
        uint64_t decided = 0;
    };
    tbb::enumerable_thread_specific<Local> locals;
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, n, 64), [&](const tbb::blocked_range<std::size_t>& r) {
            Local& local = locals.local();
            for (std::size_t j = r.begin(); j != r.end(); ++j) {
                const uint64_t first = buckets.bucketBegin[j];
                const uint64_t size = buckets.bucketBegin[j + 1] - first;
                const uint32_t* members = buckets.members.data() + first;
                if (size < 2) continue;
                if (size == 2) {
                    out.leaders[first] = members[0];
                    out.leaders[first + 1] = members[1];
                    out.count[j] = 2;
                    continue;
                }
                local.decided +=
                    collapseCopies(members, size, buckets.band, req, local.scratch, local.pairs);
                const std::vector<uint32_t>& leaders = local.scratch.leaders;
                std::copy(leaders.begin(), leaders.end(),
                          out.leaders.begin() + static_cast<std::ptrdiff_t>(first));
                out.count[j] = static_cast<uint32_t>(leaders.size());
            }
        });
    for (Local& local : locals) {
        out.copiesDecided += local.decided;
        out.copies.insert(out.copies.end(), local.pairs.begin(), local.pairs.end());
    }
}

void PassPlan::clear() {
    docs.clear();
    tiles.clear();
    pairs.clear();
    tileTasks = pairTasks = 0;
}

PassPlanner::PassPlanner(const CollapsedBatch& batch, uint64_t maxRows)
    : batch_(batch), maxRows_(std::max<uint64_t>(maxRows, 2 * kTileRows)) {}

void PassPlanner::addBucket(PassPlan& plan, std::size_t j) const {
    const uint32_t count = batch_.count[j];
    const auto row = static_cast<uint32_t>(plan.docs.size());
    const uint32_t* leaders = batch_.leaders.data() + batch_.begin[j];
    plan.docs.insert(plan.docs.end(), leaders, leaders + count);
    if (count <= static_cast<uint32_t>(kSmallBucket)) {
        PairSegment s;
        s.pairBegin = plan.pairTasks;
        s.rowBegin = row;
        s.count = count;
        plan.pairs.push_back(s);
        plan.pairTasks += uint64_t{count} * (count - 1) / 2;
    } else {
        TileSegment s;
        s.taskBegin = plan.tileTasks;
        s.aBegin = row;
        s.aCount = count;
        s.same = 1;
        plan.tiles.push_back(s);
        const uint64_t t = (uint64_t{count} + kTileRows - 1) / kTileRows;
        plan.tileTasks += t * (t + 1) / 2;
    }
}

void PassPlanner::emitChunkPair(PassPlan& plan) {
    const uint64_t total = batch_.count[huge_];
    const uint32_t* leaders = batch_.leaders.data() + batch_.begin[huge_];
    auto chunkSize = [&](uint64_t c) { return std::min(chunk_, total - c * chunk_); };
    const uint64_t sizeI = chunkSize(chunkI_), sizeJ = chunkSize(chunkJ_);
    const uint32_t* first = leaders + chunkI_ * chunk_;
    plan.docs.insert(plan.docs.end(), first, first + sizeI);
    TileSegment s;
    s.taskBegin = 0;
    s.aBegin = 0;
    s.aCount = static_cast<uint32_t>(sizeI);
    const uint64_t ti = (sizeI + kTileRows - 1) / kTileRows;
    if (chunkI_ == chunkJ_) {
        s.same = 1;
        plan.tileTasks = ti * (ti + 1) / 2;
    } else {
        const uint32_t* second = leaders + chunkJ_ * chunk_;
        plan.docs.insert(plan.docs.end(), second, second + sizeJ);
        s.same = 0;
        s.bBegin = static_cast<uint32_t>(sizeI);
        s.bCount = static_cast<uint32_t>(sizeJ);
        plan.tileTasks = ti * ((sizeJ + kTileRows - 1) / kTileRows);
    }
    plan.tiles.push_back(s);
    if (++chunkJ_ == chunks_) {
        ++chunkI_;
        chunkJ_ = chunkI_;
        if (chunkI_ == chunks_) splitting_ = false;
    }
}

bool PassPlanner::next(PassPlan& plan) {
    plan.clear();
    if (splitting_) {
        emitChunkPair(plan);
        return true;
    }
    const std::size_t n = batch_.count.size();
    for (; bucket_ < n; ++bucket_) {
        const uint64_t count = batch_.count[bucket_];
        if (count < 2) continue;
        if (count > maxRows_) {
            if (!plan.docs.empty()) return true;
            huge_ = bucket_++;
            // Two chunks fit one pass; chunks are whole tiles except the last.
            chunk_ = std::max<uint64_t>(kTileRows, maxRows_ / 2 / kTileRows * kTileRows);
            chunks_ = (count + chunk_ - 1) / chunk_;
            chunkI_ = chunkJ_ = 0;
            splitting_ = true;
            emitChunkPair(plan);
            return true;
        }
        if (plan.docs.size() + count > maxRows_) return true;
        addBucket(plan, bucket_);
    }
    return !plan.docs.empty();
}

}  // namespace neardup::gpu
