// Fuzz target: normalization (NFC, lowercase, whitespace), symbol streams, exact shingle sets
// and signatures of both hash families and sketches on arbitrary bytes (invalid UTF-8 included:
// the normalizer maps it to U+FFFD). The first two bytes pick the options. The CPU fast path
// must give exactly the reference implementation's signature.
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "oph_sketch.h"
#include "shingles.h"
#include "signatures.h"

using namespace neardup;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const uint8_t a = data[0], b = data[1];
    SignatureParams sp;
    sp.normalize.nfc = a & 1;
    sp.normalize.lowercase = a & 2;
    sp.normalize.collapseWhitespace = a & 4;
    sp.normalize.trim = a & 8;
    sp.shingle = a & 16 ? ShingleKind::Word : ShingleKind::Char;
    sp.family = a & 32 ? HashFamily::Rolling : HashFamily::Permute;
    sp.sketch = a & 64 ? SketchKind::Oph : SketchKind::Classic;
    sp.ngram = 1 + b % 9;
    sp.hashes = 16 << ((b >> 4) & 3);  // 16 .. 128
    sp.seed = b;
    const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);

    static Normalizer* normalizers[16] = {};
    Normalizer*& normalizer = normalizers[a & 15];
    if (!normalizer) normalizer = new Normalizer(sp.normalize);  // lives as long as the process
    const std::vector<uint32_t> codepoints = normalizer->run(text);
    for (const uint32_t c : codepoints)
        FUZZ_CHECK(c < 0x110000);
    std::vector<uint32_t> symbols;
    toSymbols(sp.shingle, codepoints, symbols);
    for (const uint32_t s : symbols)
        FUZZ_CHECK(s < 0x7fffffffu);

    std::vector<uint64_t> shingles;
    shingleSet(symbols.data(), symbols.size(), sp.ngram, shingles);
    FUZZ_CHECK(std::is_sorted(shingles.begin(), shingles.end()));
    FUZZ_CHECK(std::adjacent_find(shingles.begin(), shingles.end()) == shingles.end());
    const std::size_t windows = symbols.size() >= static_cast<std::size_t>(sp.ngram)
                                    ? symbols.size() - sp.ngram + 1
                                    : (symbols.empty() ? 0 : 1);
    FUZZ_CHECK(shingles.size() <= windows);
    if (!shingles.empty()) FUZZ_CHECK(exactJaccard(shingles, shingles) == 1.0);

    // The fast path (rolling updates, SIMD kernels, reused scratch) equals the reference
    // recomputation, also after a longer document left its state in the scratch buffer.
    const HashConstants constants = HashConstants::derive(sp);
    const auto h = static_cast<std::size_t>(sp.hashes);
    std::vector<uint32_t> fast(h), reference(h), other(h);
    static std::vector<uint64_t> scratch;
    signatureRolling(symbols.data(), symbols.size(), constants, fast.data(), scratch);
    if (sp.sketch == SketchKind::Oph)
        ophSketchDirect(symbols.data(), symbols.size(), constants, reference.data());
    else
        signatureDirect(symbols.data(), symbols.size(), constants, reference.data());
    FUZZ_CHECK(fast == reference);
    const std::vector<uint32_t> longer(symbols.size() + 64, 'x');
    signatureRolling(longer.data(), longer.size(), constants, other.data(), scratch);
    signatureRolling(symbols.data(), symbols.size(), constants, other.data(), scratch);
    FUZZ_CHECK(other == reference);
    return 0;
}
