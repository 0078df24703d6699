// Exact all-pairs set-similarity join: every pair of shingle sets with Jaccard >= floor.
//
// Two candidate generators, both exact, both followed by the same bitmap filter and exactJaccard:
// - Prefix (AllPairs / PPJoin): documents sorted by size; tokens in a global order, rarest first;
//   a pair with J >= t shares a token between the probe prefix (|x| - ceil(t|x|) + 1 tokens) of
//   the larger and the index prefix (|y| - ceil(2t/(1+t)|y|) + 1) of the smaller; size filter
//   |y| >= t|x|, and PPJoin's positional filter on every match.
// - Scan: every pair inside the size window. On English-like text at t = 0.5 the rarest half of
//   a document's character 5-grams still occurs in a few percent of all documents, so prefix
//   postings grow like N^2 anyway and a sequential scan of bitmaps is far cheaper.
// The bitmap filter: each document sets bit (fingerprint mod B) per shingle; every bit set in
// exactly one of two bitmaps is a shingle of the symmetric difference, so
// |x ∩ y| <= (|x| + |y| - popcount(bx ^ by)) / 2.
//
// The global token order is (document frequency estimate, fingerprint). The estimate counts
// tokens in 2^K buckets by the fingerprint's top bits: collisions only inflate it, so the order
// stays a strict total order (all the prefix principle needs) and a count of 1 still proves a
// token occurs in one document only; such tokens are neither indexed nor probed.
#include "exact_join.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "evaluation.h"
#include "shingles.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)  // ifunc resolvers run before TSan is initialized
// The x86-64 baseline has no POPCNT instruction; pick it at load time where the CPU has it.
#define NEARDUP_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define NEARDUP_POPCNT_CLONES
#endif

namespace neardup {

namespace {

constexpr double kEps = 1e-9;  // keeps every bound on the lenient side of rounding

struct Token {
    uint32_t count;
    uint64_t fp;
    bool operator<(const Token& o) const { return count != o.count ? count < o.count : fp < o.fp; }
};

struct Entry {
    uint64_t fp;
    uint32_t rank;  // of the indexed document in (size, input index) order
    uint32_t pos;   // of the token in that document's global order
};

struct Found {
    uint32_t a, b;  // input indices, a < b
    double jaccard;
};

// Smallest overlap two sets of sizes sx, sy need for Jaccard >= t (= ratio * (sx + sy)), lenient.
inline int64_t minOverlap(double ratio, uint64_t sx, uint64_t sy) {
    const double v = ratio * static_cast<double>(sx + sy) - kEps;
    const auto floor = static_cast<int64_t>(v);  // v > -1: truncation is floor, no libm call
    return floor < v ? floor + 1 : floor;
}

// Whether the bitmap bound allows overlap `need`: stops as soon as the differing bits exceed
// what the overlap allows, which for unrelated documents is about half way through.
[[gnu::always_inline]] inline bool bitmapAllowsImpl(const uint64_t* bx, const uint64_t* by,
                                                    std::size_t words, uint64_t total,
                                                    int64_t need) {
    const int64_t budget = static_cast<int64_t>(total) - 2 * need;  // most differing bits allowed
    if (budget < 0) return false;
    uint64_t differ = 0;
    const auto pop = [bx, by](std::size_t w) {
        return static_cast<uint64_t>(std::popcount(bx[w] ^ by[w]));
    };
    for (std::size_t w = 0; w < words; w += 8) {  // words is a multiple of 8; unrolled by hand
        differ += (pop(w) + pop(w + 1)) + (pop(w + 2) + pop(w + 3)) + (pop(w + 4) + pop(w + 5)) +
                  (pop(w + 6) + pop(w + 7));
        if (static_cast<int64_t>(differ) > budget) return false;
    }
    return true;
}

NEARDUP_POPCNT_CLONES
bool bitmapAllows(const uint64_t* bx, const uint64_t* by, std::size_t words, uint64_t total,
                  int64_t need) {
    return bitmapAllowsImpl(bx, by, words, total, need);
}

// Appends to `out` every rank y in [lo, hi) whose bitmap bound allows the needed overlap with x.
NEARDUP_POPCNT_CLONES
void bitmapSurvivors(const uint64_t* bx, const uint64_t* bitmaps, std::size_t words,
                     const uint32_t* sizes, uint32_t sx, uint32_t lo, uint32_t hi, double ratio,
                     std::vector<uint32_t>& out) {
    for (uint32_t y = lo; y < hi; ++y) {
        if (bitmapAllowsImpl(bx, bitmaps + static_cast<std::size_t>(y) * words, words,
                             uint64_t{sx} + sizes[y], minOverlap(ratio, sx, sizes[y])))
            out.push_back(y);
    }
}

class Join {
  public:
    Join(const std::vector<std::string>& texts, const GroundTruth& truth)
        : texts_(texts), truth_(truth), t_(truth.floor), ratio_(t_ / (1.0 + t_)) {}

