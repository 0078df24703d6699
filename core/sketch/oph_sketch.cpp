#include "oph_sketch.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "simd_minhash.h"
#include "window_fingerprints.h"

namespace neardup {

using namespace hashmath;

namespace {

inline void keepMin(uint32_t* bins, uint32_t hashes, uint64_t f) {
    uint32_t& slot = bins[ophBin(f, hashes)];
    slot = std::min(slot, ophValue(f));
}

}  // namespace

std::size_t ophDensify(uint32_t* bins, int hashes, uint64_t salt, std::vector<uint64_t>& scratch) {
    const auto h = static_cast<uint32_t>(hashes);
    uint32_t empty = 0;
    for (uint32_t i = 0; i < h; ++i)
        empty += bins[i] == kEmptySlot;
    if (empty == 0 || empty == h) return 0;
    // Borrow only from bins that were filled by shingles, never from densified ones.
    scratch.resize((h + 1) / 2);
    auto* original = reinterpret_cast<uint32_t*>(scratch.data());
    std::memcpy(original, bins, h * sizeof(uint32_t));
    for (uint32_t i = 0; i < h; ++i) {
        if (original[i] != kEmptySlot) continue;
        uint32_t j = 0;
        bool found = false;
        for (uint32_t probe = 1; probe <= kOphProbes && !found; ++probe) {
            j = ophBin(mix64(salt ^ (uint64_t{i} << 32 | probe)), h);
            found = original[j] != kEmptySlot;
        }
        while (!found) {
            j = j + 1 == h ? 0 : j + 1;
            found = original[j] != kEmptySlot;
        }
        bins[i] = original[j];
    }
    return empty;
}

void ophSketchDirect(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                     uint32_t* out) {
    const auto h = static_cast<uint32_t>(c.hashes);
    std::fill(out, out + h, kEmptySlot);
    const auto k = static_cast<std::size_t>(c.ngram);
    const std::size_t shingles = simd::shingleCount(count, k);
    const std::size_t width = std::min(count, k);
    for (std::size_t s = 0; s < shingles; ++s) {
        uint64_t poly = 0;
        for (std::size_t j = 0; j < width; ++j)
            poly = fingerprintAppend(poly, c.fpBase, symbols[s + j]);
        keepMin(out, h, fingerprintFinish(poly, c.fpSalt));
    }
    std::vector<uint64_t> scratch;
    ophDensify(out, c.hashes, c.ophSalt, scratch);
}

namespace {

// Without vector kernels: two halves of the document rolled side by side, so that the core
// overlaps the two chains of dependent multiplies.
void ophSketchRolled(const uint32_t* symbols, std::size_t count, const HashConstants& c,
                     uint32_t* out, std::vector<uint64_t>& scratch) {
    const auto h = static_cast<uint32_t>(c.hashes);
    std::fill(out, out + h, kEmptySlot);
    const simd::FingerprintRoll roll(c);
    const std::size_t k = roll.window();
    const std::size_t shingles = simd::shingleCount(count, k);
    if (shingles == 0) return;
    // The fingerprint roll is a chain of dependent multiplies; two halves of the document are
    // rolled side by side so that the core overlaps them.
    const std::size_t half = shingles / 2;
    const std::size_t second = shingles - half;  // >= half; starts at shingle `half`
    uint64_t polyA = roll.start(symbols, count);
    uint64_t polyB = roll.start(symbols + half, count - half);
    keepMin(out, h, roll.finish(polyB));
    if (half > 0) keepMin(out, h, roll.finish(polyA));
    // Shingle s starts at symbol s; rolling from s to s + 1 drops symbol s, adds symbol s + k.
    for (std::size_t t = 1; t < half; ++t) {
        polyA = roll.roll(polyA, symbols[t - 1], symbols[t - 1 + k]);
        polyB = roll.roll(polyB, symbols[half + t - 1], symbols[half + t - 1 + k]);
        keepMin(out, h, roll.finish(polyA));
        keepMin(out, h, roll.finish(polyB));
    }
    for (std::size_t t = std::max<std::size_t>(half, 1); t < second; ++t) {
        polyB = roll.roll(polyB, symbols[half + t - 1], symbols[half + t - 1 + k]);
        keepMin(out, h, roll.finish(polyB));
    }
    ophDensify(out, c.hashes, c.ophSalt, scratch);
}

}  // namespace

void ophSketch(const uint32_t* symbols, std::size_t count, const HashConstants& c, uint32_t* out,
               std::vector<uint64_t>& scratch) {
    if (!simd::WindowFingerprints::vectorized())
        return ophSketchRolled(symbols, count, c, out, scratch);
    const auto h = static_cast<uint32_t>(c.hashes);
    std::fill(out, out + h, kEmptySlot);
    const auto k = static_cast<std::size_t>(c.ngram);
    if (count == 0) return;
    if (count < k) {  // one shingle, shorter than k
        const simd::FingerprintRoll roll(c);
        keepMin(out, h, roll.finish(roll.start(symbols, count)));
        ophDensify(out, c.hashes, c.ophSalt, scratch);
        return;
    }
    // Fingerprints a block at a time (computed side by side, window_fingerprints.h), then each
    // into its bin. The block stays in L1.
    const simd::WindowFingerprints windows(c.fpBase, c.fpSalt, c.ngram);
    constexpr std::size_t kBlock = 512;
    uint64_t fp[kBlock];
    const std::size_t shingles = count - k + 1;
    const bool powerOfTwo = h > 1 && (h & (h - 1)) == 0;
    const int shift = 64 - std::countr_zero(h);
    for (std::size_t first = 0; first < shingles; first += kBlock) {
        const std::size_t n = std::min(kBlock, shingles - first);
        windows.compute(symbols + first, n + k - 1, fp);
        if (powerOfTwo) {
            // ((f >> 32) * 2^b) >> 32 is f >> (64 - b): ophBin without the multiply.
            for (std::size_t i = 0; i < n; ++i) {
                uint32_t& slot = out[fp[i] >> shift];
                slot = std::min(slot, ophValue(fp[i]));
            }
        } else {
            for (std::size_t i = 0; i < n; ++i)
                keepMin(out, h, fp[i]);
        }
    }
    ophDensify(out, c.hashes, c.ophSalt, scratch);
}

}  // namespace neardup
