// schemaFields: Arrow types named and sorted into the kinds the field choice orders by.
#include "schema_fields.h"

#include <arrow/api.h>

#include "arrow_columns.h"

namespace neardup::columnar {

namespace {

// The kinds the field choice orders by, from how the readers read a column (arrow_columns.h).
FieldInfo::Kind fieldKind(const arrow::DataType& type) {
    switch (kindOf(type)) {
        case ColumnValues::Kind::Strings:
            return FieldInfo::Kind::String;
        case ColumnValues::Kind::Integers:
            return FieldInfo::Kind::Integer;
        default:
            return FieldInfo::Kind::Other;
    }
}

void appendField(const arrow::Field& field, const std::string& prefix, uint64_t rows,
                 std::vector<FieldInfo>& out) {
    const std::string path = prefix.empty() ? field.name() : prefix + "." + field.name();
    out.push_back({path, field.type()->ToString(), fieldKind(*field.type()), rows});
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
