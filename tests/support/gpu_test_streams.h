// What the GPU tests share: the CUDA backend on the first device, or why there is none (the
// tests then skip); random symbol streams of every length class the kernels treat specially
// (empty, one symbol, shorter than k, exactly k, k + 1, long) over alphabets that make shingles
// unique (all code points) or repeat a lot (four letters).
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "backend.h"
#include "backend_factory.h"
#include "cuda_support.h"

namespace neardup::testing {

// The CUDA backend on device 0; null, with `whyNot` saying why, on a machine without one.
inline std::unique_ptr<Backend> firstCudaBackend(std::string& whyNot) {
    installCudaBackends();
    const GpuInventory inventory = queryGpus();
    if (inventory.devices.empty()) {
        whyNot = "no CUDA device: " + inventory.status;
        return nullptr;
    }
    return makeBackend("cuda", 0);
}

inline SymbolBatch randomStreams(int count, int k, uint64_t longest, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto uniform = [&](uint64_t lo, uint64_t hi) {  // inclusive
        return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
    };
    const auto kk = static_cast<uint64_t>(k);
    SymbolBatch batch;
    for (int i = 0; i < count; ++i) {
        uint64_t length = 0;
        switch (i % 10) {
            case 0:
                length = 0;
                break;
            case 1:
                length = 1;
                break;
            case 2:
                length = kk > 1 ? kk - 1 : 2;
                break;
            case 3:
                length = kk;
                break;
            case 4:
                length = kk + 1;
                break;
            case 9:
                length = i % 50 == 9 ? uniform(longest / 2, longest) : uniform(400, 3000);
                break;
            default:
                length = uniform(2, 400);
                break;
        }
        if (i == count - 1) length = longest;
        const int alphabet = (i / 10) % 3;
        for (uint64_t j = 0; j < length; ++j) {
            uint32_t symbol = 0;
            if (alphabet == 0)
                symbol = static_cast<uint32_t>(uniform(0, 0x10FFFF));
            else if (alphabet == 1)
                symbol = static_cast<uint32_t>(uniform('a', 'd'));
            else
                symbol = static_cast<uint32_t>(uniform(32, 126));
            batch.symbols.push_back(symbol);
        }
        batch.docEnd.push_back(batch.symbols.size());
    }
    return batch;
}

}  // namespace neardup::testing
