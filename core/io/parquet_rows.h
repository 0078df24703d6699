// Parquet rows as documents: the checks a JSON line gets, applied to a row group's decoded
// columns (core/columnar), so that a row becomes a document or a rejection with its reason the
// same way from the reading pipeline and from re-reading by location.
#pragma once

#include <cstdint>
#include <string>

#include "jsonl_reader.h"
#include "parquet_file.h"

namespace neardup {

// Appends rows [from, from + count) of a decoded row group to `out`: documents (their line the
// 1-based row of the file, `firstLine` being the group's first; offset the group; length the
// row within it) or rejections (missing_text for a null or absent text, text_not_string for a
// column of another type, invalid_utf8, invalid_id). `defaultIdPath` makes the ids of rows
// without one ("<file>:<row>").
void appendParquetRows(const columnar::RowGroupColumns& columns, uint64_t from, uint64_t count,
                       uint32_t group, uint64_t firstLine, const ReaderOptions& options,
                       const std::string& defaultIdPath, ParsedChunk& out);

// A Parquet row as a JSON line for JSON Lines outputs: the id and text fields under their
// (dotted: nested) names; an integer id stays a number.
std::string parquetRowJson(const ReaderOptions& options, std::string_view id, bool numericId,
                           std::string_view text);

}  // namespace neardup
