// parquetFields with Apache Arrow: a Parquet file's schema, as Arrow reads it from the footer,
// flattened into the dotted paths the reader's field options take.
#include <arrow/api.h>
#include <parquet/arrow/reader.h>
#include <parquet/file_reader.h>

#include <algorithm>

#include "field_listing.h"
#include "file_failure.h"
#include "parquet_file.h"
#include "schema_fields.h"

namespace neardup::columnar {

namespace {

constexpr FileFailure fail("read Parquet file");

}  // namespace

std::vector<FieldInfo> parquetFields(const std::string& path) {
    std::shared_ptr<arrow::Schema> schema;
    uint64_t rows = 0;
    try {
        std::unique_ptr<parquet::ParquetFileReader> file = parquet::ParquetFileReader::OpenFile(
            path, false, parquet::ReaderProperties(arrow::system_memory_pool()));
        rows = static_cast<uint64_t>(std::max<int64_t>(file->metadata()->num_rows(), 0));
        const std::unique_ptr<parquet::arrow::FileReader> reader = fail.orFail(
            parquet::arrow::FileReader::Make(arrow::system_memory_pool(), std::move(file)), path);
        fail.check(reader->GetSchema(&schema), path);
    } catch (const ColumnarError&) {
        throw;
    } catch (const std::exception& e) {
        fail(path, e.what());
    }
    return schemaFields(*schema, rows);
}

}  // namespace neardup::columnar