    std::vector<Found> run(JoinStrategy& strategy) {
        shingle();
        rankDocuments();
        buildBitmaps();
        if (strategy != JoinStrategy::Scan) countTokens();
        if (strategy == JoinStrategy::Auto) strategy = choose();
        if (strategy == JoinStrategy::Scan) return finish(scan());
        buildIndex();
        return finish(probe());
    }

  private:
    uint64_t bucketOf(uint64_t fp) const { return fp >> (64 - bits_); }

    std::size_t probeLength(std::size_t s) const {
        const auto need = static_cast<std::size_t>(std::ceil(t_ * static_cast<double>(s) - kEps));
        return std::min(s, s - std::min(s, need) + 1);
    }
    // Documents are probed only against smaller-or-equal ones (by rank), so the indexed side may
    // use the shorter prefix for overlap >= 2t/(1+t) |y|.
    std::size_t indexLength(std::size_t s) const {
        const auto need =
            static_cast<std::size_t>(std::ceil(2.0 * ratio_ * static_cast<double>(s) - kEps));
        return std::min(s, s - std::min(s, need) + 1);
    }
    // Lowest rank whose size passes the size filter for a document of size sx at rank rx.
    uint32_t minRank(std::size_t rx) const {
        const auto minSize =
            static_cast<uint32_t>(std::ceil(t_ * static_cast<double>(sizes_[rx]) - kEps));
        return static_cast<uint32_t>(
            std::lower_bound(sizes_.begin(), sizes_.begin() + static_cast<std::ptrdiff_t>(rx),
                             minSize) -
            sizes_.begin());
    }

    // The first `length` tokens of document `doc` in global order, in `out`.
    void prefix(uint32_t doc, std::size_t length, std::vector<Token>& out) const {
        const auto& set = sets_[doc];
        out.resize(set.size());
        for (std::size_t i = 0; i < set.size(); ++i)
            out[i] = {counts_[bucketOf(set[i])], set[i]};
        const auto mid = out.begin() + static_cast<std::ptrdiff_t>(length);
        if (mid != out.end()) std::nth_element(out.begin(), mid, out.end());
        std::sort(out.begin(), mid);
        out.resize(length);
    }

    const uint64_t* bitmap(std::size_t rank) const { return bitmaps_.data() + rank * words_; }

