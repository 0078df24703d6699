// core/columnar with Apache Arrow: a Parquet file's row groups and the decoding of the text, id
// and keep columns of one row group (the column decoding itself is shared: arrow_columns.h).
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/io/interfaces.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <algorithm>
#include <cstring>

#include "arrow_columns.h"
#include "file_failure.h"
#include "parquet_file.h"

namespace neardup::columnar {

namespace {

// The system allocator, not the jemalloc or mimalloc the wheel's default pool may use: decoded
// row groups are short-lived, and one allocator in the process keeps sanitizers and memory
// accounting simple.
arrow::MemoryPool* pool() {
    return arrow::system_memory_pool();
}

parquet::ReaderProperties pageProperties() {
    return parquet::ReaderProperties(pool());
}

constexpr FileFailure fail("read Parquet file");

// The file, with a window of its bytes already in memory: reads inside the window are served
// from it (the reading pipeline has read the row group's span once, for the pin's fingerprint
// too), the others (the footer, a column outside the span) from the file.
class WindowedFile : public arrow::io::RandomAccessFile {
  public:
    WindowedFile(std::shared_ptr<arrow::io::ReadableFile> file, int64_t size)
        : file_(std::move(file)), size_(size) {}

    void setWindow(std::string_view bytes, int64_t offset) {
        window_ = bytes;
        windowOffset_ = offset;
    }

    arrow::Status Close() override { return file_->Close(); }
    bool closed() const override { return file_->closed(); }
    arrow::Result<int64_t> Tell() const override { return position_; }
    arrow::Status Seek(int64_t position) override {
        position_ = position;
        return arrow::Status::OK();
    }
    arrow::Result<int64_t> GetSize() override { return size_; }

    arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
        ARROW_ASSIGN_OR_RAISE(const int64_t got, ReadAt(position_, nbytes, out));
        position_ += got;
        return got;
    }
    arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
        ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position_, nbytes));
        position_ += buffer->size();
        return buffer;
    }

    arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, bool allowShort,
                                  void* out) override {
        if (inWindow(position, nbytes)) {
            std::memcpy(out, window_.data() + (position - windowOffset_),
                        static_cast<std::size_t>(nbytes));
            return nbytes;
        }
        return file_->ReadAt(position, nbytes, allowShort, out);
    }
    arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override {
        return ReadAt(position, nbytes, true, out);
    }
    arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes,
                                                         bool allowShort) override {
        if (inWindow(position, nbytes)) {
            // A copy: the decoded arrays may outlive the window.
            ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> buffer,
                                  arrow::AllocateBuffer(nbytes, pool()));
            std::memcpy(buffer->mutable_data(), window_.data() + (position - windowOffset_),
                        static_cast<std::size_t>(nbytes));
            return buffer;
        }
        return file_->ReadAt(position, nbytes, allowShort);
    }
    arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position,
                                                         int64_t nbytes) override {
        return ReadAt(position, nbytes, true);
    }

  private:
    bool inWindow(int64_t position, int64_t nbytes) const {
        const auto size = static_cast<int64_t>(window_.size());
        return !window_.empty() && position >= windowOffset_ && nbytes >= 0 &&
               position - windowOffset_ <= size - nbytes;
    }

    std::shared_ptr<arrow::io::ReadableFile> file_;
    int64_t size_ = 0;
    int64_t position_ = 0;
    std::string_view window_;
    int64_t windowOffset_ = 0;
};

}  // namespace

bool parquetCompiledIn() {
    return true;
}

std::vector<RowGroupSpan> parquetRowGroups(const std::string& path, uint64_t fileSize) {
    std::shared_ptr<parquet::FileMetaData> meta;
    try {
        meta = parquet::ParquetFileReader::OpenFile(path, false, pageProperties())->metadata();
    } catch (const std::exception& e) {
        fail(path, e.what());
    }
    std::vector<RowGroupSpan> spans;
    uint64_t row = 0, owned = 0;
    for (int g = 0; g < meta->num_row_groups(); ++g) {
        const std::unique_ptr<parquet::RowGroupMetaData> group = meta->RowGroup(g);
        uint64_t end = owned;
        for (int c = 0; c < group->num_columns(); ++c) {
            const std::unique_ptr<parquet::ColumnChunkMetaData> column = group->ColumnChunk(c);
            int64_t start = column->data_page_offset();
            if (column->has_dictionary_page() && column->dictionary_page_offset() > 0)
                start = std::min(start, column->dictionary_page_offset());
            const int64_t stop = start + column->total_compressed_size();
            if (start >= 0 && stop > 0) end = std::max(end, static_cast<uint64_t>(stop));
        }
        end = std::min(end, fileSize);
        const auto rows = static_cast<uint64_t>(std::max<int64_t>(group->num_rows(), 0));
        spans.push_back({row, rows, owned, end});
        row += rows;
        owned = end;
    }
    endSpans(spans, fileSize);
    return spans;
}

