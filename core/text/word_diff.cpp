#include "word_diff.h"

#include <algorithm>
#include <string>

#include "digest.h"
#include "shingles.h"

namespace neardup {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// The two word sequences with one hash per word, so most comparisons are one integer compare.
// The hashes live only in memory and equal words always hash alike, so the diff does not depend
// on which 64-bit hash this is. A word is compared by its key: its bytes, or its normalized
// code points when a normalizer is given.
class Words {
  public:
    Words(std::string_view a, std::string_view b, const std::vector<WordToken>& ta,
          const std::vector<WordToken>& tb, Normalizer* normalizer) {
        fill(a, ta, normalizer, ka_, ha_);
        fill(b, tb, normalizer, kb_, hb_);
    }
    bool equal(std::size_t i, std::size_t j) const { return ha_[i] == hb_[j] && ka_[i] == kb_[j]; }

  private:
    static void fill(std::string_view text, const std::vector<WordToken>& tokens,
                     Normalizer* normalizer, std::vector<std::string>& keys,
                     std::vector<uint64_t>& hashes) {
        keys.reserve(tokens.size());
        hashes.reserve(tokens.size());
        for (const auto& t : tokens) {
            const std::string_view word = text.substr(t.begin, t.length);
            if (normalizer) {
                const std::vector<uint32_t>& cps = normalizer->run(word);
                keys.emplace_back(reinterpret_cast<const char*>(cps.data()),
                                  cps.size() * sizeof(uint32_t));
            } else {
                keys.emplace_back(word);
            }
            hashes.push_back(fnv1a(keys.back()));
        }
    }

    std::vector<std::string> ka_, kb_;
    std::vector<uint64_t> ha_, hb_;
};

void appendRun(std::vector<DiffRun>& runs, DiffKind kind, std::size_t aFrom, std::size_t aTo,
               std::size_t bFrom, std::size_t bTo) {
    if (aFrom == aTo && bFrom == bTo) return;
    if (!runs.empty() && runs.back().kind == kind && runs.back().aEnd == aFrom &&
        runs.back().bEnd == bFrom) {
        runs.back().aEnd = aTo;
        runs.back().bEnd = bTo;
        return;
    }
    runs.push_back({kind, aFrom, aTo, bFrom, bTo});
}

struct Step {
    DiffKind kind;
    std::size_t a, b;  // token positions before the step
};

// Myers' greedy forward search over the middle a[lo, lo + n) against b[lo2, lo2 + m); returns
// false when more than `limit` edits are needed. Appends the steps in reverse order.
bool myers(const Words& w, std::size_t aLo, std::size_t n, std::size_t bLo, std::size_t m,
           std::size_t limit, std::vector<Step>& reversed) {
    const auto N = static_cast<std::ptrdiff_t>(n);
    const auto M = static_cast<std::ptrdiff_t>(m);
    const auto maxD = static_cast<std::ptrdiff_t>(std::min(limit, n + m));
    const std::ptrdiff_t offset = maxD + 1;
    std::vector<std::ptrdiff_t> v(static_cast<std::size_t>(2 * maxD + 3), 0);
    // history[start[d] + (k + d) / 2] = furthest x on diagonal k after d edits.
    std::vector<uint32_t> history;
    std::vector<std::size_t> start;
    std::ptrdiff_t found = -1;
    for (std::ptrdiff_t d = 0; d <= maxD && found < 0; ++d) {
        start.push_back(history.size());
        for (std::ptrdiff_t k = -d; k <= d; k += 2) {
            std::ptrdiff_t x;
            if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                x = v[offset + k + 1];
            else
                x = v[offset + k - 1] + 1;
            std::ptrdiff_t y = x - k;
            while (x < N && y < M &&
                   w.equal(aLo + static_cast<std::size_t>(x), bLo + static_cast<std::size_t>(y))) {
                ++x;
                ++y;
            }
            v[offset + k] = x;
            history.push_back(static_cast<uint32_t>(x));
            if (x >= N && y >= M && found < 0) found = d;
        }
    }
    if (found < 0) return false;
    auto at = [&](std::ptrdiff_t d, std::ptrdiff_t k) {
        return static_cast<std::ptrdiff_t>(
            history[start[static_cast<std::size_t>(d)] + static_cast<std::size_t>((k + d) / 2)]);
    };
    std::ptrdiff_t x = N, y = M;
    for (std::ptrdiff_t d = found; d > 0; --d) {
        const std::ptrdiff_t k = x - y;
        const bool down = k == -d || (k != d && at(d - 1, k - 1) < at(d - 1, k + 1));
        const std::ptrdiff_t prevK = down ? k + 1 : k - 1;
        const std::ptrdiff_t prevX = at(d - 1, prevK);
        const std::ptrdiff_t prevY = prevX - prevK;
        const std::ptrdiff_t midX = down ? prevX : prevX + 1;
        while (x > midX) {
            --x;
            --y;
            reversed.push_back({DiffKind::Equal, aLo + static_cast<std::size_t>(x),
                                bLo + static_cast<std::size_t>(y)});
        }
        if (down)
            reversed.push_back({DiffKind::Insert, aLo + static_cast<std::size_t>(prevX),
                                bLo + static_cast<std::size_t>(prevY)});
        else
            reversed.push_back({DiffKind::Delete, aLo + static_cast<std::size_t>(prevX),
                                bLo + static_cast<std::size_t>(prevY)});
        x = prevX;
        y = prevY;
    }
    while (x > 0) {
        --x;
        --y;
        reversed.push_back({DiffKind::Equal, aLo + static_cast<std::size_t>(x),
                            bLo + static_cast<std::size_t>(y)});
    }
    return true;
}

}  // namespace

