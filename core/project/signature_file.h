// The signature cache format: one file per (dataset, cache key) in the project's sidecar
// directory, or the same bytes as a BLOB for in-memory projects.
//
// Layout, little-endian:
//   0   char[8]  magic "NDWSIG01"
//   8   uint32   format version (1)
//   12  uint32   hashes per document (H)
//   16  uint64   documents (n)
//   24  uint32   cache key length (L)
//   28  char[L]  cache key
//   ..  uint32   values, n * H, row-major
//   ..  uint64   digests, n
//   ..  uint8    eligible flags, n (1 = long enough to be an LSH candidate)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "signatures.h"
#include "unique_fd.h"

namespace neardup::sigfile {

// "signatures-<dataset>-<16 hex digits of a hash of the cache key>.bin"
std::string fileName(int64_t datasetId, const std::string& cacheKey);

// Writes `path` atomically: a temporary file in the same directory, fsync, rename, fsync of
// the directory. Throws StoreError naming the file.
void write(const std::string& path, const std::string& cacheKey, const SignatureMatrix& sig);

// The rows of documents [first, first + count) into out (count x hashes), from wherever a
// cache's values are when they are not in memory (a run that spilled: its rows' spill file).
using RowBlocks = std::function<void(uint64_t first, std::size_t count, uint32_t* out)>;
inline constexpr std::size_t kRowBlock = 8192;  // rows copied at a time: 4 MiB at H = 128

// write(), with the values read kRowBlock rows at a time from `rows` instead of from memory:
// the same bytes. What `rows` throws ends the write (no file is left); Cancelled passes through
// as it is, other errors as StoreError. `shape` gives the hash count, the digests and the
// eligibility flags (its values are not read and may be empty).
void writeFromRows(const std::string& path, const std::string& cacheKey,
                   const SignatureMatrix& shape, const RowBlocks& rows);

// Where the values of a file with `cacheKey` begin: a file that holds them from there on (a
// spilled run's rows' file) becomes the whole cache file once completeInPlace wrote the rest.
uint64_t valuesOffset(const std::string& cacheKey);
// Writes the header before the values and the digests and eligibility flags after them through
// `writeAt(offset, data, bytes)`, straight from `shape` (as for writeFromRows). Returns the
// whole file's size, past which a file reused for it must hold nothing.
using WriteAt = std::function<void(uint64_t offset, const void* data, std::size_t bytes)>;
uint64_t completeInPlace(const std::string& cacheKey, const SignatureMatrix& shape,
                         const WriteAt& writeAt);

// The whole encoding in memory (for BLOB storage).
std::string encode(const std::string& cacheKey, const SignatureMatrix& sig);

// Fill `out` from a file or a buffer whose header matches the expected shape and key. False
// (never throws) when missing, short, too long or mismatched; `out` is then left empty.
bool read(const std::string& path, const std::string& cacheKey, uint64_t documents, int hashes,
          SignatureMatrix& out);
bool decode(const void* data, std::size_t bytes, const std::string& cacheKey, uint64_t documents,
            int hashes, SignatureMatrix& out);
// The values of the first `count` rows of the file at `path` (checked as read() checks it) into
// `out` (count x hashes): a base's rows read straight into the matrix of the cache that leaves
// them to it, without a second matrix. False (never throws) as read() is.
bool readLeadingValues(const std::string& path, const std::string& cacheKey, uint64_t documents,
                       int hashes, uint64_t count, uint32_t* out);

// A cache file opened to be read a part at a time: what a run whose budget cannot hold the
// whole matrix streams its rows from.
struct OpenedRows {
    UniqueFd fd;            // the file, read with pread only
    uint64_t valuesAt = 0;  // where document 0's row begins; document d's at valuesAt + d * 4H
    // A cache that leaves its first sharedRows rows to its dataset's base's cache (a hole in
    // `fd`): those rows are read from `baseFd` at baseValuesAt + d * 4H.
    UniqueFd baseFd;
    uint64_t baseValuesAt = 0;
    uint64_t sharedRows = 0;
};
// Opens `path` checked as read() checks it, its values left where they are. False (never
// throws) as read() is.
bool openValues(const std::string& path, const std::string& cacheKey, uint64_t documents,
                int hashes, OpenedRows& out);
// The same, with the digests and eligibility flags read into `shape` (its values left empty),
// `shape` left empty when it fails.
bool openRows(const std::string& path, const std::string& cacheKey, uint64_t documents, int hashes,
              SignatureMatrix& shape, OpenedRows& out);

// The rows of the documents `rows` (sorted, each < documents), in that order, into `values`
// (rows.size() * hashes), from an open cache file whose values begin at `valuesAt`: one read of H
// values per document. False (never throws), with `values` empty, when a row is out of range or
// cannot be read.
bool readRowsAt(int fd, uint64_t valuesAt, uint64_t documents, int hashes,
                const std::vector<uint32_t>& rows, std::vector<uint32_t>& values);
// The same from an opened cache, each row from the file that holds it (OpenedRows::sharedRows).
bool readRowsAt(const OpenedRows& file, uint64_t documents, int hashes,
                const std::vector<uint32_t>& rows, std::vector<uint32_t>& values);

}  // namespace neardup::sigfile
