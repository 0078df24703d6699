// The decoding shared by the Parquet and Arrow IPC readers of this room: the type of a column
// at a dotted path, how NearDup reads that type, and a decoded table's column as ColumnValues.
// Internal to core/columnar/arrow (includes Arrow).
#pragma once

#include <arrow/api.h>

#include <memory>
#include <string>
#include <vector>

#include "parquet_file.h"

namespace neardup::columnar {

// The Arrow type of the field at a dotted path (struct fields), or null when there is none.
std::shared_ptr<arrow::DataType> typeAt(const arrow::Schema& schema,
                                        const std::vector<std::string>& path);

// How a column of `type` is read: strings (and dictionaries of them), integers, floats, other.
ColumnValues::Kind kindOf(const arrow::DataType& type);

// One column of the decoded table, by dotted path, into `out` (whose kind and type are set).
// Integer digits go into `digits`, whose capacity must hold 24 bytes per integer appended (the
// views into it must stay valid).
void extractColumn(const arrow::Table& table, const std::vector<std::string>& path,
                   ColumnValues& out, std::string& digits);

// Sets `out` to the column at `path` of `table` (null: none decoded) of the given kind and type
// name, `rows` long: a column absent from the table reads as nulls, never as fewer rows.
void fillColumn(const arrow::Table* table, const std::vector<std::string>& path,
                ColumnValues::Kind kind, const std::string& type, uint64_t rows,
                std::string& digits, ColumnValues& out);

}  // namespace neardup::columnar
