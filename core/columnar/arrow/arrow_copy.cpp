// core/columnar with Apache Arrow: copyArrowRows (arrow_ipc_file.h), the selected rows of an
// Arrow IPC file or stream written in the same IPC format with the same schema, one record batch
// at a time, with the annotation columns of --annotate appended when asked.
#include <arrow/api.h>
#include <arrow/ipc/writer.h>

#include "arrow_ipc_file.h"
#include "callback_stream.h"
#include "file_failure.h"
#include "ipc_open.h"
#include "row_selection.h"

namespace neardup::columnar {

namespace {

constexpr FileFailure fail("copy rows of Arrow IPC file");

// The selected rows of `batch`, whose first row is row `firstRow` of the file, as one batch of
// `schema` (null when none is selected): runs of consecutive rows sliced without a copy, joined.
std::shared_ptr<arrow::RecordBatch> selectedRows(const arrow::RecordBatch& batch, uint64_t firstRow,
                                                 const ParquetRowSelection& rows,
                                                 const std::shared_ptr<arrow::Schema>& schema,
                                                 const std::string& path) {
    const std::vector<uint64_t> kept =
        keptRows(rows, firstRow, static_cast<uint64_t>(batch.num_rows()));
    if (kept.empty()) return nullptr;
    arrow::RecordBatchVector runs;
    for (const auto& [offset, length] : keptRuns(kept, firstRow))
        runs.push_back(batch.Slice(offset, length));
    std::shared_ptr<arrow::RecordBatch> out =
        runs.size() == 1
            ? runs.front()
            : fail.orFail(arrow::ConcatenateRecordBatches(runs, arrow::system_memory_pool()), path);
    if (rows.annotate)
        for (const std::shared_ptr<arrow::Array>& column :
             fail.orFail(annotationArrays(rows, kept), path)) {
            const int at = out->num_columns();
            out = fail.orFail(out->AddColumn(at, schema->field(at), column), path);
        }
    return out->ReplaceSchemaMetadata(schema->metadata());
}

}  // namespace

void copyArrowRows(const std::string& source, const ParquetRowSelection& rows,
                   const std::function<void(std::string_view)>& write,
                   const std::function<void(uint64_t)>& progress) {
    const OpenedIpc ipc = openIpc(openIpcFile(source), source);
    const auto annotated =
        annotatedSchema(ipc.file ? ipc.file->schema() : ipc.stream->schema(), rows);
    if (!annotated.ok()) fail(source, annotated.status().message());
    const std::shared_ptr<arrow::Schema> schema = *annotated;
    auto sink = std::make_shared<CallbackStream>(write);
    arrow::ipc::IpcWriteOptions options = arrow::ipc::IpcWriteOptions::Defaults();
    options.memory_pool = arrow::system_memory_pool();
    options.use_threads = false;
    // The same format as the source: `datasets` writes (and reads) streams, others files.
    const std::shared_ptr<arrow::ipc::RecordBatchWriter> writer =
        ipc.file ? fail.orFail(arrow::ipc::MakeFileWriter(sink, schema, options), source)
                 : fail.orFail(arrow::ipc::MakeStreamWriter(sink, schema, options), source);
    uint64_t firstRow = 0;
    auto copy = [&](const arrow::RecordBatch& batch) {
        if (const auto kept = selectedRows(batch, firstRow, rows, schema, source))
            fail.check(writer->WriteRecordBatch(*kept), source);
        firstRow += static_cast<uint64_t>(batch.num_rows());
        if (progress) progress(static_cast<uint64_t>(batch.num_rows()));
    };
    if (ipc.file) {
        for (int i = 0; i < ipc.file->num_record_batches(); ++i)
            copy(*fail.orFail(ipc.file->ReadRecordBatch(i), source));
    } else {
        for (;;) {
            std::shared_ptr<arrow::RecordBatch> batch;
            fail.check(ipc.stream->ReadNext(&batch), source);
            if (!batch) break;
            copy(*batch);
        }
    }
    fail.check(writer->Close(), source);
}

}  // namespace neardup::columnar
