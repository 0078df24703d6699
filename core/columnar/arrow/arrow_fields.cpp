// arrowFields with Apache Arrow: an IPC file's or stream's schema, read by Arrow's own readers,
// flattened like a Parquet file's.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>

#include "arrow_ipc_file.h"
#include "field_listing.h"
#include "file_failure.h"
#include "parquet_file.h"
#include "schema_fields.h"

namespace neardup::columnar {

namespace {

constexpr FileFailure fail("read Arrow file");

}  // namespace

std::vector<FieldInfo> arrowFields(const std::string& path) {
    arrow::Result<std::shared_ptr<arrow::io::MemoryMappedFile>> mapped =
        arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ);
    if (!mapped.ok()) fail(path, mapped.status().ToString());
    // The IPC file format has a footer with the schema and the batches' lengths; a stream
    // (what `datasets` writes) has its schema first and is counted batch by batch.
    if (auto file = arrow::ipc::RecordBatchFileReader::Open(*mapped); file.ok()) {
        const arrow::Result<int64_t> rows = (*file)->CountRows();
        if (!rows.ok()) fail(path, rows.status().ToString());
        return schemaFields(*(*file)->schema(), static_cast<uint64_t>(*rows));
    }
    fail.check((*mapped)->Seek(0), path);
    auto stream = arrow::ipc::RecordBatchStreamReader::Open(*mapped);
    if (!stream.ok()) fail(path, stream.status().ToString());
    uint64_t rows = 0;
    for (;;) {
        std::shared_ptr<arrow::RecordBatch> batch;
        fail.check((*stream)->ReadNext(&batch), path);
        if (!batch) break;
        rows += static_cast<uint64_t>(batch->num_rows());
    }
    return schemaFields(*(*stream)->schema(), rows);
}

}  // namespace neardup::columnar