struct ParquetRowReader::Impl : ReaderState {
    using ReaderState::ReaderState;

    std::shared_ptr<WindowedFile> file;
    std::unique_ptr<parquet::arrow::FileReader> reader;
    std::vector<int> leaves;  // the leaf columns to read

    void open(const std::string& p, uint64_t fileSize) {
        opening(p, fileSize);
        reader.reset();
        auto readable = fail.orFail(arrow::io::ReadableFile::Open(p), p);
        file = std::make_shared<WindowedFile>(std::move(readable), static_cast<int64_t>(fileSize));
        try {
            // Synchronous reads of the columns asked for (no pre-buffering on I/O threads): the
            // reading pipeline's threads are the parallelism.
            parquet::ArrowReaderProperties properties;
            properties.set_pre_buffer(false);
            properties.set_use_threads(false);
            reader = fail.orFail(
                parquet::arrow::FileReader::Make(
                    pool(), parquet::ParquetFileReader::Open(file, pageProperties()), properties),
                p);
        } catch (const ColumnarError&) {
            throw;
        } catch (const std::exception& e) {
            fail(p, e.what());
        }
        std::shared_ptr<arrow::Schema> schema;
        fail.check(reader->GetSchema(&schema), p);
        const parquet::SchemaDescriptor& leavesSchema =
            *reader->parquet_reader()->metadata()->schema();
        selected.describe(*schema);
        leaves.clear();
        auto join = [](const std::vector<std::string>& parts) {
            std::string s;
            for (const std::string& part : parts)
                s += (s.empty() ? "" : ".") + part;
            return s;
        };
        for (SelectedColumns::Column* column : {&selected.text, &selected.id, &selected.keep}) {
            if (column->kind == ColumnValues::Kind::Missing) continue;
            const int leaf = leavesSchema.ColumnIndex(join(column->path));
            if (column->kind == ColumnValues::Kind::Other || leaf < 0) {
                column->kind = ColumnValues::Kind::Other;  // a struct, a list, a map: not read
                continue;
            }
            if (std::find(leaves.begin(), leaves.end(), leaf) == leaves.end())
                leaves.push_back(leaf);
        }
        std::sort(leaves.begin(), leaves.end());
    }

    void decode(uint32_t g) {
        const int groups = reader->num_row_groups();
        if (static_cast<int64_t>(g) >= groups)
            fail(path, "no row group " + std::to_string(g) + " (it has " + std::to_string(groups) +
                           "; changed since it was read?)");
        forget();
        columns.rows = static_cast<uint64_t>(
            reader->parquet_reader()->metadata()->RowGroup(static_cast<int>(g))->num_rows());
        if (!leaves.empty()) {
            try {
                table = fail.orFail(reader->ReadRowGroup(static_cast<int>(g), leaves), path);
            } catch (const ColumnarError&) {
                throw;
            } catch (const std::exception& e) {
                fail(path, "row group " + std::to_string(g) + ": " + e.what());
            }
        }
        keepDecoded(g);
    }
};

ParquetRowReader::ParquetRowReader(std::string textField, std::string idField,
                                   std::string keepField)
    : impl_(std::make_unique<Impl>(SelectedColumns(textField, idField, keepField))) {}

ParquetRowReader::~ParquetRowReader() = default;

const RowGroupColumns& ParquetRowReader::read(const std::string& path, uint64_t fileSize,
                                              uint32_t group, std::string_view bytes,
                                              uint64_t bytesOffset) {
    Impl& s = *impl_;
    if (!s.reader || s.path != path || s.size != fileSize) s.open(path, fileSize);
    if (bytes.empty() && s.decoded == static_cast<int64_t>(group)) return s.columns;
    s.file->setWindow(bytes, static_cast<int64_t>(bytesOffset));
    try {
        s.decode(group);
    } catch (...) {
        s.file->setWindow({}, 0);
        s.decoded = -1;
        throw;
    }
    s.file->setWindow({}, 0);
    return s.columns;
}

}  // namespace neardup::columnar
