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
#include <string>
#include <string_view>
#include <vector>

#include "byte_size.h"  // parseByteSize, for the callers that size a budget
#include "document_table.h"

namespace neardup {

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

template <typename T>
uint64_t capacityBytes(const std::vector<T>& v) {
    return static_cast<uint64_t>(v.capacity()) * sizeof(T);
}

// Heap bytes held by the document table's arrays and id arena.
uint64_t documentTableBytes(const DocumentTable& docs);

}  // namespace neardup
