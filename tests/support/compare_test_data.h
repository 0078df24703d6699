// Signature matrices with planted structure for the comparison tests (CPU emulation and GPU).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backend.h"
#include "hash_math.h"
#include "signatures.h"

namespace neardup::testing {

// Signatures with structure: families of near-duplicates (a base row with some positions
// changed), exact copies, and unrelated rows; values drawn from a small range so that
// unrelated rows also agree on some positions.
inline SignatureMatrix makeSignatures(std::size_t n, int hashes, uint64_t seed) {
    std::mt19937_64 rng(seed);
    SignatureMatrix m;
    m.resize(n, hashes);
    const auto h = static_cast<std::size_t>(hashes);
    std::vector<uint32_t> base(h);
    for (std::size_t i = 0; i < n; ++i) {
        uint32_t* row = m.row(i);
        const int kind = static_cast<int>(rng() % 10);
        if (i == 0 || kind < 3) {  // a new family
            for (auto& v : base)
                v = static_cast<uint32_t>(rng() % 5000);
            std::copy(base.begin(), base.end(), row);
        } else if (kind < 6) {  // an exact copy of the current family's base
            std::copy(base.begin(), base.end(), row);
        } else {  // a near duplicate: 0 .. 40% of positions changed
            std::copy(base.begin(), base.end(), row);
            const std::size_t changes = rng() % (h * 2 / 5 + 1);
            for (std::size_t c = 0; c < changes; ++c)
                row[rng() % h] = static_cast<uint32_t>(rng() % 5000);
        }
        m.digests[i] = hashmath::signatureDigest(row, hashes);
        m.eligible[i] = 1;
    }
    // Rows in random order, so that families are spread over the document range.
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i)
        order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    SignatureMatrix shuffled;
    shuffled.resize(n, hashes);
    for (std::size_t i = 0; i < n; ++i) {
        std::copy(m.row(order[i]), m.row(order[i]) + h, shuffled.row(i));
        shuffled.digests[i] = m.digests[order[i]];
        shuffled.eligible[i] = 1;
    }
    return shuffled;
}

inline std::string describe(const ScoredPair& p) {
    return "(" + std::to_string(p.a) + ", " + std::to_string(p.b) + ", " +
           std::to_string(p.matches) + ")";
}

// Empty when both sorted lists are equal, else the first difference.
inline std::string firstDifference(std::vector<ScoredPair> got, std::vector<ScoredPair> want) {
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        if (got[i].a != want[i].a || got[i].b != want[i].b || got[i].matches != want[i].matches)
            return "pair " + std::to_string(i) + ": emulated " + describe(got[i]) + ", cpu " +
                   describe(want[i]);
    if (got.size() != want.size())
        return "emulated " + std::to_string(got.size()) + " pairs, cpu " +
               std::to_string(want.size());
    return {};
}

// `n` rows of full 32-bit values, so that the sum scheme's 64-bit sums exceed 32 bits.
inline SignatureMatrix randomSignatures(std::size_t n, int hashes, uint64_t seed) {
    SignatureMatrix sigs;
    sigs.resize(n, hashes);
    std::mt19937_64 rng(seed);
    for (auto& v : sigs.values)
        v = static_cast<uint32_t>(rng());
    return sigs;
}

inline LshParams banding(int bands, int rows, bool sum) {
    LshParams lsh;
    lsh.bands = bands;
    lsh.rows = rows;
    lsh.scheme = sum ? BandKeyScheme::Sum : BandKeyScheme::Hash;
    return lsh;
}

// The comparison tests' banding of `hashes`: 8 rows of hash keys or 4 of sum keys, at most
// `maxBands` bands.
inline LshParams comparisonBanding(int hashes, bool sum, int maxBands) {
    const int rows = sum ? 4 : 8;
    return banding(std::min(maxBands, hashes / rows), rows, sum);
}

}  // namespace neardup::testing
