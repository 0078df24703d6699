#include "bucket_compare.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif

namespace neardup {

// Single pairs (buckets of two) use a plain loop compiled for several x86-64 levels and picked
// at load time, so one binary runs everywhere.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)  // ifunc resolvers run before TSan is initialized
#define NEARDUP_COMPARE_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define NEARDUP_X86_KERNELS 1
#else
#define NEARDUP_COMPARE_CLONES
#define NEARDUP_X86_KERNELS 0
#endif

namespace {

// Rows of x compared at once against each row of y: each y row is loaded once for four x rows
// (which stay in L1), and the four counts are independent chains.
constexpr std::size_t kRowsPerBlock = 4;

// counts[l * ny + j] = equal positions of x[l] and y[j], for l < kRowsPerBlock.
using CountBlockFn = void (*)(const uint32_t* const* x, const uint32_t* const* y, std::size_t ny,
                              int hashes, int* counts);

void countBlockGeneric(const uint32_t* const* x, const uint32_t* const* y, std::size_t ny,
                       int hashes, int* counts) {
    for (std::size_t j = 0; j < ny; ++j) {
        const uint32_t* v = y[j];
        int c0 = 0, c1 = 0, c2 = 0, c3 = 0;
        for (int k = 0; k < hashes; ++k) {
            const uint32_t e = v[k];
            c0 += x[0][k] == e;
            c1 += x[1][k] == e;
            c2 += x[2][k] == e;
            c3 += x[3][k] == e;
        }
        counts[j] = c0;
        counts[ny + j] = c1;
        counts[2 * ny + j] = c2;
        counts[3 * ny + j] = c3;
    }
}

#if NEARDUP_X86_KERNELS
// What the vector kernels leave of row `j` of y: the positions from `k` on compared one by one,
// then the block's counts stored. Inlined into each kernel, compiled for its target.
inline void finishRow(const uint32_t* const* x, const uint32_t* v, int k, int hashes,
                      uint64_t (&c)[kRowsPerBlock], std::size_t ny, std::size_t j, int* counts) {
    for (; k < hashes; ++k)
        for (std::size_t l = 0; l < kRowsPerBlock; ++l)
            c[l] += x[l][k] == v[k];
    for (std::size_t l = 0; l < kRowsPerBlock; ++l)
        counts[l * ny + j] = static_cast<int>(c[l]);
}

#pragma GCC push_options
#pragma GCC target("avx2,popcnt")

// Equal positions become mask bits (8 per compare), counted 64 at a time with popcnt.
void countBlockAvx2(const uint32_t* const* x, const uint32_t* const* y, std::size_t ny, int hashes,
                    int* counts) {
    auto mask8 = [](const uint32_t* a, __m256i b) {
        const __m256i eq =
            _mm256_cmpeq_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)), b);
        return static_cast<uint64_t>(
            static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(eq))));
    };
    for (std::size_t j = 0; j < ny; ++j) {
        const uint32_t* v = y[j];
        uint64_t c[kRowsPerBlock] = {0, 0, 0, 0};
        int k = 0;
        for (; k + 64 <= hashes; k += 64) {
            uint64_t words[kRowsPerBlock] = {0, 0, 0, 0};
            for (int part = 0; part < 8; ++part) {
                const __m256i e =
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + k + 8 * part));
                for (std::size_t l = 0; l < kRowsPerBlock; ++l)
                    words[l] |= mask8(x[l] + k + 8 * part, e) << (8 * part);
            }
            for (std::size_t l = 0; l < kRowsPerBlock; ++l)
                c[l] += static_cast<uint64_t>(__builtin_popcountll(words[l]));
        }
        finishRow(x, v, k, hashes, c, ny, j, counts);
    }
}

#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,popcnt")

