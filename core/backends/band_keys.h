// The band keys of signature rows on the host, as every backend computes them (the math is
// hash_math.h's, which the GPU shares): the CPU backend's computeBandKeys, and the reading
// stage, which keys each chunk's rows on the thread that signed them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hash_math.h"
#include "params.h"

namespace neardup {

// The keys of one row's bands into keys[0 .. bands), reduced modulo `modulus` unless it is 0.
inline void bandKeysOfRow(const uint32_t* row, const LshParams& lsh, uint64_t modulus,
                          uint64_t* keys) {
    const auto bands = static_cast<std::size_t>(lsh.bands);
    for (std::size_t t = 0; t < bands; ++t) {
        const uint32_t* v = row + t * static_cast<std::size_t>(lsh.rows);
        const uint64_t key = lsh.scheme == BandKeyScheme::Hash
                                 ? hashmath::bandKeyHash(v, lsh.rows, static_cast<uint32_t>(t))
                                 : hashmath::bandKeySum(v, lsh.rows);
        keys[t] = modulus ? key % modulus : key;
    }
}

// The raw keys (no modulus) of `count` rows of `hashes` values, row after row, into
// keys[count * bands], on the calling thread.
inline void rawBandKeys(const uint32_t* rows, std::size_t count, int hashes, const LshParams& lsh,
                        uint64_t* keys) {
    const auto h = static_cast<std::size_t>(hashes);
    const auto bands = static_cast<std::size_t>(lsh.bands);
    for (std::size_t i = 0; i < count; ++i)
        bandKeysOfRow(rows + i * h, lsh, 0, keys + i * bands);
}

}  // namespace neardup
