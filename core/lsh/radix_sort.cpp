// Radix sorts of the witness rule; see radix_sort.h.
#include "radix_sort.h"

#include <algorithm>
#include <span>

namespace neardup {

namespace {

constexpr int kBits = RankEdges::kBits;
constexpr std::size_t kDigits = std::size_t{1} << kBits;

// Turns counts per digit into each digit's first output position.
template <typename Counts>
void startPositions(Counts& count) {
    std::size_t sum = 0;
    for (std::size_t& c : count) {
        const std::size_t here = c;
        c = sum;
        sum += here;
    }
}

// Stable least-significant-digit sort of `items` by key(item) >> `from`, a value of `width`
// bits, in passes of kBits bits; a pass whose digit is the same in every key (`varying`: the
// bits that differ between keys) is skipped. `buffer` is scratch space of the same size; the
// result is in `items`.
template <typename Item, typename Key>
void radixSort(std::span<Item> items, std::span<Item> buffer, int from, int width, uint64_t varying,
               Key key) {
    std::array<std::size_t, kDigits> start;
    bool inBuffer = false;
    for (int shift = from; shift < from + width; shift += kBits) {
        if (((varying >> shift) & (kDigits - 1)) == 0) continue;
        const std::span<Item> in = inBuffer ? buffer : items, out = inBuffer ? items : buffer;
        start.fill(0);
        for (const Item& item : in)
            ++start[(key(item) >> shift) & (kDigits - 1)];
        startPositions(start);
        for (const Item& item : in)
            out[start[(key(item) >> shift) & (kDigits - 1)]++] = item;
        inBuffer = !inBuffer;
    }
    if (inBuffer) std::copy(buffer.begin(), buffer.end(), items.begin());
}

}  // namespace

void sortByClusterThenKey(std::vector<KeyedDocument>& items) {
    if (items.empty()) return;
    uint64_t keyOr = 0, keyAnd = ~uint64_t{0};
    uint32_t clusterOr = 0, clusterAnd = ~uint32_t{0};
    for (const KeyedDocument& item : items) {
        keyOr |= item.key;
        keyAnd &= item.key;
        clusterOr |= item.cluster;
        clusterAnd &= item.cluster;
    }
    std::vector<KeyedDocument> buffer(items.size());
    radixSort(std::span(items), std::span(buffer), 0, 64, keyOr ^ keyAnd,
              [](const KeyedDocument& d) { return d.key; });
    radixSort(std::span(items), std::span(buffer), 0, 32, clusterOr ^ clusterAnd,
              [](const KeyedDocument& d) { return uint64_t{d.cluster}; });
}

RankEdges::RankEdges(std::size_t ranks) {
    while (bits_ < 32 && (std::size_t{1} << bits_) < ranks)
        ++bits_;
    topShift_ = std::max(0, bits_ - kBits);
}

std::vector<uint64_t> RankEdges::sorted() && {
    // One scatter by the top digit (counted as the edges came), then each bucket by the lower
    // digits, in cache.
    std::vector<uint64_t> out(edges_.size());
    auto start = count_;
    startPositions(start);
    const int shift = 32 + topShift_;
    for (const uint64_t e : edges_)
        out[start[e >> shift]++] = e;
    if (topShift_ > 0) {
        std::size_t begin = 0;
        for (std::size_t d = 0; d < kDigits; ++d) {
            const std::size_t size = count_[d];
            const std::span<uint64_t> bucket(out.data() + begin, size);
            if (size > 1)
                radixSort(bucket, std::span(edges_.data(), size), 32, topShift_, ~uint64_t{0},
                          [](uint64_t e) { return e; });
            begin += size;
        }
    }
    edges_ = {};
    return out;
}

}  // namespace neardup
