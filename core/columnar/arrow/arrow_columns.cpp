// The decoding shared by the Parquet and Arrow IPC readers of this room: an Arrow table's text,
// id and keep columns (dotted paths into structs) turned into ColumnValues. Internal to
// core/columnar/arrow (includes Arrow).
#include "arrow_columns.h"

#include <charconv>

#include "field_text.h"

namespace neardup::columnar {

namespace {

// The string at `i` of a string-like array (not null).
std::string_view stringAt(const arrow::Array& array, int64_t i) {
    switch (array.type_id()) {
        case arrow::Type::STRING:
            return static_cast<const arrow::StringArray&>(array).GetView(i);
        case arrow::Type::LARGE_STRING:
            return static_cast<const arrow::LargeStringArray&>(array).GetView(i);
        case arrow::Type::STRING_VIEW:
            return static_cast<const arrow::StringViewArray&>(array).GetView(i);
        case arrow::Type::DICTIONARY: {
            const auto& dict = static_cast<const arrow::DictionaryArray&>(array);
            return stringAt(*dict.dictionary(), dict.GetValueIndex(i));
        }
        default:
            return {};
    }
}

template <typename ArrayType>
void appendIntegers(const arrow::Array& array, ColumnValues& out, std::string& digits) {
    const auto& a = static_cast<const ArrayType&>(array);
    for (int64_t i = 0; i < a.length(); ++i) {
        const auto value = a.Value(i);
        char* begin = digits.data() + digits.size();
        digits.resize(digits.size() + 24);  // capacity reserved: views stay valid
        const auto end = std::to_chars(begin, digits.data() + digits.size(), value).ptr;
        digits.resize(static_cast<std::size_t>(end - digits.data()));
        out.text.emplace_back(begin, static_cast<std::size_t>(end - begin));
        out.numbers.push_back(static_cast<double>(value));
    }
}

void appendIntegerArray(const arrow::Array& array, ColumnValues& out, std::string& digits) {
    switch (array.type_id()) {
        case arrow::Type::INT8:
            return appendIntegers<arrow::Int8Array>(array, out, digits);
        case arrow::Type::INT16:
            return appendIntegers<arrow::Int16Array>(array, out, digits);
        case arrow::Type::INT32:
            return appendIntegers<arrow::Int32Array>(array, out, digits);
        case arrow::Type::INT64:
            return appendIntegers<arrow::Int64Array>(array, out, digits);
        case arrow::Type::UINT8:
            return appendIntegers<arrow::UInt8Array>(array, out, digits);
        case arrow::Type::UINT16:
            return appendIntegers<arrow::UInt16Array>(array, out, digits);
        case arrow::Type::UINT32:
            return appendIntegers<arrow::UInt32Array>(array, out, digits);
        case arrow::Type::UINT64:
            return appendIntegers<arrow::UInt64Array>(array, out, digits);
        default:
            return;
    }
}

// One column of the decoded table, by dotted path, into `out` (whose kind and type are set).
// Integer digits go into `digits`, whose capacity must hold 24 bytes per integer appended (the
// views into it must stay valid).
void extractColumn(const arrow::Table& table, const std::vector<std::string>& path,
                   ColumnValues& out, std::string& digits) {
    const std::shared_ptr<arrow::ChunkedArray> column = table.GetColumnByName(path.front());
    if (!column) return;
    for (const std::shared_ptr<arrow::Array>& chunk : column->chunks()) {
        std::shared_ptr<arrow::Array> array = chunk;
        for (std::size_t p = 1; p < path.size() && array; ++p) {
            const auto& parent = static_cast<const arrow::StructArray&>(*array);
            const int index = parent.struct_type()->GetFieldIndex(path[p]);
            // The flattened child is null where the struct itself is.
            array = index < 0 ? nullptr : parent.GetFlattenedField(index).ValueOr(nullptr);
        }
        if (!array) return;
        const int64_t n = array->length();
        for (int64_t i = 0; i < n; ++i)
            out.valid.push_back(array->IsValid(i) ? 1 : 0);
        switch (out.kind) {
            case ColumnValues::Kind::Strings:
                for (int64_t i = 0; i < n; ++i)
                    out.text.push_back(array->IsValid(i) ? stringAt(*array, i)
                                                         : std::string_view());
                break;
            case ColumnValues::Kind::Integers:
                appendIntegerArray(*array, out, digits);
                break;
            case ColumnValues::Kind::Floats:
                for (int64_t i = 0; i < n; ++i)
                    out.numbers.push_back(
                        array->type_id() == arrow::Type::FLOAT
                            ? static_cast<double>(
                                  static_cast<const arrow::FloatArray&>(*array).Value(i))
                            : static_cast<const arrow::DoubleArray&>(*array).Value(i));
                break;
            default:
                break;
        }
    }
}

void fillColumn(const arrow::Table* table, const SelectedColumns::Column& column, uint64_t rows,
                std::string& digits, ColumnValues& out) {
    const ColumnValues::Kind kind = column.kind;
    out.kind = kind;
    out.type = column.type;
    if (table && !column.path.empty() && kind != ColumnValues::Kind::Missing &&
        kind != ColumnValues::Kind::Other)
        extractColumn(*table, column.path, out, digits);
    // A column absent from the decoded table reads as nulls, never as fewer rows.
    out.valid.resize(static_cast<std::size_t>(rows), 0);
    if (kind == ColumnValues::Kind::Strings || kind == ColumnValues::Kind::Integers)
        out.text.resize(static_cast<std::size_t>(rows));
    if (kind == ColumnValues::Kind::Integers || kind == ColumnValues::Kind::Floats)
        out.numbers.resize(static_cast<std::size_t>(rows));
}

}  // namespace

// The Arrow type of the field at a dotted path (struct fields), or null when there is none.
std::shared_ptr<arrow::DataType> typeAt(const arrow::Schema& schema,
                                        const std::vector<std::string>& path) {
    std::shared_ptr<arrow::Field> field = schema.GetFieldByName(path.front());
    for (std::size_t i = 1; field && i < path.size(); ++i) {
        if (field->type()->id() != arrow::Type::STRUCT) return nullptr;
        field = static_cast<const arrow::StructType&>(*field->type()).GetFieldByName(path[i]);
    }
    return field ? field->type() : nullptr;
}

ColumnValues::Kind kindOf(const arrow::DataType& type) {
    using K = ColumnValues::Kind;
    switch (type.id()) {
        case arrow::Type::STRING:
        case arrow::Type::LARGE_STRING:
        case arrow::Type::STRING_VIEW:
            return K::Strings;
        case arrow::Type::DICTIONARY: {
            const auto& dict = static_cast<const arrow::DictionaryType&>(type);
            return kindOf(*dict.value_type()) == K::Strings ? K::Strings : K::Other;
        }
        case arrow::Type::INT8:
        case arrow::Type::INT16:
        case arrow::Type::INT32:
        case arrow::Type::INT64:
        case arrow::Type::UINT8:
        case arrow::Type::UINT16:
        case arrow::Type::UINT32:
        case arrow::Type::UINT64:
            return K::Integers;
        case arrow::Type::FLOAT:
        case arrow::Type::DOUBLE:
            return K::Floats;
        default:
            return K::Other;
    }
}

void endSpans(std::vector<RowGroupSpan>& spans, uint64_t fileSize) {
    if (spans.empty()) spans.push_back({0, 0, 0, fileSize});
    spans.back().end = fileSize;
}

SelectedColumns::SelectedColumns(const std::string& textField, const std::string& idField,
                                 const std::string& keepField) {
    text.path = splitFieldPath(textField);
    id.path = splitFieldPath(idField);
    if (!keepField.empty()) keep.path = splitFieldPath(keepField);
}

void SelectedColumns::describe(const arrow::Schema& schema) {
    for (Column* column : {&text, &id, &keep}) {
        column->kind = ColumnValues::Kind::Missing;
        column->type.clear();
        if (column->path.empty()) continue;
        const std::shared_ptr<arrow::DataType> t = typeAt(schema, column->path);
        if (!t) continue;
        column->kind = kindOf(*t);
        column->type = t->ToString();
    }
}

void SelectedColumns::fill(const arrow::Table* table, uint64_t rows, std::string& digits,
                           RowGroupColumns& out) const {
    digits.reserve(static_cast<std::size_t>(rows) * 24 * 2 + 1);
    fillColumn(table, text, rows, digits, out.text);
    fillColumn(table, id, rows, digits, out.id);
    fillColumn(table, keep, rows, digits, out.keep);
}

void ReaderState::opening(const std::string& p, uint64_t fileSize) {
    path = p;
    size = fileSize;
    decoded = -1;
}

void ReaderState::forget() {
    columns = RowGroupColumns{};
    table.reset();
    digits.clear();
}

void ReaderState::keepDecoded(int64_t index) {
    selected.fill(table.get(), columns.rows, digits, columns);
    decoded = index;
}

}  // namespace neardup::columnar
