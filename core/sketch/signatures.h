// MinHash signatures: the hash constants derived from the seed, and the signature matrix.
#pragma once

#include <cstdint>
#include <vector>

#include "params.h"

namespace neardup {

// All constants of both hash families, derived deterministically from SignatureParams::seed.
// The same object parameterizes the CPU loop and the CUDA kernel.
struct HashConstants {
    HashFamily family = HashFamily::Permute;
    // Oph: one fingerprint per shingle (the permutation family's) picks a bin; ophSalt seeds the
    // densification probes. The CUDA kernel computes only the classic sketch.
    SketchKind sketch = SketchKind::Classic;
    uint64_t ophSalt = 0;
    int ngram = 5;
    int hashes = 128;
    // Rolling family, one entry per hash function: base, base^(k-1), affine multiplier, addend.
    std::vector<uint32_t> rollBase, rollTop, rollMul, rollAdd;
    // Permutation family: one fingerprint base (and its k-1 power) and salt, then per function
    // an odd multiplier and an addend.
    uint64_t fpBase = 0, fpTop = 0, fpSalt = 0;
    std::vector<uint64_t> permA, permB;
    // -(s * base^k) mod 2^61 - 1 for the symbols s below kDropTableSize (ASCII and Latin-1): the
    // CPU roll looks up the leaving symbol's term instead of multiplying. Derived, never hashed;
    // an empty table only makes the CPU path slower.
    std::vector<uint64_t> fpNegDrop;
    static constexpr std::size_t kDropTableSize = 256;

    static HashConstants derive(const SignatureParams& params);
};

// Signature of one symbol stream written to out[0 .. hashes). Reference implementation: the
// rolling update is checked against this direct recomputation in the tests. For the
// one-permutation sketch it is ophSketchDirect (oph_sketch.h).
void signatureDirect(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                     uint32_t* out);

// Fast path used by the CPU backend: rolling updates, fingerprint computed once per shingle,
// H-function loop in SIMD kernels chosen at run time (simd.h); the one-permutation sketch when
// c.sketch is Oph. `scratch` is reused between calls. Produces exactly signatureDirect's values.
void signatureRolling(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                      uint32_t* out, std::vector<uint64_t>& scratch);

// n documents x `hashes` values, row-major, plus a digest per row for collapsing exact copies
// and whether the document takes part in LSH (it has at least one full shingle).
struct SignatureMatrix {
    int hashes = 0;
    std::vector<uint32_t> values;
    std::vector<uint64_t> digests;
    std::vector<uint8_t> eligible;

    std::size_t size() const { return digests.size(); }
    const uint32_t* row(std::size_t i) const { return values.data() + i * std::size_t(hashes); }
    uint32_t* row(std::size_t i) { return values.data() + i * std::size_t(hashes); }
    void resize(std::size_t n, int h) {
        hashes = h;
        values.assign(n * std::size_t(h), 0);
        digests.assign(n, 0);
        eligible.assign(n, 0);
    }
};

// Number of equal positions of two signatures of `hashes` values.
int matchingPositions(const uint32_t* a, const uint32_t* b, int hashes);

}  // namespace neardup
