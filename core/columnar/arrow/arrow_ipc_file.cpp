// core/columnar with Apache Arrow: Arrow IPC files and streams, through Arrow's own readers
// (arrow::ipc::RecordBatchFileReader and RecordBatchStreamReader): the byte spans of their record
// batches and the decoding of a batch's text, id and keep columns (arrow_ipc_file.h).
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/io/interfaces.h>
#include <arrow/ipc/message.h>
#include <arrow/ipc/reader.h>

#include <algorithm>

#include "arrow_columns.h"
#include "arrow_ipc_file.h"
#include "file_failure.h"
#include "ipc_open.h"

namespace neardup::columnar {

namespace {

// The system allocator, as for Parquet (parquet_file.cpp): one allocator in the process.
arrow::MemoryPool* pool() {
    return arrow::system_memory_pool();
}

constexpr FileFailure fail("read Arrow IPC file");

// A file that notes how far into it the reads since the last reset() reached: the end of the
// bytes Arrow's reader needed for one batch is the end of that batch's span. Nothing of the IPC
// layout is parsed here; the readers say what they read.
class ReachTrackingFile : public arrow::io::RandomAccessFile {
  public:
    explicit ReachTrackingFile(std::shared_ptr<arrow::io::RandomAccessFile> file)
        : file_(std::move(file)) {}

    int64_t reach() const { return reach_; }
    void reset() { reach_ = 0; }

    arrow::Status Close() override { return file_->Close(); }
    bool closed() const override { return file_->closed(); }
    arrow::Result<int64_t> Tell() const override { return file_->Tell(); }
    arrow::Status Seek(int64_t position) override { return file_->Seek(position); }
    arrow::Result<int64_t> GetSize() override { return file_->GetSize(); }
    bool supports_zero_copy() const override { return file_->supports_zero_copy(); }

    arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
        ARROW_ASSIGN_OR_RAISE(const int64_t position, file_->Tell());
        ARROW_ASSIGN_OR_RAISE(const int64_t got, file_->Read(nbytes, out));
        note(position + got);
        return got;
    }
    arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
        ARROW_ASSIGN_OR_RAISE(const int64_t position, file_->Tell());
        ARROW_ASSIGN_OR_RAISE(auto buffer, file_->Read(nbytes));
        note(position + buffer->size());
        return buffer;
    }
    arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override {
        ARROW_ASSIGN_OR_RAISE(const int64_t got, file_->ReadAt(position, nbytes, out));
        note(position + got);
        return got;
    }
    arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position,
                                                         int64_t nbytes) override {
        ARROW_ASSIGN_OR_RAISE(auto buffer, file_->ReadAt(position, nbytes));
        note(position + buffer->size());
        return buffer;
    }

  private:
    void note(int64_t end) { reach_ = std::max(reach_, end); }

    std::shared_ptr<arrow::io::RandomAccessFile> file_;
    int64_t reach_ = 0;
};

// Whether a column of `type` is, or holds, a dictionary-encoded one: a stream's batch then
// needs the dictionaries sent before it.
bool hasDictionary(const arrow::DataType& type) {
    if (type.id() == arrow::Type::DICTIONARY) return true;
    for (const std::shared_ptr<arrow::Field>& child : type.fields())
        if (hasDictionary(*child->type())) return true;
    return false;
}

}  // namespace

arrow::ipc::IpcReadOptions ipcReadOptions() {
    arrow::ipc::IpcReadOptions options = arrow::ipc::IpcReadOptions::Defaults();
    options.memory_pool = pool();
    options.use_threads = false;  // the reading pipeline's threads are the parallelism
    return options;
}

std::shared_ptr<arrow::io::RandomAccessFile> openIpcFile(const std::string& path) {
    return fail.orFail(arrow::io::ReadableFile::Open(path, pool()), path);
}

OpenedIpc openIpc(const std::shared_ptr<arrow::io::RandomAccessFile>& input,
                  const std::string& path) {
    OpenedIpc opened;
    auto file = arrow::ipc::RecordBatchFileReader::Open(input, ipcReadOptions());
    if (file.ok()) {
        opened.file = std::move(file).ValueUnsafe();
        return opened;
    }
    fail.check(input->Seek(0), path);
    auto stream = arrow::ipc::RecordBatchStreamReader::Open(input, ipcReadOptions());
    if (!stream.ok())
        fail(path, "neither an IPC file (" + file.status().ToString() + ") nor an IPC stream (" +
                       stream.status().ToString() + ")");
    opened.stream = std::move(stream).ValueUnsafe();
    return opened;
}

std::vector<RowGroupSpan> arrowRecordBatches(const std::string& path, uint64_t fileSize) {
    auto tracked = std::make_shared<ReachTrackingFile>(openIpcFile(path));
    OpenedIpc ipc = openIpc(tracked, path);
    std::vector<RowGroupSpan> spans;
    uint64_t row = 0, owned = 0;
    auto add = [&](int64_t rows) {
        const uint64_t end = std::min<uint64_t>(
            std::max<uint64_t>(owned, static_cast<uint64_t>(tracked->reach())), fileSize);
        spans.push_back({row, static_cast<uint64_t>(std::max<int64_t>(rows, 0)), owned, end});
        row += spans.back().rows;
        owned = end;
    };
    if (ipc.file) {
        // The footer was read on opening; each batch's reads reach the end of its span.
        for (int i = 0; i < ipc.file->num_record_batches(); ++i) {
            tracked->reset();
            add(fail.orFail(ipc.file->ReadRecordBatch(i), path)->num_rows());
        }
    } else {
        for (;;) {
            std::shared_ptr<arrow::RecordBatch> batch;
            fail.check(ipc.stream->ReadNext(&batch), path);
            if (!batch) break;
            add(batch->num_rows());
        }
    }
    endSpans(spans, fileSize);
    return spans;
}

