// The memory budget of a run: the default budget (sizes such as "256M" are parsed by
// byte_size.h), and what the big structures of a run occupy, so the pipeline can decide to spill
// before it runs out.
//
// Decisions are taken on the capacities of our own containers, not on the process RSS, so the
// same inputs and budget always take the same path (RSS depends on the allocator and the
// thread count). RSS is only measured and reported.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "byte_size.h"  // parseByteSize, for the callers that size a budget
#include "document_table.h"

namespace neardup {

// The per-document arrays a run keeps for its whole length (the document table, each
// document's signature digest and flag) alone exceed its memory budget. Raised before the
// comparison: during the read as soon as the documents read so far pass the budget (the count
// then estimated from the share of the input read), else once the read is over. The message
// names the budget, the documents, their bytes and the smallest budget that works.
class MemoryBudgetError : public std::runtime_error {
  public:
    MemoryBudgetError(uint64_t budget, uint64_t documents, bool estimated, uint64_t floorBytes);
    uint64_t budget() const { return budget_; }
    uint64_t documents() const { return documents_; }
    uint64_t floorBytes() const { return floorBytes_; }
    // The budget to give instead: the floor, an eighth of it and kSmallestWorkingBytes for
    // the working sets (the reading stage's chunks, the spill blocks, the comparison's passes,
    // verification and SQLite's cache at their smallest), rounded up to whole MiB.
    uint64_t smallestBudget() const { return smallestBudgetFor(floorBytes_); }
    static uint64_t smallestBudgetFor(uint64_t floorBytes);

  private:
    uint64_t budget_, documents_, floorBytes_;
};

inline constexpr uint64_t kSmallestWorkingBytes = uint64_t{8} << 20;

// "256 MiB", "1.50 GiB", "812 B": for messages.
std::string formatBytes(uint64_t bytes);

// Budget used when none is given: half of MemAvailable (/proc/meminfo), or half of physical
// memory where MemAvailable is unknown; never below kMinimumBudget.
uint64_t defaultMemoryBudget();
inline constexpr uint64_t kMinimumBudget = uint64_t{64} << 20;
// `requested` when non-zero, else defaultMemoryBudget().
uint64_t resolveMemoryBudget(uint64_t requested);

// Peak and current resident set size of this process (VmHWM, VmRSS), 0 where unknown.
uint64_t peakRssBytes();
uint64_t currentRssBytes();

// Hands memory freed by the allocator back to the system (glibc keeps freed blocks of its
// per-thread arenas; the reading stage's buffers would otherwise stay resident for the rest of
// the run). No-op elsewhere.
void releaseFreedMemory();

// Blocks of 128 KiB and more come from mmap and go back to the system when freed. glibc
// otherwise raises that threshold to the largest block freed so far (up to 32 MiB), and the
// arrays a run has grown out of (the document table's, the passes') stay in its heap,
// resident: 50 MiB more at 1 million documents. No-op elsewhere; process-wide.
void returnLargeBlocksWhenFreed();

// Asks the kernel to back the `bytes` at `data` (a large array, filled once, in order) with
// huge pages where it allows them (transparent huge pages in madvise mode): filling it then
// takes one page fault per 2 MiB instead of per 4 KiB. Only whole huge pages inside the range
// are advised. No-op elsewhere.
void adviseHugePages(const void* data, std::size_t bytes);

template <typename T>
uint64_t capacityBytes(const std::vector<T>& v) {
    return static_cast<uint64_t>(v.capacity()) * sizeof(T);
}

// Heap bytes held by the document table's arrays and id arena.
uint64_t documentTableBytes(const DocumentTable& docs);

}  // namespace neardup
