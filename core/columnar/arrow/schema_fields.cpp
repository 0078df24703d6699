// schemaFields: Arrow types named and sorted into the kinds the field choice orders by.
#include "schema_fields.h"

#include <arrow/api.h>

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

std::vector<FieldInfo> schemaFields(const arrow::Schema& schema, uint64_t rows) {
    std::vector<FieldInfo> out;
    for (const std::shared_ptr<arrow::Field>& field : schema.fields())
        appendField(*field, {}, rows, out);
    return out;
}

}  // namespace neardup::columnar
