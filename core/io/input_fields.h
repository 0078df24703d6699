// The fields an input file offers for --text-field and --id-field, for the workbench's field
// choice: a Parquet file's columns (core/columnar's field_listing.h) or the keys of a JSON Lines
// file's first lines, nested objects' keys as dotted paths, with the JSON types seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "document_table.h"
#include "field_listing.h"

namespace neardup {

// How many lines of a JSON Lines file are sampled: enough to meet the fields most records
// have, few enough to list a folder of shards quickly.
inline constexpr std::size_t kFieldSampleLines = 300;

struct FieldListing {
    std::vector<columnar::FieldInfo> fields;
    bool parquet = false;
    uint64_t records = 0;     // JSON Lines: objects sampled; Parquet: the file's rows
    uint64_t notObjects = 0;  // JSON Lines: sampled lines that are not JSON objects
};

// The keys of the first `maxLines` non-blank lines of a JSON Lines file (decompressed as the
// reader does), in order of first appearance; an object's keys follow it as "key.child". Each
// field's type lists the JSON types seen ("string", "integer", "float", "boolean", "null",
// "object", "array", joined by " | "); its kind is String when a string was seen, Integer when
// only integers (and nulls) were. Lines that are not JSON objects are counted, not listed.
// Throws InputError for a file that cannot be read.
FieldListing jsonlFields(const InputFile& file, std::size_t maxLines = kFieldSampleLines);

// jsonlFields, or the columns of a Parquet file (by its name, as the reader decides). Throws
// InputError or columnar::ColumnarError, naming the file.
FieldListing inputFields(const InputFile& file, std::size_t maxLines = kFieldSampleLines);

}  // namespace neardup
