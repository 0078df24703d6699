// Pinned inputs: a dataset's byte offsets are only ever used on the files they were read from.
//
// When an input is listed, its identity is taken (size, modification and change times, device
// and inode); while it is read, the pin of its decompressed content is computed in the parallel
// stage that parses it anyway (content_pin.h: a keyed 128-bit tag, the same for any split into
// chunks). Both are stored with the dataset (dataset_files). Before stored offsets are used
// (export of the kept lines, verification of a reused dataset, the workbench showing a document)
// pinProblem() compares the file now with what was pinned: a missing file or another size is
// refused at once; when only its times, device or inode differ (a `touch`, a copy, a restore
// from backup) the content is read once and its pin compared, so an edit of the same size is
// caught, deliberate or not, while an untouched copy is accepted. Projects of schema versions 3
// to 5 hold a 64-bit position-weighted sum instead (legacySum), checked the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "content_pin.h"
#include "document_table.h"

namespace neardup {

// The legacy fingerprint (projects of schema versions 3 to 5): the contribution of `n` content
// bytes starting at byte `offset` of a file; a file's fingerprint is the sum (mod 2^64) of the
// contributions of any split of its content into parts.
uint64_t fingerprintPart(const char* data, std::size_t n, uint64_t offset);

// Reads the first `upTo` decompressed bytes of `file` (all of it when upTo is UINT64_MAX) and
// returns their legacy fingerprint, with the bytes actually read in `bytes`. Throws InputError.
uint64_t fingerprintFile(const InputFile& file, uint64_t upTo, uint64_t& bytes);

// Reads the first `upTo` decompressed bytes of `file` (all of it when upTo is UINT64_MAX) into a
// pinner under the file's pinKey, which goes on from there (a resumed read). Throws InputError.
ContentPinner pinFilePrefix(const InputFile& file, uint64_t upTo);

// Why the content of `now` (its path) is not what `pinned` pinned, or "": reads it once, and
// compares its length and pin (or legacy sum). `pinned` must be fingerprinted.
std::string contentMismatch(const InputFile& pinned, const InputFile& now);

// Fills the identity fields (size, times, device, inode) of `file` from the file at its path
// now; false when it cannot be examined.
bool statIdentity(InputFile& file);

// True when `now` (identity filled in by statIdentity) is the file `pinned` pinned by identity
// alone: the same modification time and, where the project stores them, change time, device and
// inode. Otherwise only its content can tell (pinProblem).
bool sameIdentity(const InputFile& pinned, const InputFile& now);

// Why `pinned` cannot be used as the file its offsets came from: "" when it can. The message
// names the file and what changed ("not found", "was N bytes, now M", "its content changed").
// May read the whole file once (see the top of this file).
std::string pinProblem(const InputFile& pinned);

// The first problem of `files` (pinProblem), or "".
std::string pinProblem(const std::vector<InputFile>& files);

}  // namespace neardup
