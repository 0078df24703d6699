// What the sketch tests share (test_signatures.cpp, test_oph_sketch.cpp, test_simd_kernels.cpp):
// random symbol streams, and the check that the CPU backend signs a batch of documents exactly as
// the reference computation signs each one alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "backend.h"
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

}  // namespace sketchtest