// Equal positions become mask bits (16 per compare), counted 64 at a time with popcnt.
void countBlockAvx512(const uint32_t* const* x, const uint32_t* const* y, std::size_t ny,
                      int hashes, int* counts) {
    for (std::size_t j = 0; j < ny; ++j) {
        const uint32_t* v = y[j];
        uint64_t c[kRowsPerBlock] = {0, 0, 0, 0};
        int k = 0;
        for (; k + 64 <= hashes; k += 64) {
            const __m512i e0 = _mm512_loadu_si512(v + k);
            const __m512i e1 = _mm512_loadu_si512(v + k + 16);
            const __m512i e2 = _mm512_loadu_si512(v + k + 32);
            const __m512i e3 = _mm512_loadu_si512(v + k + 48);
            for (std::size_t l = 0; l < kRowsPerBlock; ++l) {
                const uint32_t* a = x[l] + k;
                const uint64_t w =
                    uint64_t{_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(a), e0)} |
                    uint64_t{_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(a + 16), e1)} << 16 |
                    uint64_t{_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(a + 32), e2)} << 32 |
                    uint64_t{_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(a + 48), e3)} << 48;
                c[l] += static_cast<uint64_t>(__builtin_popcountll(w));
            }
        }
        for (; k + 16 <= hashes; k += 16) {
            const __m512i e = _mm512_loadu_si512(v + k);
            for (std::size_t l = 0; l < kRowsPerBlock; ++l)
                c[l] += static_cast<uint64_t>(
                    __builtin_popcount(_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(x[l] + k), e)));
        }
        finishRow(x, v, k, hashes, c, ny, j, counts);
    }
}

#pragma GCC pop_options
#endif

struct Kernel {
    const char* name;
    CountBlockFn fn;
};

Kernel detectKernel() {
#if NEARDUP_X86_KERNELS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("popcnt"))
        return {"avx512", countBlockAvx512};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
        return {"avx2", countBlockAvx2};
#endif
    return {"generic", countBlockGeneric};
}

Kernel& activeKernel() {
    static Kernel kernel = detectKernel();
    return kernel;
}

inline int matchesInline(const uint32_t* a, const uint32_t* b, int hashes) {
    int m = 0;
    for (int i = 0; i < hashes; ++i)
        m += a[i] == b[i];
    return m;
}

bool sameSignature(const SignatureMatrix& s, uint32_t x, uint32_t y) {
    return std::memcmp(s.row(x), s.row(y), sizeof(uint32_t) * std::size_t(s.hashes)) == 0;
}

// Row and key pointers of leaders[first .. first + n) into scratch at `slot` (0 or 1).
CompareTile makeTile(const uint32_t* leaders, std::size_t first, std::size_t n, int slot, int band,
                     const CompareRequest& req, BucketScratch& scratch) {
    const SignatureMatrix& sigs = *req.signatures;
    const std::size_t base = static_cast<std::size_t>(slot) * kCompareTile;
    const bool keys = band > 0 && req.keys != nullptr;
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t doc = leaders[first + i];
        scratch.rows[base + i] = sigs.row(doc);
        scratch.keys[base + i] =
            keys ? req.keys + std::size_t(doc) * std::size_t(req.bands) : nullptr;
    }
    return {leaders + first, scratch.rows.data() + base, scratch.keys.data() + base, n};
}

}  // namespace

const char* compareKernelName() {
    return activeKernel().name;
}

bool selectCompareKernel(const std::string& name) {
    const Kernel best = detectKernel();
    if (name == "generic") {
        activeKernel() = {"generic", countBlockGeneric};
        return true;
    }
#if NEARDUP_X86_KERNELS
    const bool avx512 = std::string_view(best.name) == "avx512";
    if (name == "avx2" && (avx512 || std::string_view(best.name) == "avx2")) {
        activeKernel() = {"avx2", countBlockAvx2};
        return true;
    }
    if (name == "avx512" && avx512) {
        activeKernel() = best;
        return true;
    }
#endif
    if (name == "auto") {
        activeKernel() = best;
        return true;
    }
    return false;
}

NEARDUP_COMPARE_CLONES
int countMatches(const uint32_t* a, const uint32_t* b, int hashes) {
    return matchesInline(a, b, hashes);
}

