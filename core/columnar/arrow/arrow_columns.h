// The decoding shared by the Parquet and Arrow IPC readers of this room: the type of a column
// at a dotted path, how NearDup reads that type, and a decoded table's column as ColumnValues.
// Internal to core/columnar/arrow (includes Arrow).
#pragma once

#include <arrow/api.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "parquet_file.h"

namespace neardup::columnar {

// The Arrow type of the field at a dotted path (struct fields), or null when there is none.
std::shared_ptr<arrow::DataType> typeAt(const arrow::Schema& schema,
                                        const std::vector<std::string>& path);

// How a column of `type` is read: strings (and dictionaries of them), integers, floats, other.
ColumnValues::Kind kindOf(const arrow::DataType& type);

// Makes the last span of a file's row groups (or batches) own the bytes up to its end (the
// footer, or a stream's end marker); a file without rows gets one span of no rows.
void endSpans(std::vector<RowGroupSpan>& spans, uint64_t fileSize);

// The text, id and keep columns a reader decodes: their dotted paths, and what the open file
// holds at each (kind and type name), which every row group or batch of the file shares.
struct SelectedColumns {
    struct Column {
        std::vector<std::string> path;  // empty: not asked for
        ColumnValues::Kind kind{};
        std::string type;
    };
    Column text, id, keep;

    // The keep field is optional: empty asks for no keep column.
    SelectedColumns(const std::string& textField, const std::string& idField,
                    const std::string& keepField);

    // Each column looked up in the schema of a file just opened: Missing where it has none.
    void describe(const arrow::Schema& schema);

    // `out`'s three columns from `table` (null: none decoded), `rows` long each: a column absent
    // from the table reads as nulls, never as fewer rows. Integer digits go into `digits`,
    // reserved here so that the views into it stay valid.
    void fill(const arrow::Table* table, uint64_t rows, std::string& digits,
              RowGroupColumns& out) const;
};

// What the Parquet and Arrow IPC readers keep between reads: the columns asked for, the file
// open (its path and size) and the row group (or batch) decoded last, with the table and digits
// its columns view, which a read of the same group returns again.
struct ReaderState {
    explicit ReaderState(SelectedColumns asked) : selected(std::move(asked)) {}

    SelectedColumns selected;
    std::string path;
    uint64_t size = 0;
    int64_t decoded = -1;  // the group decoded last; -1: none
    std::shared_ptr<arrow::Table> table;
    std::string digits;
    RowGroupColumns columns;

    // Takes `p`, of `fileSize` bytes, as the file open, none of its groups decoded yet.
    void opening(const std::string& p, uint64_t fileSize);
    // Drops the group decoded last, before the next one is read.
    void forget();
    // Group `index`, of `columns.rows` rows, read into `table` (null: none of the columns): its
    // columns filled, and kept as the group decoded last.
    void keepDecoded(int64_t index);
};

}  // namespace neardup::columnar