std::vector<WordToken> tokenizeWords(std::string_view text) {
    std::vector<WordToken> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isSpace(text[i]))
            ++i;
        const std::size_t begin = i;
        while (i < text.size() && !isSpace(text[i]))
            ++i;
        if (i > begin)
            out.push_back({static_cast<uint32_t>(begin), static_cast<uint32_t>(i - begin)});
    }
    return out;
}

namespace {

WordDiff diff(std::string_view a, std::string_view b, Normalizer* normalizer,
              std::size_t maxEdits) {
    WordDiff out;
    out.a = tokenizeWords(a);
    out.b = tokenizeWords(b);
    const Words words(a, b, out.a, out.b, normalizer);
    const std::size_t n = out.a.size(), m = out.b.size();
    std::size_t prefix = 0;
    while (prefix < n && prefix < m && words.equal(prefix, prefix))
        ++prefix;
    std::size_t suffix = 0;
    while (suffix < n - prefix && suffix < m - prefix &&
           words.equal(n - 1 - suffix, m - 1 - suffix))
        ++suffix;
    appendRun(out.runs, DiffKind::Equal, 0, prefix, 0, prefix);
    const std::size_t aMid = n - prefix - suffix, bMid = m - prefix - suffix;
    std::vector<Step> reversed;
    if (myers(words, prefix, aMid, prefix, bMid, maxEdits, reversed)) {
        for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
            const std::size_t da = it->kind == DiffKind::Insert ? 0 : 1;
            const std::size_t db = it->kind == DiffKind::Delete ? 0 : 1;
            appendRun(out.runs, it->kind, it->a, it->a + da, it->b, it->b + db);
        }
    } else {
        out.truncated = true;
        appendRun(out.runs, DiffKind::Replace, prefix, prefix + aMid, prefix, prefix + bMid);
    }
    appendRun(out.runs, DiffKind::Equal, n - suffix, n, m - suffix, m);
    for (const auto& r : out.runs)
        if (r.kind == DiffKind::Equal) out.equalTokens += r.aEnd - r.aBegin;
    return out;
}

}  // namespace

WordDiff diffWords(std::string_view a, std::string_view b, std::size_t maxEdits) {
    return diff(a, b, nullptr, maxEdits);
}

WordDiff diffWords(std::string_view a, std::string_view b, const NormalizeOptions& normalize,
                   std::size_t maxEdits) {
    Normalizer normalizer(normalize);
    return diff(a, b, &normalizer, maxEdits);
}

}  // namespace neardup