// hit[j] = 1 when kx shares a key of a band before `band` with column j of keysT (band-major,
// `stride` columns). Checking one x against a whole tile turns the first-collision rule into
// vector compares instead of a data-dependent loop per pair.
NEARDUP_COMPARE_CLONES
void markEarlierCollisions(const uint64_t* kx, const uint64_t* keysT, std::size_t stride, int band,
                           std::size_t ny, uint8_t* hit) {
    std::fill(hit, hit + ny, uint8_t{0});
    for (int t = 0; t < band; ++t) {
        const uint64_t k = kx[t];
        const uint64_t* column = keysT + static_cast<std::size_t>(t) * stride;
        for (std::size_t j = 0; j < ny; ++j)
            hit[j] |= static_cast<uint8_t>(column[j] == k);
    }
}

uint64_t compareTiles(const CompareTile& a, const CompareTile& b, bool same,
                      const CompareRule& rule, std::vector<ScoredPair>& out) {
    const CountBlockFn count = activeKernel().fn;
    const int band = rule.band;
    const std::size_t nb = b.size;
    // Rows of a bucket lie anywhere in the matrix: asking for all of them (and their keys) up
    // front lets their cache misses overlap instead of stalling one line at a time.
    const std::size_t rowBytes = sizeof(uint32_t) * static_cast<std::size_t>(rule.hashes);
    const std::size_t keyBytes = sizeof(uint64_t) * static_cast<std::size_t>(band);
    for (const CompareTile* t : {&a, &b})
        for (std::size_t i = 0; i < t->size; ++i) {
            for (std::size_t off = 0; off < keyBytes; off += 64)
                __builtin_prefetch(reinterpret_cast<const char*>(t->keys[i]) + off, 0, 2);
            for (std::size_t off = 0; off < rowBytes; off += 64)
                __builtin_prefetch(reinterpret_cast<const char*>(t->rows[i]) + off, 0, 2);
        }
    // Earlier-band keys of b, band-major, and which of b each x row collided with earlier.
    thread_local std::vector<uint64_t> keysT;
    thread_local std::vector<uint8_t> hits;
    if (band > 0) {
        keysT.resize(static_cast<std::size_t>(band) * nb);
        for (std::size_t j = 0; j < nb; ++j)
            for (int t = 0; t < band; ++t)
                keysT[static_cast<std::size_t>(t) * nb + j] = b.keys[j][t];
    }
    hits.assign(kRowsPerBlock * nb, 0);
    uint64_t decided = 0;
    int counts[kRowsPerBlock * kCompareTile];
    for (std::size_t i0 = 0; i0 < a.size; i0 += kRowsPerBlock) {
        const std::size_t nx = std::min(kRowsPerBlock, a.size - i0);
        const uint32_t* x[kRowsPerBlock];
        for (std::size_t l = 0; l < kRowsPerBlock; ++l)
            x[l] = a.rows[i0 + std::min(l, nx - 1)];  // a short block repeats its last row
        if (band > 0)
            for (std::size_t l = 0; l < nx; ++l)
                markEarlierCollisions(a.keys[i0 + l], keysT.data(), nb, band, nb,
                                      hits.data() + l * nb);
        // Inside one tile only pairs i < j count; the few below the diagonal in a block of
        // four are counted and dropped.
        for (std::size_t j0 = same ? i0 + 1 : 0; j0 < nb; j0 += kCompareTile) {
            const std::size_t ny = std::min(kCompareTile, nb - j0);
            count(x, b.rows + j0, ny, rule.hashes, counts);
            for (std::size_t l = 0; l < nx; ++l) {
                const std::size_t i = i0 + l;
                const uint8_t* hit = hits.data() + l * nb;
                for (std::size_t jj = 0; jj < ny; ++jj) {
                    const std::size_t j = j0 + jj;
                    if ((same && j <= i) || hit[j]) continue;
                    ++decided;
                    const int m = counts[l * ny + jj];
                    if (m >= rule.minMatches)
                        out.push_back({a.ids[i], b.ids[j], static_cast<uint32_t>(m), -1.0f});
                }
            }
        }
    }
    return decided;
}

