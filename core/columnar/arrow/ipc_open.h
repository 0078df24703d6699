// Opening an Arrow IPC input of either format, shared by the batch reader (arrow_ipc_file.cpp)
// and the copy of selected rows (arrow_copy.cpp): the file read with pread through Arrow's
// ReadableFile, never memory-mapped, so that a file truncated under us is a read error naming
// it rather than a SIGBUS. Internal to core/columnar/arrow (includes Arrow).
#pragma once

#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>

#include <memory>
#include <string>

namespace neardup::columnar {

// Arrow's read options for every IPC reader of this room: the system allocator, no threads of
// Arrow's own (the reading pipeline's threads are the parallelism).
arrow::ipc::IpcReadOptions ipcReadOptions();

// The file at `path`, opened for positioned reads. Throws ColumnarError naming it.
std::shared_ptr<arrow::io::RandomAccessFile> openIpcFile(const std::string& path);

// An opened IPC input: the file format's reader, or else a stream's reader.
struct OpenedIpc {
    std::shared_ptr<arrow::ipc::RecordBatchFileReader> file;
    std::shared_ptr<arrow::ipc::RecordBatchStreamReader> stream;
};

// Opens `input` (read from its start) as the IPC file format, else as the IPC stream format.
// Throws ColumnarError naming `path` when it is neither.
OpenedIpc openIpc(const std::shared_ptr<arrow::io::RandomAccessFile>& input,
                  const std::string& path);

}  // namespace neardup::columnar
