// How rank 0 cuts a request into one contiguous share per rank. Pure functions, no MPI, so the
// tests check them in every build.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace neardup::mpi {

// Bounds of `parts` contiguous shares of n items whose cumulative weights are `prefixEnd`
// (prefixEnd[i] = total weight of items 0..i, non-decreasing): share r is items
// [bounds[r], bounds[r + 1]). Each bound is the first item whose cumulative weight exceeds
// r/parts of the total, so shares carry about equal weight; some may be empty (fewer items
// than parts, or one heavy item). bounds[0] = 0 and bounds[parts] = n.
inline std::vector<std::size_t> splitByPrefix(const uint64_t* prefixEnd, std::size_t n, int parts) {
    std::vector<std::size_t> bounds(static_cast<std::size_t>(parts) + 1, 0);
    bounds[static_cast<std::size_t>(parts)] = n;
    if (n == 0 || parts <= 1) return bounds;
    const uint64_t total = prefixEnd[n - 1];
    for (int r = 1; r < parts; ++r) {
        // r/parts of the total, rounded down, without overflowing for large totals.
        const auto pr = static_cast<uint64_t>(parts);
        const auto rr = static_cast<uint64_t>(r);
        const uint64_t target = total / pr * rr + total % pr * rr / pr;
        bounds[static_cast<std::size_t>(r)] = static_cast<std::size_t>(
            std::upper_bound(prefixEnd, prefixEnd + n, target) - prefixEnd);
    }
    return bounds;
}

// Bounds of `parts` shares of n items of equal weight: sizes differ by at most one.
inline std::vector<std::size_t> splitEvenly(std::size_t n, int parts) {
    std::vector<std::size_t> bounds(static_cast<std::size_t>(std::max(parts, 1)) + 1, 0);
    const auto p = static_cast<std::size_t>(std::max(parts, 1));
    for (std::size_t r = 0; r <= p; ++r)
        bounds[r] = n / p * r + std::min(r, n % p);
    return bounds;
}

// Comparison work of a bucket of `size` members: its pairs, plus one per member for loading it.
inline uint64_t bucketWork(uint64_t size) {
    return size * (size - 1) / 2 + size;
}

}  // namespace neardup::mpi
