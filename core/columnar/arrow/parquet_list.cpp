// core/columnar with Apache Arrow: ParquetListWriter (parquet_file.h), a list of typed columns
// filled row by row through Arrow's builders and written a row group at a time.
#include <arrow/api.h>
#include <arrow/io/interfaces.h>

#include <parquet/arrow/writer.h>
#include <parquet/exception.h>
#include <parquet/properties.h>
#include <algorithm>

#include "callback_stream.h"
#include "parquet_file.h"

namespace neardup::columnar {

namespace {

std::shared_ptr<arrow::DataType> arrowType(ParquetListWriter::Type type) {
    switch (type) {
        case ParquetListWriter::Type::String:
            return arrow::utf8();
        case ParquetListWriter::Type::Int64:
            return arrow::int64();
        case ParquetListWriter::Type::Bool:
            return arrow::boolean();
        case ParquetListWriter::Type::Double:
            return arrow::float64();
    }
    return arrow::utf8();
}

}  // namespace

struct ParquetListWriter::Impl {
    std::string path;
    std::vector<Column> columns;
    std::shared_ptr<arrow::Schema> schema;
    std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
    std::unique_ptr<parquet::arrow::FileWriter> writer;
    std::size_t column = 0;  // the next value's column in the current row
    int64_t rows = 0;        // rows in the builders
    uint64_t rowsPerGroup = kRowsPerGroup;

    void check(const arrow::Status& status) const {
        if (!status.ok())
            throw ColumnarError("cannot write Parquet file '" + path + "': " + status.ToString());
    }
    // The builder of the next value, which must be of `type`.
    arrow::ArrayBuilder& next(Type type) {
        if (column >= columns.size() || columns[column].type != type)
            throw std::logic_error("ParquetListWriter: a value out of its column's order");
        return *builders[column++];
    }
    void flush() {
        if (rows == 0) return;
        std::vector<std::shared_ptr<arrow::Array>> arrays;
        for (auto& b : builders) {
            std::shared_ptr<arrow::Array> array;
            check(b->Finish(&array));
            arrays.push_back(std::move(array));
        }
        const auto batch = arrow::Table::Make(schema, arrays, rows);
        check(writer->WriteTable(*batch, rows));
        rows = 0;
    }
};

ParquetListWriter::ParquetListWriter(const std::string& path, std::vector<Column> columns,
                                     std::function<void(std::string_view)> write,
                                     uint64_t rowsPerGroup)
    : impl_(std::make_unique<Impl>()) {
    Impl& s = *impl_;
    s.rowsPerGroup = std::max<uint64_t>(rowsPerGroup, 1);
    s.path = path;
    s.columns = std::move(columns);
    arrow::FieldVector fields;
    for (const Column& c : s.columns) {
        fields.push_back(arrow::field(c.name, arrowType(c.type), c.nullable));
        std::unique_ptr<arrow::ArrayBuilder> builder;
        s.check(arrow::MakeBuilder(arrow::system_memory_pool(), arrowType(c.type), &builder));
        s.builders.push_back(std::move(builder));
    }
    s.schema = arrow::schema(fields);
    const auto properties =
        parquet::WriterProperties::Builder().compression(parquet::Compression::ZSTD)->build();
    try {
        auto result = parquet::arrow::FileWriter::Open(
            *s.schema, arrow::system_memory_pool(),
            std::make_shared<CallbackStream>(std::move(write)), properties);
        s.check(result.status());
        s.writer = std::move(result).ValueUnsafe();
    } catch (const parquet::ParquetException& e) {
        throw ColumnarError("cannot write Parquet file '" + path + "': " + e.what());
    }
}

ParquetListWriter::~ParquetListWriter() = default;

void ParquetListWriter::addString(std::string_view value) {
    impl_->check(static_cast<arrow::StringBuilder&>(impl_->next(Type::String)).Append(value));
}

void ParquetListWriter::addInt64(int64_t value) {
    impl_->check(static_cast<arrow::Int64Builder&>(impl_->next(Type::Int64)).Append(value));
}

void ParquetListWriter::addBool(bool value) {
    impl_->check(static_cast<arrow::BooleanBuilder&>(impl_->next(Type::Bool)).Append(value));
}

void ParquetListWriter::addDouble(double value) {
    impl_->check(static_cast<arrow::DoubleBuilder&>(impl_->next(Type::Double)).Append(value));
}

void ParquetListWriter::addNull() {
    Impl& s = *impl_;
    if (s.column >= s.columns.size() || !s.columns[s.column].nullable)
        throw std::logic_error("ParquetListWriter: a null in a column without nulls");
    s.check(s.builders[s.column++]->AppendNull());
}

void ParquetListWriter::endRow() {
    Impl& s = *impl_;
    if (s.column != s.columns.size())
        throw std::logic_error("ParquetListWriter: a row without a value in every column");
    s.column = 0;
    if (static_cast<uint64_t>(++s.rows) >= s.rowsPerGroup) s.flush();
}

void ParquetListWriter::close() {
    Impl& s = *impl_;
    try {
        s.flush();
        s.check(s.writer->Close());
    } catch (const parquet::ParquetException& e) {
        throw ColumnarError("cannot write Parquet file '" + s.path + "': " + e.what());
    }
}

}  // namespace neardup::columnar
