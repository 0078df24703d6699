#include "memory_budget.h"

#include <fmt/format.h>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

namespace neardup {

std::string formatBytes(uint64_t bytes) {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    if (u == 0) return fmt::format("{} B", bytes);
    return v < 10 ? fmt::format("{:.2f} {}", v, kUnits[u]) : fmt::format("{:.0f} {}", v, kUnits[u]);
}

namespace {

// 1000000 as "1,000,000".
std::string groupedDigits(uint64_t n) {
    std::string digits = std::to_string(n);
    for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

std::string budgetMessage(uint64_t budget, uint64_t documents, bool estimated,
                          uint64_t floorBytes) {
    const uint64_t perDocument = documents > 0 ? (floorBytes + documents - 1) / documents : 0;
    return fmt::format(
        "--memory-budget {} is below what {}{} documents need (about {}: {} bytes a document "
        "for the document table, signature digests and flags, which stay in memory for the "
        "whole run); give at least {}M",
        formatBytes(budget), estimated ? "about " : "", groupedDigits(documents),
        formatBytes(floorBytes), perDocument,
        MemoryBudgetError::smallestBudgetFor(floorBytes) >> 20);
}

// A "Key:   123 kB" line of a /proc file, in bytes; 0 when absent.
uint64_t procKilobytes(const char* file, const std::string& key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() ||
            line[key.size()] != ':')
            continue;
        return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10) * 1024;
    }
    return 0;
}

}  // namespace

MemoryBudgetError::MemoryBudgetError(uint64_t budget, uint64_t documents, bool estimated,
                                     uint64_t floorBytes)
    : std::runtime_error(budgetMessage(budget, documents, estimated, floorBytes)),
      budget_(budget),
      documents_(documents),
      floorBytes_(floorBytes) {}

uint64_t MemoryBudgetError::smallestBudgetFor(uint64_t floorBytes) {
    constexpr uint64_t kMiB = uint64_t{1} << 20;
    return (floorBytes + floorBytes / 8 + kSmallestWorkingBytes + kMiB - 1) / kMiB * kMiB;
}

uint64_t defaultMemoryBudget() {
    uint64_t available = procKilobytes("/proc/meminfo", "MemAvailable");
    if (available == 0) {
        const long pages = ::sysconf(_SC_PHYS_PAGES);
        const long pageSize = ::sysconf(_SC_PAGESIZE);
        if (pages > 0 && pageSize > 0)
            available = static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
    }
    return std::max(kMinimumBudget, available / 2);
}

uint64_t resolveMemoryBudget(uint64_t requested) {
    return requested != 0 ? requested : defaultMemoryBudget();
}

uint64_t peakRssBytes() {
    return procKilobytes("/proc/self/status", "VmHWM");
}

uint64_t currentRssBytes() {
    return procKilobytes("/proc/self/status", "VmRSS");
}

void releaseFreedMemory() {
#if defined(__GLIBC__)
    ::malloc_trim(0);
#endif
}

void adviseHugePages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t last = (begin + bytes) & ~(kHugePage - 1);
    // Advice only: a kernel without transparent huge pages refuses it, and nothing changes.
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

void returnLargeBlocksWhenFreed() {
#if defined(__GLIBC__)
    ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

uint64_t documentTableBytes(const DocumentTable& docs) {
    return capacityBytes(docs.file) + capacityBytes(docs.line) + capacityBytes(docs.offset) +
           capacityBytes(docs.length) + capacityBytes(docs.chars) + capacityBytes(docs.keepValue) +
           capacityBytes(docs.idEnd) + static_cast<uint64_t>(docs.idArena.capacity());
}

}  // namespace neardup
