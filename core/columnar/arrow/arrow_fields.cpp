// arrowFields with Apache Arrow: an IPC file's or stream's schema, read by Arrow's own readers,
// flattened like a Parquet file's.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>

#include "arrow_ipc_file.h"
#include "field_listing.h"
#include "file_failure.h"
#include "ipc_open.h"
#include "parquet_file.h"
#include "schema_fields.h"

namespace neardup::columnar {

namespace {

constexpr FileFailure fail("read Arrow file");

}  // namespace

std::vector<FieldInfo> arrowFields(const std::string& path) {
    // Read with pread, never mapped, as every reader of this room (ipc_open.h): a file truncated
    // under us is an error naming it, not a SIGBUS. The IPC file format has a footer with the
    // schema and the batches' lengths; a stream (what `datasets` writes) has its schema first
    // and is counted batch by batch.
    const OpenedIpc ipc = openIpc(openIpcFile(path), path);
    if (ipc.file) {
        const arrow::Result<int64_t> rows = ipc.file->CountRows();
        if (!rows.ok()) fail(path, rows.status().ToString());
        return schemaFields(*ipc.file->schema(), static_cast<uint64_t>(*rows));
    }
    uint64_t rows = 0;
    for (;;) {
        std::shared_ptr<arrow::RecordBatch> batch;
        fail.check(ipc.stream->ReadNext(&batch), path);
        if (!batch) break;
        rows += static_cast<uint64_t>(batch->num_rows());
    }
    return schemaFields(*ipc.stream->schema(), rows);
}

}  // namespace neardup::columnar
