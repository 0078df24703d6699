// Gathering one band's entries in (key, document) order (band_entries.h): counted by the keys'
// top bits per block of documents, placed into their bins, and each bin sorted.
#include "band_entries.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>

namespace neardup {

namespace {

constexpr int kBinBits = 16;
constexpr std::size_t kBins = std::size_t{1} << kBinBits;
// Below this many documents, the 64 Ki bins cost more than they save: the band is sorted whole.
constexpr std::size_t kPartitionFrom = std::size_t{1} << 15;
// A block has at least this many documents, so that its 256 KiB of counts pay for themselves.
constexpr std::size_t kDocumentsPerBlock = std::size_t{1} << 15;
// A bin this large (many documents with one key: copies, crowded corpora) is sorted in parallel.
constexpr std::size_t kLargeBin = std::size_t{1} << 14;

void gatherAndSortWhole(const uint64_t* keys, std::size_t documents, int bands, int band,
                        const std::vector<uint8_t>& eligible, std::vector<BucketEntry>& entries) {
    entries.clear();
    for (std::size_t i = 0; i < documents; ++i)
        if (eligible[i])
            entries.emplace_back(keys[i * std::size_t(bands) + std::size_t(band)],
                                 static_cast<uint32_t>(i));
    tbb::parallel_sort(entries.begin(), entries.end());
}

}  // namespace

void gatherSortedBandEntries(const uint64_t* keys, std::size_t documents, int bands, int band,
                             const std::vector<uint8_t>& eligible,
                             std::vector<BucketEntry>& entries) {
    if (documents < kPartitionFrom)
        return gatherAndSortWhole(keys, documents, bands, band, eligible, entries);
    const uint64_t* column = keys + band;
    const auto stride = static_cast<std::size_t>(bands);
    const std::size_t blocks = std::clamp<std::size_t>(
        documents / kDocumentsPerBlock, 1,
        static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency())));
    auto blockBegin = [&](std::size_t b) { return documents * b / blocks; };

    // Per block and bin, how many keys; the block's largest key.
    std::vector<uint32_t> counts(blocks * kBins);
    std::vector<uint64_t> largest(blocks);
    auto count = [&](int shift) {
        tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
            uint32_t* c = counts.data() + b * kBins;
            std::fill(c, c + kBins, 0u);
            uint64_t top = 0;
            for (std::size_t i = blockBegin(b), end = blockBegin(b + 1); i < end; ++i) {
                if (!eligible[i]) continue;
                const uint64_t key = column[i * stride];
                ++c[key >> shift];
                top = std::max(top, key);
            }
            largest[b] = top;
        });
    };
    // Hashed keys fill all 64 bits; keys reduced modulo a bucket count (K) only the low ones,
    // and are counted again by their own top bits.
    int shift = 64 - kBinBits;
    count(shift);
    const int width = std::bit_width(*std::max_element(largest.begin(), largest.end()));
    if (width < 64 - 2) {
        shift = std::max(0, width - kBinBits);
        count(shift);
    }

    // Where each block's entries of each bin go: bins in key order, blocks in document order.
    std::vector<std::size_t> binBegin(kBins + 1);
    std::size_t total = 0;
    for (std::size_t bin = 0; bin < kBins; ++bin) {
        binBegin[bin] = total;
        for (std::size_t b = 0; b < blocks; ++b) {
            uint32_t& c = counts[b * kBins + bin];
            const auto n = c;
            c = static_cast<uint32_t>(total);
            total += n;
        }
    }
    binBegin[kBins] = total;

    entries.resize(total);
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
        uint32_t* next = counts.data() + b * kBins;
        for (std::size_t i = blockBegin(b), end = blockBegin(b + 1); i < end; ++i) {
            if (!eligible[i]) continue;
            const uint64_t key = column[i * stride];
            entries[next[key >> shift]++] = {key, static_cast<uint32_t>(i)};
        }
    });
    // Within a bin the documents already ascend; the keys are put in order.
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, kBins, 512),
        [&](const tbb::blocked_range<std::size_t>& range) {
            for (std::size_t bin = range.begin(); bin < range.end(); ++bin) {
                const auto first = entries.begin() + static_cast<std::ptrdiff_t>(binBegin[bin]);
                const auto last = entries.begin() + static_cast<std::ptrdiff_t>(binBegin[bin + 1]);
                if (last - first > static_cast<std::ptrdiff_t>(kLargeBin))
                    tbb::parallel_sort(first, last);
                else if (last - first > 1)
                    std::sort(first, last);
            }
        });
}

}  // namespace neardup
