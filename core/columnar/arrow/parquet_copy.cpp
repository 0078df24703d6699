// core/columnar with Apache Arrow: copyParquetRows (parquet_file.h), the selected rows of a
// Parquet file written as a Parquet file of the same schema and compression, one row group at a
// time, with the annotation columns of --annotate appended when asked.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/io/interfaces.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/properties.h>

#include <algorithm>

#include "callback_stream.h"
#include "file_failure.h"
#include "parquet_file.h"
#include "row_selection.h"

namespace neardup::columnar {

namespace {

constexpr FileFailure fail("copy rows of Parquet file");

// The writer's properties: each leaf column compressed with its codec in the source's first
// row group (Arrow's default, snappy, for a file without row groups).
std::shared_ptr<parquet::WriterProperties> propertiesLike(const parquet::FileMetaData& meta) {
    parquet::WriterProperties::Builder builder;
    if (meta.num_row_groups() > 0) {
        const std::unique_ptr<parquet::RowGroupMetaData> group = meta.RowGroup(0);
        for (int c = 0; c < group->num_columns(); ++c) {
            const parquet::Compression::type codec = group->ColumnChunk(c)->compression();
            if (c == 0) builder.compression(codec);
            builder.compression(meta.schema()->Column(c)->path(), codec);
        }
    }
    return builder.build();
}

}  // namespace

void copyParquetRows(const std::string& source, const ParquetRowSelection& rows,
                     const std::function<void(std::string_view)>& write,
                     const std::function<void(uint64_t)>& progress) {
    arrow::MemoryPool* pool = arrow::system_memory_pool();
    std::unique_ptr<parquet::arrow::FileReader> reader;
    try {
        auto file = fail.orFail(arrow::io::ReadableFile::Open(source), source);
        parquet::ArrowReaderProperties readProperties;
        readProperties.set_pre_buffer(false);
        readProperties.set_use_threads(false);
        reader = fail.orFail(parquet::arrow::FileReader::Make(
                                 pool, parquet::ParquetFileReader::Open(file), readProperties),
                             source);
    } catch (const ColumnarError&) {
        throw;
    } catch (const std::exception& e) {
        fail(source, e.what());
    }
    std::shared_ptr<arrow::Schema> schema;
    fail.check(reader->GetSchema(&schema), source);
    if (auto annotated = annotatedSchema(schema, rows); annotated.ok())
        schema = *annotated;
    else
        fail(source, annotated.status().message());
    const std::shared_ptr<parquet::FileMetaData> meta = reader->parquet_reader()->metadata();
    auto sink = std::make_shared<CallbackStream>(write);
    // The Arrow schema stored in the file, so that types Parquet has no name for (large
    // strings, dictionaries) and the schema's metadata come back as they were.
    const auto arrowProperties = parquet::ArrowWriterProperties::Builder().store_schema()->build();
    std::unique_ptr<parquet::arrow::FileWriter> writer;
    try {
        writer = fail.orFail(parquet::arrow::FileWriter::Open(
                                 *schema, pool, sink, propertiesLike(*meta), arrowProperties),
                             source);
        uint64_t firstRow = 0;
        for (int g = 0; g < meta->num_row_groups(); ++g) {
            const auto groupRows = static_cast<uint64_t>(meta->RowGroup(g)->num_rows());
            const std::vector<uint64_t> kept = keptRows(rows, firstRow, groupRows);
            if (!kept.empty()) {
                const std::shared_ptr<arrow::Table> group =
                    fail.orFail(reader->ReadRowGroup(g), source);
                std::vector<std::shared_ptr<arrow::Table>> runs;
                for (const auto& [offset, length] : keptRuns(kept, firstRow))
                    runs.push_back(group->Slice(offset, length));
                std::shared_ptr<arrow::Table> table =
                    fail.orFail(arrow::ConcatenateTables(runs), source);
                if (rows.annotate)
                    for (const std::shared_ptr<arrow::Array>& column :
                         fail.orFail(annotationArrays(rows, kept), source)) {
                        const int at = table->num_columns();
                        table = fail.orFail(
                            table->AddColumn(at, schema->field(at),
                                             std::make_shared<arrow::ChunkedArray>(column)),
                            source);
                    }
                table = table->ReplaceSchemaMetadata(schema->metadata());
                fail.check(writer->WriteTable(*table, static_cast<int64_t>(kept.size())), source);
            }
            firstRow += groupRows;
            if (progress) progress(groupRows);
        }
        fail.check(writer->Close(), source);
    } catch (const ColumnarError&) {
        throw;
    } catch (const parquet::ParquetException& e) {
        fail(source, e.what());
    }
}

}  // namespace neardup::columnar
