// Gathering one band's entries in (key, document) order (band_entries.h): gathered in document
// order, then put in key order by a stable radix sort on the keys' top bits.
#include "band_entries.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>

namespace neardup {

namespace {

// Below this many documents a comparison sort of the band is as fast: it is sorted whole
// (measured: docs/performance.md).
constexpr std::size_t kRadixFrom = std::size_t{1} << 12;
// A block (one thread's share of each pass) has at least this many entries.
constexpr std::size_t kEntriesPerBlock = std::size_t{1} << 15;
// Three passes of 11 bits: 33 of the keys' top bits, with 2 Ki counts a block (L1-sized).
constexpr int kDigitBits = 11;
constexpr std::size_t kDigits = std::size_t{1} << kDigitBits;
constexpr int kPasses = 3;

void gatherAndSortWhole(const uint64_t* keys, std::size_t documents, int bands, int band,
                        const std::vector<uint8_t>& eligible, std::vector<BucketEntry>& entries) {
    entries.clear();
    for (std::size_t i = 0; i < documents; ++i)
        if (eligible[i])
            entries.emplace_back(keys[i * std::size_t(bands) + std::size_t(band)],
                                 static_cast<uint32_t>(i));
    tbb::parallel_sort(entries.begin(), entries.end());
}

// Entries [begin, end) of `count`, split into `blocks` equal blocks.
struct Blocks {
    std::size_t count;
    std::size_t blocks;
    std::size_t begin(std::size_t b) const { return count * b / blocks; }
};

// `count` entries in blocks of at least kEntriesPerBlock, at most one per thread of the arena.
Blocks blocksOf(std::size_t count) {
    const auto threads =
        static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
    return Blocks{count, std::clamp<std::size_t>(count / kEntriesPerBlock, 1, threads)};
}

// Puts entries whose keys agree on the bits the radix passes sorted (all but the lowest `low`)
// in (key, document) order: each run of such entries is sorted. On hashed keys these runs are
// single entries but for equal keys, which the stable passes left in document order already.
// With low == 0 the runs are equal keys, which entries given in document order have in order
// already (one pass finds that).
void sortRunsBelow(BucketEntry* entries, std::size_t n, int low) {
    for (std::size_t i = 0; i < n;) {
        const uint64_t top = entries[i].first >> low;
        std::size_t j = i + 1;
        bool ordered = true;
        for (; j < n && (entries[j].first >> low) == top; ++j)
            ordered = ordered && !(entries[j] < entries[j - 1]);
        if (!ordered) std::sort(entries + i, entries + j);
        i = j;
    }
}

}  // namespace

void gatherSortedBandEntries(const uint64_t* keys, std::size_t documents, int bands, int band,
                             const std::vector<uint8_t>& eligible,
                             std::vector<BucketEntry>& entries) {
    if (documents < kRadixFrom)
        return gatherAndSortWhole(keys, documents, bands, band, eligible, entries);
    const uint64_t* column = keys + band;
    const auto stride = static_cast<std::size_t>(bands);
    // Each block of documents takes its eligible ones, in document order, into its place in
    // the second half of `entries` (the passes' other buffer, kept with the entries' capacity
    // from band to band).
    const Blocks docs = blocksOf(documents);
    std::vector<std::size_t> firstOf(docs.blocks + 1, 0);
    std::vector<uint64_t> bitsOf(docs.blocks, 0);
    tbb::parallel_for(std::size_t{0}, docs.blocks, [&](std::size_t b) {
        std::size_t taken = 0;
        for (std::size_t i = docs.begin(b), end = docs.begin(b + 1); i < end; ++i)
            taken += eligible[i] != 0 ? 1 : 0;
        firstOf[b + 1] = taken;
    });
    for (std::size_t b = 0; b < docs.blocks; ++b)
        firstOf[b + 1] += firstOf[b];
    const std::size_t n = firstOf[docs.blocks];
    entries.resize(2 * n);
    BucketEntry* src = entries.data() + n;
    BucketEntry* dst = entries.data();
    tbb::parallel_for(std::size_t{0}, docs.blocks, [&](std::size_t b) {
        BucketEntry* out = src + firstOf[b];
        uint64_t bits = 0;
        for (std::size_t i = docs.begin(b), end = docs.begin(b + 1); i < end; ++i) {
            if (!eligible[i]) continue;
            const uint64_t key = column[i * stride];
            bits |= key;
            *out++ = {key, static_cast<uint32_t>(i)};
        }
        bitsOf[b] = bits;
    });

    uint64_t bits = 0;
    for (const uint64_t b : bitsOf)
        bits |= b;
    const BucketEntry* sorted = radixSortBandEntries(src, dst, n, bits);
    if (sorted != entries.data()) std::copy(sorted, sorted + n, entries.data());
    entries.resize(n);
}

BucketEntry* radixSortBandEntries(BucketEntry* entries, BucketEntry* buffer, std::size_t n,
                                  uint64_t keyBits) {
    if (n < kRadixFrom) {
        std::sort(entries, entries + n);
        return entries;
    }
    BucketEntry* src = entries;
    BucketEntry* dst = buffer;
    // Stable least-significant-digit passes over the keys' top 33 bits. Hashed keys fill all
    // 64; keys reduced modulo a bucket count (K) only the low ones, all of which are sorted.
    const int width = std::bit_width(keyBits);
    const int low = std::max(0, width - kPasses * kDigitBits);
    const Blocks parts = blocksOf(n);
    std::vector<uint32_t> counts(parts.blocks * kDigits);
    for (int shift = low; shift < width; shift += kDigitBits) {
        tbb::parallel_for(std::size_t{0}, parts.blocks, [&](std::size_t b) {
            uint32_t* c = counts.data() + b * kDigits;
            std::fill(c, c + kDigits, 0u);
            for (std::size_t i = parts.begin(b), end = parts.begin(b + 1); i < end; ++i)
                ++c[(src[i].first >> shift) & (kDigits - 1)];
        });
        // Digits in order, blocks in order within a digit: each entry's place, stably.
        uint32_t total = 0;
        for (std::size_t d = 0; d < kDigits; ++d)
            for (std::size_t b = 0; b < parts.blocks; ++b) {
                uint32_t& c = counts[b * kDigits + d];
                const uint32_t k = c;
                c = total;
                total += k;
            }
        tbb::parallel_for(std::size_t{0}, parts.blocks, [&](std::size_t b) {
            uint32_t* next = counts.data() + b * kDigits;
            for (std::size_t i = parts.begin(b), end = parts.begin(b + 1); i < end; ++i)
                dst[next[(src[i].first >> shift) & (kDigits - 1)]++] = src[i];
        });
        std::swap(src, dst);
    }
    sortRunsBelow(src, n, low);
    return src;
}

}  // namespace neardup
