// The sampled audit's draw and estimator (audit_sample.h).
#include "audit_sample.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "clustering.h"

namespace neardup {

namespace {

uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// The pair's place in the random order of a seed: independent of where the pair is stored.
uint64_t drawKey(uint64_t seed, uint32_t a, uint32_t b) {
    return splitmix64(splitmix64(seed) ^ ((uint64_t{a} << 32) | b));
}

// Equal shares of n over the strata, none above its size; what a small stratum cannot take
// goes to the others, the earlier strata first.
std::vector<uint64_t> allocate(const std::vector<uint64_t>& sizes, uint64_t n) {
    std::vector<uint64_t> take(sizes.size(), 0);
    uint64_t left = n;
    while (left > 0) {
        uint64_t open = 0;
        for (std::size_t h = 0; h < sizes.size(); ++h)
            if (take[h] < sizes[h]) ++open;
        if (open == 0) break;
        const uint64_t share = std::max<uint64_t>(1, left / open);
        for (std::size_t h = 0; h < sizes.size() && left > 0; ++h) {
            const uint64_t more = std::min({share, sizes[h] - take[h], left});
            take[h] += more;
            left -= more;
        }
    }
    return take;
}

}  // namespace

const char* toString(AuditVerdict v) {
    switch (v) {
        case AuditVerdict::Duplicate:
            return "duplicate";
        case AuditVerdict::NotDuplicate:
            return "not_duplicate";
        case AuditVerdict::Unsure:
            return "unsure";
    }
    return "unsure";
}

std::optional<AuditVerdict> parseAuditVerdict(std::string_view name) {
    for (const AuditVerdict v :
         {AuditVerdict::Duplicate, AuditVerdict::NotDuplicate, AuditVerdict::Unsure})
        if (name == toString(v)) return v;
    return std::nullopt;
}

AuditDraw drawAuditSample(const std::vector<ScoredPair>& pairs, int hashes, double threshold,
                          uint64_t n, uint64_t seed, int strata) {
    AuditDraw draw;
    draw.threshold = threshold;
    draw.seed = seed;
    strata = std::max(1, strata);
    const double width = (1.0 - threshold) / strata;
    for (int h = 0; h < strata; ++h)
        draw.strata.push_back(
            {threshold + h * width, h + 1 == strata ? 1.0 : threshold + (h + 1) * width, 0});
    struct Candidate {
        uint64_t key;
        AuditPair pair;
    };
    std::vector<std::vector<Candidate>> members(static_cast<std::size_t>(strata));
    for (const ScoredPair& p : pairs) {
        if (!isDuplicate(p, hashes, threshold)) continue;
        const double estimated = hashes > 0 ? double(p.matches) / hashes : 0.0;
        int h = width > 0 ? int(std::floor((estimated - threshold) / width)) : 0;
        h = std::clamp(h, 0, strata - 1);
        ++draw.strata[std::size_t(h)].pairs;
        members[std::size_t(h)].push_back(
            {drawKey(seed, p.a, p.b), AuditPair{p.a, p.b, h, estimated, std::nullopt}});
    }
    std::vector<uint64_t> sizes;
    for (const AuditStratum& s : draw.strata)
        sizes.push_back(s.pairs);
    const std::vector<uint64_t> take = allocate(sizes, n);
    std::vector<Candidate> drawn;
    for (std::size_t h = 0; h < members.size(); ++h) {
        auto& m = members[h];
        const auto byKey = [](const Candidate& x, const Candidate& y) {
            return x.key != y.key         ? x.key < y.key
                   : x.pair.a != y.pair.a ? x.pair.a < y.pair.a
                                          : x.pair.b < y.pair.b;
        };
        std::partial_sort(m.begin(), m.begin() + std::ptrdiff_t(take[h]), m.end(), byKey);
        drawn.insert(drawn.end(), m.begin(), m.begin() + std::ptrdiff_t(take[h]));
    }
    std::sort(drawn.begin(), drawn.end(), [](const Candidate& x, const Candidate& y) {
        return x.key != y.key         ? x.key < y.key
               : x.pair.a != y.pair.a ? x.pair.a < y.pair.a
                                      : x.pair.b < y.pair.b;
    });
    for (const Candidate& c : drawn)
        draw.pairs.push_back(c.pair);
    return draw;
}

double normalQuantileTwoSided(double confidence) {
    // erf(z / √2) = confidence, by bisection: erf is increasing.
    double lo = 0, hi = 10;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (std::erf(mid / std::sqrt(2.0)) < confidence ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

std::pair<double, double> wilsonInterval(double p, double n, double z) {
    if (!(n > 0)) return {std::nan(""), std::nan("")};
    const double z2 = z * z;
    const double denom = 1 + z2 / n;
    const double center = (p + z2 / (2 * n)) / denom;
    const double half = z / denom * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

PrecisionEstimate estimatePrecision(const std::vector<AuditStratum>& strata,
                                    const std::vector<AuditPair>& pairs, double confidence) {
    PrecisionEstimate e;
    std::vector<uint64_t> judged(strata.size(), 0), dup(strata.size(), 0);
    for (const AuditPair& p : pairs) {
        if (!p.verdict || p.stratum < 0 || std::size_t(p.stratum) >= strata.size()) continue;
        if (*p.verdict == AuditVerdict::Unsure) {
            ++e.unsure;
            continue;
        }
        ++judged[std::size_t(p.stratum)];
        ++e.judged;
        if (*p.verdict == AuditVerdict::Duplicate) {
            ++dup[std::size_t(p.stratum)];
            ++e.duplicates;
        }
    }
    uint64_t all = 0, covered = 0;
    for (std::size_t h = 0; h < strata.size(); ++h) {
        all += strata[h].pairs;
        if (judged[h]) covered += strata[h].pairs;
    }
    if (e.judged == 0 || covered == 0) {
        e.precision = e.low = e.high = std::numeric_limits<double>::quiet_NaN();
        return e;
    }
    e.coverage = all ? double(covered) / double(all) : 0.0;
    double p = 0, inverseSize = 0;
    for (std::size_t h = 0; h < strata.size(); ++h) {
        if (!judged[h]) continue;
        const double w = double(strata[h].pairs) / double(covered);
        p += w * double(dup[h]) / double(judged[h]);
        inverseSize += w * w / double(judged[h]);
    }
    e.precision = p;
    e.effectiveSize = 1.0 / inverseSize;
    std::tie(e.low, e.high) =
        wilsonInterval(p, e.effectiveSize, normalQuantileTwoSided(confidence));
    return e;
}

PrecisionEstimate estimatePrecision(const AuditDraw& draw, double confidence) {
    PrecisionEstimate e = estimatePrecision(draw.strata, draw.pairs, confidence);
    e.threshold = draw.threshold;
    return e;
}

}  // namespace neardup
