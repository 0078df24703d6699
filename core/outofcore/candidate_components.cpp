#include "candidate_components.h"

#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <numeric>

namespace neardup {

namespace {
// Members gathered before their forest entries are fetched together and joined (about 8 KiB).
constexpr std::size_t kPendingMembers = 2048;
}  // namespace

CandidateComponents::CandidateComponents(std::size_t documents)
    : parent_(documents), inBucket_(documents, 0) {
    std::iota(parent_.begin(), parent_.end(), uint32_t{0});
}

uint32_t CandidateComponents::find(uint32_t x) {
    while (parent_[x] != x) {
        parent_[x] = parent_[parent_[x]];  // path halving
        x = parent_[x];
    }
    return x;
}

void CandidateComponents::joinBucket(const BucketEntry* members, std::size_t size) {
    for (std::size_t m = 0; m < size; ++m)
        pending_.push_back(members[m].second);
    pendingEnds_.push_back(static_cast<uint32_t>(pending_.size()));
    if (pending_.size() >= kPendingMembers) joinPending();
}

void CandidateComponents::joinPending() {
    for (const uint32_t doc : pending_) {
        __builtin_prefetch(&parent_[doc], 1);
        __builtin_prefetch(&inBucket_[doc], 1);
    }
    uint32_t first = 0;
    for (const uint32_t end : pendingEnds_) {
        // Most buckets of a band repeat a union an earlier band made (a near-duplicate pair
        // shares most of its bands), so the first member's root is found once and each other
        // member costs one find that usually ends at that root.
        uint32_t root = find(pending_[first]);
        inBucket_[pending_[first]] = 1;
        for (uint32_t m = first + 1; m < end; ++m) {
            const uint32_t doc = pending_[m];
            inBucket_[doc] = 1;
            const uint32_t other = find(doc);
            if (other == root) continue;
            // The lower root stays root, so a component's root is its lowest document whatever
            // the order of the joins: the grouping does not depend on bands' or partitions' order.
            if (other < root) {
                parent_[root] = other;
                root = other;
            } else {
                parent_[other] = root;
            }
        }
        first = end;
    }
    pending_.clear();
    pendingEnds_.clear();
}

CandidateComponents::Grouped CandidateComponents::finish(int threads) {
    joinPending();
    std::vector<uint64_t> byRoot;  // root << 32 | document
    for (std::size_t d = 0; d < parent_.size(); ++d)
        if (inBucket_[d]) byRoot.push_back(uint64_t{find(static_cast<uint32_t>(d))} << 32 | d);
    std::vector<uint32_t>().swap(parent_);
    std::vector<uint8_t>().swap(inBucket_);
    tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
    arena.execute([&] { tbb::parallel_sort(byRoot.begin(), byRoot.end()); });
    Grouped out;
    out.documents.reserve(byRoot.size());
    for (std::size_t i = 0; i < byRoot.size(); ++i) {
        if (i == 0 || byRoot[i] >> 32 != byRoot[i - 1] >> 32) out.begin.push_back(i);
        out.documents.push_back(static_cast<uint32_t>(byRoot[i]));
    }
    out.begin.push_back(byRoot.size());
    return out;
}

}  // namespace neardup