    void shingle() {
        struct Worker {
            explicit Worker(const NormalizeOptions& n) : normalizer(n) {}
            Normalizer normalizer;
            std::vector<uint32_t> symbols;
        };
        sets_.resize(texts_.size());
        tbb::enumerable_thread_specific<Worker> workers(Worker(truth_.normalize));
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, texts_.size(), 16), [&](auto r) {
            Worker& w = workers.local();
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                toSymbols(truth_.shingle, w.normalizer.run(texts_[i]), w.symbols);
                shingleSet(w.symbols.data(), w.symbols.size(), truth_.ngram, sets_[i]);
            }
        });
    }

    void rankDocuments() {
        for (uint32_t i = 0; i < sets_.size(); ++i) {
            if (!sets_[i].empty()) order_.push_back(i);  // empty sets never pair
        }
        std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
            return sets_[a].size() != sets_[b].size() ? sets_[a].size() < sets_[b].size() : a < b;
        });
        sizes_.resize(order_.size());
        for (std::size_t r = 0; r < order_.size(); ++r)
            sizes_[r] = static_cast<uint32_t>(sets_[order_[r]].size());
    }

    // Three to six bits per shingle of the median document: sparse enough that unrelated
    // documents (which share ~5% of their character 5-grams) differ in most of their bits.
    void buildBitmaps() {
        const std::size_t median = sizes_.empty() ? 0 : sizes_[sizes_.size() / 2];
        const std::size_t bits = std::clamp<std::size_t>(std::bit_ceil(3 * median), 512, 32768);
        words_ = bits / 64;
        bitmaps_.assign(order_.size() * words_, 0);
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, order_.size(), 64), [&](auto r) {
            for (std::size_t rank = r.begin(); rank != r.end(); ++rank) {
                uint64_t* b = bitmaps_.data() + rank * words_;
                for (const uint64_t fp : sets_[order_[rank]]) {
                    const uint64_t bit = fp & (bits - 1);
                    b[bit >> 6] |= uint64_t{1} << (bit & 63);
                }
            }
        });
    }

    void countTokens() {
        uint64_t total = 0;
        for (const auto& s : sets_)
            total += s.size();
        bits_ = std::clamp(static_cast<int>(std::bit_width(total)), 12, 24);
        counts_.assign(std::size_t{1} << bits_, 0);
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, sets_.size(), 16), [&](auto r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                for (const uint64_t fp : sets_[i])
                    std::atomic_ref<uint32_t>(counts_[bucketOf(fp)])
                        .fetch_add(1, std::memory_order_relaxed);
            }
        });
    }

    // Estimated costs on a sample of documents, in nanoseconds as measured on one core of the
    // development machine (18k documents of 2.6 KB: char 5-grams and word 3-grams at floors
    // 0.5-0.9 all favour the scan; the prefix index wins on larger corpora at high floors).
    JoinStrategy choose() const {
        const std::size_t m = order_.size();
        if (m < 2) return JoinStrategy::Scan;
        const std::size_t samples = std::min<std::size_t>(m, 256);
        double scanCost = 0, prefixCost = 0;
        std::vector<Token> tokens;
        for (std::size_t s = 0; s < samples; ++s) {
            const std::size_t rx = s * m / samples;
            const auto window = static_cast<double>(rx - minRank(rx));
            scanCost += window * (0.2 * static_cast<double>(words_) + 3.0);
            prefix(order_[rx], probeLength(sizes_[rx]), tokens);
            double postings = 0;  // occurrences of x's probe tokens in all documents
            for (const Token& tok : tokens) {
                if (tok.count >= 2) postings += tok.count;
            }
            const double n = static_cast<double>(sizes_[rx]);
            prefixCost += 3.0 * postings + 27.0 * n * std::log2(n + 2.0);
        }
        return scanCost <= prefixCost ? JoinStrategy::Scan : JoinStrategy::Prefix;
    }

    template <typename F>
    void forIndexTokens(F f) {
        tbb::enumerable_thread_specific<std::vector<Token>> scratch;
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, order_.size(), 16), [&](auto r) {
            auto& tokens = scratch.local();
            for (std::size_t rank = r.begin(); rank != r.end(); ++rank) {
                prefix(order_[rank], indexLength(sizes_[rank]), tokens);
                for (std::size_t j = 0; j < tokens.size(); ++j) {
                    if (tokens[j].count >= 2) f(rank, j, tokens[j].fp);
                }
            }
        });
    }

    void buildIndex() {
        const std::size_t buckets = std::size_t{1} << bits_;
        std::vector<uint32_t> fill(buckets + 1, 0);
        forIndexTokens([&](std::size_t, std::size_t, uint64_t fp) {
            std::atomic_ref<uint32_t>(fill[bucketOf(fp)]).fetch_add(1, std::memory_order_relaxed);
        });
        start_.assign(buckets + 1, 0);
        uint64_t sum = 0;
        for (std::size_t b = 0; b < buckets; ++b) {
            start_[b] = static_cast<uint32_t>(sum);
            sum += fill[b];
            fill[b] = start_[b];
        }
        // Offsets are 32-bit: a corpus with more prefix tokens would need far more memory anyway.
        if (sum >= std::numeric_limits<uint32_t>::max())
            throw std::length_error("exactJoin: index too large");
        start_[buckets] = static_cast<uint32_t>(sum);
        entries_.resize(sum);
        forIndexTokens([&](std::size_t rank, std::size_t pos, uint64_t fp) {
            const uint32_t at = std::atomic_ref<uint32_t>(fill[bucketOf(fp)])
                                    .fetch_add(1, std::memory_order_relaxed);
            entries_[at] = {fp, static_cast<uint32_t>(rank), static_cast<uint32_t>(pos)};
        });
        // Postings by rank, so a probe can skip documents outside its size window.
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, buckets, 4096), [&](auto r) {
            for (std::size_t b = r.begin(); b != r.end(); ++b) {
                if (start_[b + 1] - start_[b] < 2) continue;
                std::sort(entries_.begin() + static_cast<std::ptrdiff_t>(start_[b]),
                          entries_.begin() + static_cast<std::ptrdiff_t>(start_[b + 1]),
                          [](const Entry& x, const Entry& y) {
                              return x.rank != y.rank ? x.rank < y.rank : x.fp < y.fp;
                          });
            }
        });
    }

    void verify(std::size_t rx, uint32_t ry, std::vector<Found>& found) const {
        const uint32_t x = order_[rx], y = order_[ry];
        const double j = exactJaccard(sets_[x], sets_[y]);
        if (j >= t_) found.push_back({std::min(x, y), std::max(x, y), j});
    }

    struct ScanState {
        std::vector<uint32_t> survivors;
        std::vector<Found> found;
    };

    // Tiles of 32 x 64 documents keep both sides' bitmaps in cache: each bitmap is read once per
    // tile instead of once per pair.
    std::vector<std::vector<Found>> scan() const {
        constexpr std::size_t kRows = 32, kCols = 64;
        const std::size_t m = order_.size();
        std::vector<uint32_t> lowest(m);
        for (std::size_t r = 0; r < m; ++r)
            lowest[r] = minRank(r);
        tbb::enumerable_thread_specific<ScanState> states;
        tbb::parallel_for(
            tbb::blocked_range<std::size_t>(0, (m + kRows - 1) / kRows, 1), [&](auto blocks) {
                ScanState& st = states.local();
                for (std::size_t block = blocks.begin(); block != blocks.end(); ++block) {
                    const std::size_t x0 = block * kRows, x1 = std::min(m, x0 + kRows);
                    for (std::size_t y0 = lowest[x0]; y0 < x1 - 1; y0 += kCols) {
                        const std::size_t y1 = std::min(y0 + kCols, x1 - 1);
                        for (std::size_t rx = x0; rx < x1; ++rx) {
                            const auto lo =
                                static_cast<uint32_t>(std::max<std::size_t>(lowest[rx], y0));
                            const auto hi = static_cast<uint32_t>(std::min(rx, y1));
                            if (lo >= hi) continue;
                            st.survivors.clear();
                            bitmapSurvivors(bitmap(rx), bitmaps_.data(), words_, sizes_.data(),
                                            sizes_[rx], lo, hi, ratio_, st.survivors);
                            for (const uint32_t ry : st.survivors)
                                verify(rx, ry, st.found);
                        }
                    }
                }
            });
        std::vector<std::vector<Found>> out;
        for (auto& st : states)
            out.push_back(std::move(st.found));
        return out;
    }

    struct ProbeState {
        std::vector<int32_t> overlap;  // by rank; -1 once pruned
        std::vector<uint32_t> touched;
        std::vector<Token> tokens;
        std::vector<Found> found;
    };

    std::vector<std::vector<Found>> probe() const {
        tbb::enumerable_thread_specific<ProbeState> states;
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, order_.size(), 8), [&](auto r) {
            ProbeState& st = states.local();
            st.overlap.resize(order_.size(), 0);
            for (std::size_t rx = r.begin(); rx != r.end(); ++rx) {
                const uint32_t sx = sizes_[rx];
                const uint32_t lowest = minRank(rx);
                if (lowest == rx) continue;
                prefix(order_[rx], probeLength(sx), st.tokens);
                for (std::size_t i = 0; i < st.tokens.size(); ++i) {
                    const Token tok = st.tokens[i];
                    if (tok.count < 2) continue;
                    const uint64_t b = bucketOf(tok.fp);
                    const Entry* e = entries_.data() + start_[b];
                    const Entry* end = entries_.data() + start_[b + 1];
                    e = std::lower_bound(e, end, lowest,
                                         [](const Entry& x, uint32_t v) { return x.rank < v; });
                    for (; e != end && e->rank < rx; ++e) {
                        if (e->fp != tok.fp) continue;
                        int32_t& a = st.overlap[e->rank];
                        if (a < 0) continue;
                        if (a == 0) st.touched.push_back(e->rank);
                        const uint32_t sy = sizes_[e->rank];
                        const int64_t rest =
                            std::min<int64_t>(static_cast<int64_t>(sx - i - 1),
                                              static_cast<int64_t>(sy - e->pos - 1));
                        a = a + 1 + rest >= minOverlap(ratio_, sx, sy) ? a + 1 : -1;
                    }
                }
                for (const uint32_t ry : st.touched) {
                    if (st.overlap[ry] > 0 &&
                        bitmapAllows(bitmap(rx), bitmap(ry), words_, uint64_t{sx} + sizes_[ry],
                                     minOverlap(ratio_, sx, sizes_[ry])))
                        verify(rx, ry, st.found);
                    st.overlap[ry] = 0;
                }
                st.touched.clear();
            }
        });
        std::vector<std::vector<Found>> out;
        for (auto& st : states)
            out.push_back(std::move(st.found));
        return out;
    }

    static std::vector<Found> finish(std::vector<std::vector<Found>> parts) {
        std::vector<Found> all;
        for (const auto& p : parts)
            all.insert(all.end(), p.begin(), p.end());
        std::sort(all.begin(), all.end(), [](const Found& x, const Found& y) {
            return x.a != y.a ? x.a < y.a : x.b < y.b;
        });
        return all;
    }

    const std::vector<std::string>& texts_;
    const GroundTruth& truth_;
    const double t_;
    const double ratio_;  // t / (1 + t)
    std::vector<std::vector<uint64_t>> sets_;
    std::vector<uint32_t> order_;    // input indices of non-empty documents by (size, index)
    std::vector<uint32_t> sizes_;    // by rank
    std::size_t words_ = 4;          // bitmap words per document
    std::vector<uint64_t> bitmaps_;  // by rank
    int bits_ = 12;                  // log2 of the frequency buckets
    std::vector<uint32_t> counts_;
    std::vector<uint32_t> start_;  // bucket -> first entry
    std::vector<Entry> entries_;
};

}  // namespace

