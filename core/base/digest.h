// One digest for bytes that must hash the same in every build and on every platform (file
// names derived from keys, checksums of records on disk), unlike std::hash: 64-bit FNV-1a.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace neardup {

inline constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnv1aPrime = 0x100000001b3ull;

// 64-bit FNV-1a of `bytes`, byte by byte.
constexpr uint64_t fnv1a(std::string_view bytes) {
    uint64_t h = kFnv1aOffsetBasis;
    for (const char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= kFnv1aPrime;
    }
    return h;
}

inline uint64_t fnv1a(const void* data, std::size_t size) {
    return fnv1a(std::string_view(static_cast<const char*>(data), size));
}

static_assert(fnv1a("") == kFnv1aOffsetBasis);
static_assert(fnv1a("a") == 0xaf63dc4c8601ec8cull);  // the published FNV-1a test vector

}  // namespace neardup
