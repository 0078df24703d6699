// Radix sorts of the witness rule; see radix_sort.h.
#include "radix_sort.h"

#include <algorithm>
#include <bit>
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

// The bits in which the keys of `items` differ.
template <typename Item, typename Key>
uint64_t varyingBits(const std::vector<Item>& items, Key key) {
    uint64_t any = 0, all = ~uint64_t{0};
    for (const Item& item : items) {
        any |= key(item);
        all &= key(item);
    }
    return any ^ all;
}

namespace {

// Most-significant-digit sort of items in document order by (key, document): a stable scatter
// by the highest 11 bits in which the keys differ, then each bucket the same way until it is
// small enough to sort in cache. A field value varies in most of its 64 bits, where
// least-significant passes over every digit would read and write the whole list six times;
// here each level is one pass, and a level's buckets hold keys that agree on the top bits.
void sortBuckets(std::span<KeyedDocument> items, std::span<KeyedDocument> scratch) {
    constexpr std::size_t kInCache = 4096;
    if (items.size() <= kInCache) {
        std::sort(items.begin(), items.end(), [](const KeyedDocument& x, const KeyedDocument& y) {
            return x.key != y.key ? x.key < y.key : x.doc < y.doc;
        });
        return;
    }
    uint64_t any = 0, all = ~uint64_t{0};
    for (const KeyedDocument& item : items) {
        any |= item.key;
        all &= item.key;
    }
    const uint64_t varying = any ^ all;
    if (varying == 0) return;  // equal keys, still in document order
    const int shift = std::max(0, 63 - std::countl_zero(varying) - (kBits - 1));
    std::array<std::size_t, kDigits + 1> start{};
    for (const KeyedDocument& item : items)
        ++start[((item.key >> shift) & (kDigits - 1)) + 1];
    for (std::size_t d = 0; d < kDigits; ++d)
        start[d + 1] += start[d];
    auto next = start;
    for (const KeyedDocument& item : items)
        scratch[next[(item.key >> shift) & (kDigits - 1)]++] = item;
    std::copy(scratch.begin(), scratch.end(), items.begin());
    for (std::size_t d = 0; d < kDigits; ++d)
        if (start[d + 1] > start[d] + 1)
            sortBuckets(items.subspan(start[d], start[d + 1] - start[d]),
                        scratch.subspan(start[d], start[d + 1] - start[d]));
}

}  // namespace

void sortByKey(std::vector<KeyedDocument>& items) {
    std::vector<KeyedDocument> scratch(items.size());
    sortBuckets(std::span(items), std::span(scratch));
}

void sortByHigh32(std::vector<uint64_t>& items) {
    auto key = [](uint64_t item) { return item; };
    std::vector<uint64_t> buffer(items.size());
    radixSort(std::span(items), std::span(buffer), 32, 32, varyingBits(items, key), key);
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
