// Parquet files, read through Apache Arrow C++: the whole interface of core/columnar, in plain
// types. Only this room's .cpp files include Arrow (its headers cost about 15 s per translation
// unit and need the pyarrow environment), so nothing else is built against them; a build
// without Arrow links a stub that says "Parquet support is not compiled in".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace neardup::columnar {

// A Parquet file that cannot be read (not Parquet, damaged, unreadable); the message names it.
class ColumnarError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Whether this build reads Parquet (NEARDUP_PARQUET found Arrow).
bool parquetCompiledIn();
// Names read as Parquet: *.parquet, any case.
bool isParquetName(std::string_view path);
// The message for a Parquet input in a build without Arrow, naming the file.
std::string notCompiledInMessage(const std::string& path);

// A row group and the bytes of its file that it owns. The spans of a file are contiguous and
// cover it from byte 0 to its size (the first owns the magic, the last the footer), so reading
// them in order reads the whole file once, which is what its pin's fingerprint needs.
struct RowGroupSpan {
    uint64_t firstRow = 0;  // 0-based row of the file
    uint64_t rows = 0;
    uint64_t begin = 0, end = 0;
};

// The row groups of the Parquet file at `path` (of `fileSize` bytes), from its footer; a file
// without rows has one span of no rows. Throws ColumnarError.
std::vector<RowGroupSpan> parquetRowGroups(const std::string& path, uint64_t fileSize);

// One column (a dotted path: struct fields) of a decoded row group, as the reader needs it.
struct ColumnValues {
    enum class Kind : uint8_t {
        Missing,   // no such column in the file
        Strings,   // string, large_string, string_view, or a dictionary of those
        Integers,  // any integer type; `text` holds the decimal digits
        Floats,    // float or double; only `numbers`
        Other,     // anything else: `type` names it
    };
    Kind kind = Kind::Missing;
    std::string type;                    // Arrow's name of the column's type, for messages
    std::vector<uint8_t> valid;          // per row; 0 = null (a null struct above counts too)
    std::vector<std::string_view> text;  // Strings (bytes as stored, unchecked) and Integers
    std::vector<double> numbers;         // Integers and Floats
};

struct RowGroupColumns {
    uint64_t rows = 0;
    ColumnValues text, id, keep;
};

// Decodes the text, id and keep columns of row groups; one per thread. It keeps the file open
// and the last row group decoded, so reading rows of one group one by one (re-reading documents
// by location) decodes the group once.
class ParquetRowReader {
  public:
    // Dotted column paths; `keepField` may be empty.
    ParquetRowReader(std::string textField, std::string idField, std::string keepField);
    ~ParquetRowReader();
    ParquetRowReader(const ParquetRowReader&) = delete;
    ParquetRowReader& operator=(const ParquetRowReader&) = delete;

    // Row group `group` of the file at `path` (of `fileSize` bytes). `bytes`, when not empty,
    // are the file's bytes from `bytesOffset` on, already in memory: reads within them are
    // served from there (the reading pipeline reads each row group's span once, in order).
    // The values stay valid until the next call. Throws ColumnarError.
    const RowGroupColumns& read(const std::string& path, uint64_t fileSize, uint32_t group,
                                std::string_view bytes = {}, uint64_t bytesOffset = 0);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Which rows of a Parquet file copyParquetRows writes and, when annotating, their added columns.
struct ParquetRowSelection {
    std::vector<uint8_t> keep;  // per 0-based row of the source; rows beyond it are not written
    // Three columns appended to the schema (int64, int64, bool, never null), by name; per row
    // of the source like `keep`, read where it is set.
    bool annotate = false;
    std::string clusterIdName, clusterSizeName, removedName;
    std::vector<int64_t> clusterId, clusterSize;
    std::vector<uint8_t> removed;
};

// Writes the selected rows of the Parquet file at `source` as a new Parquet file whose bytes go
// to `write`, in order: the source's schema (every column, its Arrow types and key-value
// metadata) with the annotation columns appended when asked; each column's pages compressed
// with the codec that column has in the source's first row group; one row group per source row
// group with its selected rows, in order (none for a group without any; a file without rows
// keeps the schema). Reads one row group at a time; `progress` is told the source rows of each
// group once it is written. Throws ColumnarError naming the file (an annotation column the
// source already has too); a failed `write` throws through.
void copyParquetRows(const std::string& source, const ParquetRowSelection& rows,
                     const std::function<void(std::string_view)>& write,
                     const std::function<void(uint64_t)>& progress);

// A list written as Parquet (--out-kept, --out-removed, --out-clusters named *.parquet): typed
// columns, filled row by row, written in row groups of kRowsPerGroup rows, zstd pages.
class ParquetListWriter {
  public:
    static constexpr uint64_t kRowsPerGroup = uint64_t{1} << 20;
    enum class Type : uint8_t { String, Int64, Bool, Double };
    struct Column {
        std::string name;
        Type type = Type::String;
        bool nullable = false;
    };
    // The file's bytes go to `write`, in order, in row groups of `rowsPerGroup` rows. Throws
    // ColumnarError naming `path` (for messages only), "not compiled in" in a build without
    // Arrow.
    ParquetListWriter(const std::string& path, std::vector<Column> columns,
                      std::function<void(std::string_view)> write,
                      uint64_t rowsPerGroup = kRowsPerGroup);
    ~ParquetListWriter();
    ParquetListWriter(const ParquetListWriter&) = delete;
    ParquetListWriter& operator=(const ParquetListWriter&) = delete;

    // The next value of the current row, column by column, in the column's type; addNull()
    // where the column is nullable.
    void addString(std::string_view value);
    void addInt64(int64_t value);
    void addBool(bool value);
    void addDouble(double value);
    void addNull();
    // Ends the row (every column has its value).
    void endRow();
    // Writes the last row group and the footer.
    void close();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace neardup::columnar
