// What the run's memory budget counts: per-document bytes of the in-memory phases, the reading
// stage's chunks in flight, and the project store's page cache (core/outofcore/memory_budget.h
// holds the budget itself).
#pragma once

#include <cstddef>
#include <cstdint>

#include "lsh_buckets.h"
#include "params.h"

namespace neardup {

// Bytes per document that the in-memory bucket and compare phases add to the signature matrix:
// band keys, one band's bucket entry and member index, and room for stored pairs.
inline uint64_t inMemoryBytesPerDocument(const RunParams& params) {
    return 8 * static_cast<uint64_t>(params.lsh.bands) + sizeof(BucketEntry) + 4 + 8;
}

// Bytes of one signature row.
inline uint64_t rowBytes(const RunParams& params) {
    return 4 * static_cast<uint64_t>(params.signature.hashes);
}

// Rows moved to the spill file at a time when a run starts spilling.
inline constexpr std::size_t kSpillBlockRows = 8192;
// Input chunks in flight take about this many times their size (text, parsed text, symbols,
// and the parsers' buffers), measured on short English-like documents.
inline constexpr uint64_t kBytesPerChunkByte = 9;
// Chunks signed in the parallel stage also hold their signature rows until the serial stage
// copies them: 4·H bytes a document, counted as if documents averaged this many bytes.
inline constexpr uint64_t kShortDocumentBytes = 64;
// The project store's SQLite page cache (PRAGMA cache_size in project_schema.cpp) fills while
// a large dataset is saved and stays resident: counted as part of the budget.
inline constexpr uint64_t kStoreCacheBytes = uint64_t{64} << 20;
inline constexpr std::size_t kMinChunkBytes = std::size_t{256} << 10;

}  // namespace neardup