uint64_t collapseCopies(const uint32_t* members, std::size_t size, int band,
                        const CompareRequest& req, BucketScratch& scratch,
                        std::vector<ScoredPair>& out) {
    const SignatureMatrix& sigs = *req.signatures;
    const int hashes = sigs.hashes;
    const bool keys = band > 0 && req.keys != nullptr;
    uint64_t decided = 0;
    auto& byDigest = scratch.byDigest;
    byDigest.clear();
    for (std::size_t i = 0; i < size; ++i)
        byDigest.emplace_back(sigs.digests[members[i]], members[i]);
    std::sort(byDigest.begin(), byDigest.end());
    auto& leaders = scratch.leaders;
    leaders.clear();
    for (std::size_t i = 0; i < byDigest.size();) {
        std::size_t j = i + 1;
        while (j < byDigest.size() && byDigest[j].first == byDigest[i].first)
            ++j;
        // Within a digest run, a member differing from the leader (a digest collision) becomes a
        // leader of its own, so correctness never rests on the digest.
        const uint32_t leader = byDigest[i].second;
        leaders.push_back(leader);
        for (std::size_t m = i + 1; m < j; ++m) {
            const uint32_t doc = byDigest[m].second;
            if (!sameSignature(sigs, leader, doc)) {
                leaders.push_back(doc);
                continue;
            }
            if (keys && collidedEarlier(req.keys, req.bands, leader, doc, band)) continue;
            ++decided;
            if (hashes >= req.minMatches)
                out.push_back({leader, doc, static_cast<uint32_t>(hashes), -1.0f});
        }
        i = j;
    }
    std::sort(leaders.begin(), leaders.end());
    return decided;
}

uint64_t compareLeaderTiles(const uint32_t* leaders, std::size_t count, std::size_t tileBegin,
                            std::size_t tileEnd, int band, const CompareRequest& req,
                            BucketScratch& scratch, std::vector<ScoredPair>& out) {
    scratch.rows.resize(2 * kCompareTile);
    scratch.keys.resize(2 * kCompareTile);
    // Without band keys (a request that gives none) no earlier band can have joined a pair:
    // the rule then consults none, as the other paths do.
    const CompareRule rule{req.keys != nullptr ? band : 0, req.signatures->hashes, req.minMatches};
    const std::size_t tiles = tileCount(count);
    uint64_t decided = 0;
    for (std::size_t ti = tileBegin; ti < std::min(tileEnd, tiles); ++ti) {
        const std::size_t firstI = ti * kCompareTile;
        const CompareTile a = makeTile(leaders, firstI, std::min(kCompareTile, count - firstI), 0,
                                       band, req, scratch);
        decided += compareTiles(a, a, true, rule, out);
        for (std::size_t tj = ti + 1; tj < tiles; ++tj) {
            const std::size_t firstJ = tj * kCompareTile;
            const CompareTile b = makeTile(leaders, firstJ, std::min(kCompareTile, count - firstJ),
                                           1, band, req, scratch);
            decided += compareTiles(a, b, false, rule, out);
        }
    }
    return decided;
}

uint64_t compareBucket(const uint32_t* members, std::size_t size, int band,
                       const CompareRequest& req, BucketScratch& scratch,
                       std::vector<ScoredPair>& out) {
    if (size < 2) return 0;
    if (size == 2) {
        const uint32_t x = members[0], y = members[1];
        if (band > 0 && req.keys != nullptr && collidedEarlier(req.keys, req.bands, x, y, band))
            return 0;
        const SignatureMatrix& sigs = *req.signatures;
        const int m = countMatches(sigs.row(x), sigs.row(y), sigs.hashes);
        if (m >= req.minMatches) out.push_back({x, y, static_cast<uint32_t>(m), -1.0f});
        return 1;
    }
    uint64_t decided = collapseCopies(members, size, band, req, scratch, out);
    // compareLeaderTiles reads the leaders while the scratch's pointer arrays change; the
    // leaders vector itself is not touched there.
    const std::vector<uint32_t>& leaders = scratch.leaders;
    decided += compareLeaderTiles(leaders.data(), leaders.size(), 0, tileCount(leaders.size()),
                                  band, req, scratch, out);
    return decided;
}

}  // namespace neardup
