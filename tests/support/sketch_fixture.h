// What the sketch tests share (test_signatures.cpp, test_oph_sketch.cpp, test_simd_kernels.cpp):
// random symbol streams, the check that the CPU backend signs a batch of documents exactly as
// the reference computation signs each one alone, and how far a sketch's estimates stray from
// exact Jaccard.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "backend.h"
#include "shingles.h"
#include "signatures.h"

namespace sketchtest {

inline std::vector<uint32_t> randomStream(std::mt19937_64& rng, std::size_t n, uint32_t alphabet) {
    std::vector<uint32_t> v(n);
    for (auto& c : v)
        c = static_cast<uint32_t>(rng() % alphabet);
    return v;
}

// True when the CPU backend's signatures of 100 random documents (up to 300 symbols of 1,000)
// are those `direct(symbols, count, c, out)` gives each document alone.
template <class Direct>
bool backendSignsLikeDirect(const neardup::HashConstants& c, uint64_t seed, Direct direct) {
    auto backend = neardup::makeCpuBackend(2);
    neardup::SymbolBatch batch;
    std::mt19937_64 rng(seed);
    std::vector<std::vector<uint32_t>> docs;
    for (int i = 0; i < 100; ++i) {
        docs.push_back(randomStream(rng, rng() % 300, 1000));
        batch.symbols.insert(batch.symbols.end(), docs.back().begin(), docs.back().end());
        batch.docEnd.push_back(batch.symbols.size());
    }
    const auto hashes = static_cast<std::size_t>(c.hashes);
    std::vector<uint32_t> out(docs.size() * hashes), ref(hashes);
    backend->computeSignatures(batch, c, out.data());
    for (std::size_t i = 0; i < docs.size(); ++i) {
        direct(docs[i].data(), docs[i].size(), c, ref.data());
        if (!std::equal(ref.begin(), ref.end(), out.begin() + std::ptrdiff_t(i * hashes)))
            return false;
    }
    return true;
}

struct EstimateErrors {
    double worst = 0;  // the largest |estimate - exact| of one pair
    double exactAtWorst = 0, estimateAtWorst = 0;
    double mean = 0;  // the mean of estimate - exact: a bias, if any
};

// The errors of the sketch `c` (signatureRolling) over 40 pairs of random streams of `length`
// symbols (of 5,000) sharing the first fifth, two, three or four fifths of their symbols, against
// the exact Jaccard of their 5-shingles.
inline EstimateErrors estimateErrors(const neardup::HashConstants& c, std::size_t length) {
    std::mt19937_64 rng(9);
    std::vector<uint64_t> scratch, setA, setB;
    const auto h = static_cast<std::size_t>(c.hashes);
    std::vector<uint32_t> sa(h, 0), sb(h, 0);
    EstimateErrors errors;
    int trials = 0;
    for (std::size_t fifths = 1; fifths <= 4; ++fifths) {
        const std::size_t shared = length * fifths / 5;
        for (int t = 0; t < 10; ++t) {
            auto a = randomStream(rng, length, 5000);
            auto b = a;
            for (std::size_t i = shared; i < b.size(); ++i)
                b[i] = static_cast<uint32_t>(rng() % 5000);
            neardup::shingleSet(a.data(), a.size(), 5, setA);
            neardup::shingleSet(b.data(), b.size(), 5, setB);
            const double exact = neardup::exactJaccard(setA, setB);
            neardup::signatureRolling(a.data(), a.size(), c, sa.data(), scratch);
            neardup::signatureRolling(b.data(), b.size(), c, sb.data(), scratch);
            const double estimate =
                neardup::matchingPositions(sa.data(), sb.data(), c.hashes) / double(c.hashes);
            if (std::abs(estimate - exact) > errors.worst)
                errors = {std::abs(estimate - exact), exact, estimate, errors.mean};
            errors.mean += estimate - exact;
            ++trials;
        }
    }
    errors.mean /= trials;
    return errors;
}

}  // namespace sketchtest
