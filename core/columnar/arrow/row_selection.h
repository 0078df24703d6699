// The parts of copying selected rows that Parquet and Arrow IPC outputs share (parquet_copy.cpp,
// arrow_copy.cpp): which rows of a row group or record batch are kept, the runs of consecutive
// kept rows (sliced without a copy), and --annotate's schema fields and columns. Internal to
// core/columnar/arrow (includes Arrow).
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "parquet_file.h"

namespace neardup::columnar {

// The file rows in [firstRow, firstRow + count) that `rows` keeps, in order.
std::vector<uint64_t> keptRows(const ParquetRowSelection& rows, uint64_t firstRow, uint64_t count);

// The runs of consecutive rows of `kept` (rows of the file; the group starts at `firstRow`), each
// as (offset in the group, length): what Slice takes.
std::vector<std::pair<int64_t, int64_t>> keptRuns(const std::vector<uint64_t>& kept,
                                                  uint64_t firstRow);

// `schema` with the three annotation fields appended when rows.annotate (as it is otherwise); an
// Invalid status naming the column when the schema has one of those names already.
arrow::Result<std::shared_ptr<arrow::Schema>> annotatedSchema(std::shared_ptr<arrow::Schema> schema,
                                                              const ParquetRowSelection& rows);

// The three annotation columns (cluster id, cluster size, removed) of the rows `kept`.
arrow::Result<arrow::ArrayVector> annotationArrays(const ParquetRowSelection& rows,
                                                   const std::vector<uint64_t>& kept);

}  // namespace neardup::columnar