const char* toString(JoinStrategy s) {
    switch (s) {
        case JoinStrategy::Auto:
            return "auto";
        case JoinStrategy::Prefix:
            return "prefix";
        case JoinStrategy::Scan:
            return "scan";
    }
    return "auto";
}

JoinStrategy exactJoin(const std::vector<std::string>& ids, const std::vector<std::string>& texts,
                       GroundTruth& truth, int threads, JoinStrategy strategy) {
    if (ids.size() != texts.size())
        throw std::invalid_argument("exactJoin: ids and texts differ in length");
    if (!(truth.floor > 0.0 && truth.floor <= 1.0))
        throw std::invalid_argument("exactJoin: floor must be in (0, 1]");
    if (texts.size() >= std::numeric_limits<uint32_t>::max())
        throw std::invalid_argument("exactJoin: too many documents");
    std::vector<Found> found;
    tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
    arena.execute([&] { found = Join(texts, truth).run(strategy); });
    truth.documents = ids.size();
    truth.pairs.clear();
    truth.pairs.reserve(found.size());
    for (const Found& f : found)
        truth.pairs.push_back({ids[f.a], ids[f.b], f.jaccard, "exact_join"});
    return strategy;
}

void exactJoin(const std::vector<std::string>& ids, const std::vector<std::string>& texts,
               GroundTruth& truth, int threads) {
    exactJoin(ids, texts, truth, threads, JoinStrategy::Auto);
}

}  // namespace neardup
