// Pinned inputs: a dataset's byte offsets are only ever used on the files they were read from.
//
// When an input is listed, its identity is taken (size, modification and change times, device
// and inode); while it is read, a fingerprint of its decompressed content is computed in the
// parallel stage that parses it anyway: a position-weighted sum of its bytes, 64 bits, computed
// per chunk and added up, so chunk boundaries do not matter (fingerprintPart). Both are stored
// with the dataset (dataset_files). Before stored offsets are used (export of the kept lines,
// verification of a reused dataset, the workbench showing a document) pinProblem() compares the
// file now with what was pinned: a missing file or another size is refused at once; when only
// its times, device or inode differ (a `touch`, a copy, a restore from backup) the content is
// read once and its fingerprint compared, so an edit of the same size is caught while an
// untouched copy is accepted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "document_table.h"

namespace neardup {

// The contribution of `n` content bytes starting at byte `offset` of a file to its fingerprint;
// a file's fingerprint is the sum (mod 2^64) of the contributions of any split of its content
// into parts. Any change of a single 8-byte word changes it.
uint64_t fingerprintPart(const char* data, std::size_t n, uint64_t offset);

// Reads the first `upTo` decompressed bytes of `file` (all of it when upTo is UINT64_MAX) and
// returns their fingerprint, with the bytes actually read in `bytes`. Throws InputError.
uint64_t fingerprintFile(const InputFile& file, uint64_t upTo, uint64_t& bytes);

// Fills the identity fields (size, times, device, inode) of `file` from the file at its path
// now; false when it cannot be examined.
bool statIdentity(InputFile& file);

// Why `pinned` cannot be used as the file its offsets came from: "" when it can. The message
// names the file and what changed ("not found", "was N bytes, now M", "its content changed").
// May read the whole file once (see the top of this file).
std::string pinProblem(const InputFile& pinned);

// The first problem of `files` (pinProblem), or "".
std::string pinProblem(const std::vector<InputFile>& files);

}  // namespace neardup
