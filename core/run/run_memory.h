// What the run's memory budget counts: the per-document floor, per-document bytes of the
// in-memory phases, the reading stage's chunks in flight, and the project store's page cache
// (core/outofcore/memory_budget.h holds the budget itself).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lsh_buckets.h"
#include "params.h"

namespace neardup {

// Bytes per document that the in-memory bucket and compare phases add to the signature matrix:
// band keys, one band's bucket entries (twice: the radix sort's two buffers, band_entries.h) and
// member index, and room for stored pairs.
inline uint64_t inMemoryBytesPerDocument(const RunParams& params) {
    return 8 * static_cast<uint64_t>(params.lsh.bands) + 2 * sizeof(BucketEntry) + 4 + 8;
}

// Bytes of one signature row.
inline uint64_t rowBytes(const RunParams& params) {
    return 4 * static_cast<uint64_t>(params.signature.hashes);
}

// Rows keyed and written at a time when a run starts spilling and the rows held so far move
// to the spill files: a working set beside the floor, so it stays small. The rows are written
// where they lie; only their keys (8 bytes a band) are new memory, 1 MiB at 16 bands.
inline constexpr std::size_t kStartSpillBlockRows = 8192;
// Input chunks in flight take about this many times their size (text, parsed text, symbols,
// and the parsers' buffers), measured on short English-like documents.
inline constexpr uint64_t kBytesPerChunkByte = 9;
// Chunks signed in the parallel stage also hold their signature rows until the serial stage
// copies them: 4·H bytes a document, counted as if documents averaged this many bytes.
inline constexpr uint64_t kShortDocumentBytes = 64;
// The project store's SQLite page cache fills while a large dataset is saved and stays
// resident: bounded to a sixteenth of the budget, between 1 MiB and the 64 MiB the project opens
// with (SQLite's soft heap limit, store_memory.h), and counted as part of the budget.
inline uint64_t storeCacheBytes(uint64_t budget) {
    return std::clamp<uint64_t>(budget / 16, uint64_t{1} << 20, uint64_t{64} << 20);
}
// Chunks are never cut smaller than this, whatever the budget and the threads (a chunk holds at
// least one whole line, however long).
inline constexpr std::size_t kMinChunkBytes = std::size_t{32} << 10;

// The per-document floor: what every document costs for the whole run, in the document table
// (five numbers, the --keep value, the id's end and the id itself) and beside its signature
// (digest and eligibility flag), counted on the arrays' sizes with a quarter on top for their
// growth (the read grows them by a quarter at a time). Nothing spills it; a budget below it
// is refused (MemoryBudgetError).
inline constexpr uint64_t kFloorBytesPerDocument = 4 + 8 + 8 + 4 + 4 + 8 + 8 + 8 + 1;
inline uint64_t documentFloorBytes(std::size_t documents, uint64_t idBytes) {
    const uint64_t exact = documents * kFloorBytesPerDocument + idBytes;
    return exact + exact / 4;
}

}  // namespace neardup
