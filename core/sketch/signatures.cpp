#include "signatures.h"

#include <algorithm>

#include "hash_math.h"
#include "oph_sketch.h"
#include "simd_minhash.h"

namespace neardup {

using namespace hashmath;

HashConstants HashConstants::derive(const SignatureParams& params) {
    HashConstants c;
    c.family = params.family;
    c.sketch = params.sketch;
    c.ngram = params.ngram;
    c.hashes = params.hashes;
    const auto h = static_cast<std::size_t>(params.hashes);
    const auto topExp = static_cast<uint32_t>(params.ngram - 1);
    // Each family draws from its own stream so that adding constants to one never changes the
    // other's signatures for the same seed.
    uint64_t rolling = params.seed ^ 0x524F4C4C494E4721ull;
    c.rollBase.resize(h);
    c.rollTop.resize(h);
    c.rollMul.resize(h);
    c.rollAdd.resize(h);
    for (std::size_t i = 0; i < h; ++i) {
        // Bases above 2^16 keep consecutive code points from aliasing in the low bits.
        c.rollBase[i] = 65536u + static_cast<uint32_t>(splitmix64(rolling) % (kPrime31 - 65536u));
        c.rollTop[i] = powmod31(c.rollBase[i], topExp);
        c.rollMul[i] = 1u + static_cast<uint32_t>(splitmix64(rolling) % (kPrime31 - 1u));
        c.rollAdd[i] = static_cast<uint32_t>(splitmix64(rolling) % kPrime31);
    }
    uint64_t permute = params.seed ^ 0x5045524D55544521ull;
    c.fpBase = (uint64_t{1} << 32) + splitmix64(permute) % (kPrime61 - (uint64_t{1} << 32));
    c.fpTop = powmod61(c.fpBase, topExp);
    c.fpSalt = splitmix64(permute);
    c.permA.resize(h);
    c.permB.resize(h);
    for (std::size_t i = 0; i < h; ++i) {
        c.permA[i] = splitmix64(permute) | 1u;
        c.permB[i] = splitmix64(permute);
    }
    const uint64_t baseK = mulmod61(c.fpTop, c.fpBase);
    c.fpNegDrop.resize(kDropTableSize);
    for (uint32_t sym = 0; sym < kDropTableSize; ++sym)
        c.fpNegDrop[sym] = kPrime61 - mulmod61(sym, baseK);
    uint64_t oph = params.seed ^ 0x4F4E455045524D21ull;
    c.ophSalt = splitmix64(oph);
    return c;
}

void signatureDirect(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                     uint32_t* out) {
    if (c.sketch == SketchKind::Oph) return ophSketchDirect(symbols, count, c, out);
    const auto h = static_cast<std::size_t>(c.hashes);
    std::fill(out, out + h, kEmptySlot);
    const auto k = static_cast<std::size_t>(c.ngram);
    const std::size_t shingles = simd::shingleCount(count, k);
    const std::size_t width = std::min(count, k);
    for (std::size_t s = 0; s < shingles; ++s) {
        const uint32_t* w = symbols + s;
        if (c.family == HashFamily::Rolling) {
            for (std::size_t i = 0; i < h; ++i) {
                uint32_t poly = 0;
                for (std::size_t j = 0; j < width; ++j)
                    poly = rollingAppend(poly, c.rollBase[i], w[j]);
                out[i] = std::min(out[i], rollingFinish(poly, c.rollMul[i], c.rollAdd[i]));
            }
        } else {
            uint64_t poly = 0;
            for (std::size_t j = 0; j < width; ++j)
                poly = fingerprintAppend(poly, c.fpBase, w[j]);
            const uint64_t f = fingerprintFinish(poly, c.fpSalt);
            for (std::size_t i = 0; i < h; ++i)
                out[i] = std::min(out[i], permute(f, c.permA[i], c.permB[i]));
        }
    }
}

namespace {

// The H-function loops are compiled for several x86-64 levels and picked at load time, so one
// binary runs everywhere and uses AVX2 / AVX-512 (64-bit lane multiplies) where present.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)  // ifunc resolvers run before TSan is initialized
#define NEARDUP_MULTIVERSION \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define NEARDUP_MULTIVERSION
#endif

NEARDUP_MULTIVERSION
void rollingUpdate(uint32_t* poly, uint32_t* out, const uint32_t* base, const uint32_t* top,
                   const uint32_t* mul, const uint32_t* add, std::size_t h, uint32_t leaving,
                   uint32_t in) {
    for (std::size_t i = 0; i < h; ++i) {
        poly[i] = rollingStep(poly[i], base[i], top[i], leaving, in);
        out[i] = std::min(out[i], rollingFinish(poly[i], mul[i], add[i]));
    }
}

void rollingFamily(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                   uint32_t* out, std::vector<uint64_t>& scratch) {
    const auto h = static_cast<std::size_t>(c.hashes);
    const auto k = static_cast<std::size_t>(c.ngram);
    const uint32_t* base = c.rollBase.data();
    const uint32_t* top = c.rollTop.data();
    const uint32_t* mul = c.rollMul.data();
    const uint32_t* add = c.rollAdd.data();
    // The H running polynomials live in the scratch buffer (as 32-bit values).
    scratch.resize((h + 1) / 2);
    auto* poly = reinterpret_cast<uint32_t*>(scratch.data());
    std::fill(poly, poly + h, 0u);
    const std::size_t width = std::min(count, k);
    for (std::size_t j = 0; j < width; ++j) {
        const uint32_t in = symbols[j];
        for (std::size_t i = 0; i < h; ++i)
            poly[i] = rollingAppend(poly[i], base[i], in);
    }
    for (std::size_t i = 0; i < h; ++i)
        out[i] = rollingFinish(poly[i], mul[i], add[i]);
    for (std::size_t j = k; j < count; ++j)
        rollingUpdate(poly, out, base, top, mul, add, h, symbols[j - k], symbols[j]);
}

}  // namespace

void signatureRolling(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                      uint32_t* out, std::vector<uint64_t>& scratch) {
    if (count == 0) {
        std::fill(out, out + c.hashes, kEmptySlot);
        return;
    }
    if (c.sketch == SketchKind::Oph)
        ophSketch(symbols, count, c, out, scratch);
    else if (c.family == HashFamily::Rolling)
        rollingFamily(symbols, count, c, out, scratch);
    else
        simd::classicPermute(symbols, count, c, out, scratch);
}

int matchingPositions(const uint32_t* a, const uint32_t* b, int hashes) {
    int matches = 0;
    for (int i = 0; i < hashes; ++i)
        matches += a[i] == b[i];
    return matches;
}

}  // namespace neardup
