// parquetFields with Apache Arrow: a Parquet file's schema, as Arrow reads it from the footer,
// flattened into the dotted paths the reader's field options take.
#include <arrow/api.h>
#include <parquet/arrow/reader.h>
#include <parquet/file_reader.h>

#include <algorithm>

#include "field_listing.h"
#include "parquet_file.h"

namespace neardup::columnar {

namespace {

FieldInfo::Kind kindOf(const arrow::DataType& type) {
    switch (type.id()) {
        case arrow::Type::STRING:
        case arrow::Type::LARGE_STRING:
        case arrow::Type::STRING_VIEW:
            return FieldInfo::Kind::String;
        case arrow::Type::DICTIONARY:
            // Dictionary-encoded strings read as strings (parquet_file.cpp decodes them).
            return kindOf(*static_cast<const arrow::DictionaryType&>(type).value_type()) ==
                           FieldInfo::Kind::String
                       ? FieldInfo::Kind::String
                       : FieldInfo::Kind::Other;
        case arrow::Type::INT8:
        case arrow::Type::INT16:
        case arrow::Type::INT32:
        case arrow::Type::INT64:
        case arrow::Type::UINT8:
        case arrow::Type::UINT16:
        case arrow::Type::UINT32:
        case arrow::Type::UINT64:
            return FieldInfo::Kind::Integer;
        default:
            return FieldInfo::Kind::Other;
    }
}

void appendField(const arrow::Field& field, const std::string& prefix, uint64_t rows,
                 std::vector<FieldInfo>& out) {
    const std::string path = prefix.empty() ? field.name() : prefix + "." + field.name();
    out.push_back({path, field.type()->ToString(), kindOf(*field.type()), rows});
    if (field.type()->id() != arrow::Type::STRUCT) return;
    for (const std::shared_ptr<arrow::Field>& child : field.type()->fields())
        appendField(*child, path, rows, out);
}

}  // namespace

std::vector<FieldInfo> parquetFields(const std::string& path) {
    std::shared_ptr<arrow::Schema> schema;
    uint64_t rows = 0;
    try {
        std::unique_ptr<parquet::ParquetFileReader> file = parquet::ParquetFileReader::OpenFile(
            path, false, parquet::ReaderProperties(arrow::system_memory_pool()));
        rows = static_cast<uint64_t>(std::max<int64_t>(file->metadata()->num_rows(), 0));
        arrow::Result<std::unique_ptr<parquet::arrow::FileReader>> reader =
            parquet::arrow::FileReader::Make(arrow::system_memory_pool(), std::move(file));
        if (!reader.ok())
            throw ColumnarError("cannot read Parquet file '" + path +
                                "': " + reader.status().ToString());
        if (const arrow::Status st = (*reader)->GetSchema(&schema); !st.ok())
            throw ColumnarError("cannot read Parquet file '" + path + "': " + st.ToString());
    } catch (const ColumnarError&) {
        throw;
    } catch (const std::exception& e) {
        throw ColumnarError("cannot read Parquet file '" + path + "': " + e.what());
    }
    std::vector<FieldInfo> out;
    for (const std::shared_ptr<arrow::Field>& field : schema->fields())
        appendField(*field, {}, rows, out);
    return out;
}

}  // namespace neardup::columnar