struct ArrowBatchReader::Impl : ReaderState {
    using ReaderState::ReaderState;

    // The open file, read with pread (ipc_open.h), never mapped: the IPC file format's reader
    // (a batch by its index in the footer), or for an IPC stream the byte where each batch's
    // message begins, found by reading it through once on opening (a batch is then read alone).
    // A stream with dictionary-encoded columns is read forward instead, from its start again
    // for an earlier batch: its batch i needs the dictionaries sent before it.
    bool opened = false;
    std::shared_ptr<arrow::io::RandomAccessFile> input;
    std::shared_ptr<arrow::Schema> schema;
    std::shared_ptr<arrow::ipc::RecordBatchFileReader> fileReader;
    std::vector<int64_t> batchOffsets;                             // a stream without dictionaries
    std::shared_ptr<arrow::ipc::RecordBatchStreamReader> forward;  // a stream with them
    int64_t forwardNext = 0;
    int64_t batchCount = 0;

    void open(const std::string& p, uint64_t fileSize) {
        opened = false;
        opening(p, fileSize);
        fileReader.reset();
        forward.reset();
        batchOffsets.clear();
        batchCount = 0;
        input = openIpcFile(p);
        const OpenedIpc ipc = openIpc(input, p);
        if (ipc.file) {
            fileReader = ipc.file;
            schema = fileReader->schema();
            batchCount = fileReader->num_record_batches();
        } else {
            schema = ipc.stream->schema();
            const bool dictionaries = hasDictionary(*arrow::struct_(schema->fields()));
            for (;;) {
                // Without dictionaries, the stream's next message is the next batch.
                const int64_t begin = fail.orFail(input->Tell(), p);
                std::shared_ptr<arrow::RecordBatch> rb;
                fail.check(ipc.stream->ReadNext(&rb), p);
                if (!rb) break;
                if (!dictionaries) batchOffsets.push_back(begin);
                ++batchCount;
            }
        }
        selected.describe(*schema);
        opened = true;
    }

    // Batch `b` of a stream without dictionaries: its message alone, at the byte it began.
    std::shared_ptr<arrow::RecordBatch> streamBatchAt(uint32_t b) {
        const int64_t begin = batchOffsets[b];
        const int64_t rest = std::max<int64_t>(static_cast<int64_t>(size) - begin, 0);
        auto stream = fail.orFail(arrow::io::RandomAccessFile::GetStream(input, begin, rest), path);
        const std::unique_ptr<arrow::ipc::Message> message =
            fail.orFail(arrow::ipc::ReadMessage(stream.get(), pool()), path);
        if (!message || message->type() != arrow::ipc::MessageType::RECORD_BATCH)
            fail(path, "no record batch at byte " + std::to_string(begin) +
                           " (changed since it was read?)");
        return fail.orFail(arrow::ipc::ReadRecordBatch(*message, schema, nullptr, ipcReadOptions()),
                           path);
    }

    // Batch `b` of a stream with dictionaries, reading forward to it.
    std::shared_ptr<arrow::RecordBatch> streamBatchForward(uint32_t b) {
        if (!forward || static_cast<int64_t>(b) < forwardNext) {
            forward.reset();
            fail.check(input->Seek(0), path);
            forward = fail.orFail(
                arrow::ipc::RecordBatchStreamReader::Open(input, ipcReadOptions()), path);
            forwardNext = 0;
        }
        std::shared_ptr<arrow::RecordBatch> rb;
        while (forwardNext <= static_cast<int64_t>(b)) {
            fail.check(forward->ReadNext(&rb), path);
            if (!rb)
                fail(path, "its stream ends before record batch " + std::to_string(b) +
                               " (changed since it was read?)");
            ++forwardNext;
        }
        return rb;
    }

    void decode(uint32_t b) {
        if (static_cast<int64_t>(b) >= batchCount)
            fail(path, "no record batch " + std::to_string(b) + " (it has " +
                           std::to_string(batchCount) + "; changed since it was read?)");
        forget();
        const std::shared_ptr<arrow::RecordBatch> rb =
            fileReader ? fail.orFail(fileReader->ReadRecordBatch(static_cast<int>(b)), path)
            : batchOffsets.empty() ? streamBatchForward(b)
                                   : streamBatchAt(b);
        columns.rows = static_cast<uint64_t>(rb->num_rows());
        table = fail.orFail(arrow::Table::FromRecordBatches({rb}), path);
        keepDecoded(b);
    }
};

ArrowBatchReader::ArrowBatchReader(std::string textField, std::string idField,
                                   std::string keepField)
    : impl_(std::make_unique<Impl>(SelectedColumns(textField, idField, keepField))) {}

ArrowBatchReader::~ArrowBatchReader() = default;

const RowGroupColumns& ArrowBatchReader::read(const std::string& path, uint64_t fileSize,
                                              uint32_t batch) {
    Impl& s = *impl_;
    if (!s.opened || s.path != path || s.size != fileSize) s.open(path, fileSize);
    if (s.decoded == static_cast<int64_t>(batch)) return s.columns;
    try {
        s.decode(batch);
    } catch (...) {
        s.decoded = -1;
        throw;
    }
    return s.columns;
}

}  // namespace neardup::columnar
