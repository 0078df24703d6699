// Arrow IPC files (the file format, and the stream format that Hugging Face `datasets` writes
// into its shards), read through Apache Arrow C++ in plain types, and the reading of a columnar
// input (Parquet or Arrow) by its name. Record batches play the role of Parquet's row groups: a
// document's location is (file, batch, row). Only this room's arrow/*.cpp include Arrow; without
// it a stub says "Arrow support is not compiled in".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "parquet_file.h"

namespace neardup::columnar {

// Names read as Arrow IPC: *.arrow, any case.
bool isArrowName(std::string_view path);
// Names read as columnar files (Parquet or Arrow IPC), by their rows.
bool isColumnarName(std::string_view path);
// The message for an Arrow input in a build without Arrow, naming the file.
std::string arrowNotCompiledInMessage(const std::string& path);

// The record batches of the Arrow IPC file (either format) at `path` (of `fileSize` bytes) and
// the bytes each owns, as RowGroupSpans: contiguous, from byte 0 (the first owns the magic and
// the schema) to the file's size (the last owns the footer or the end-of-stream marker); a file
// without batches has one span of no rows. Reads the file's messages once, through Arrow's
// readers. Throws ColumnarError naming the file.
std::vector<RowGroupSpan> arrowRecordBatches(const std::string& path, uint64_t fileSize);

// Decodes the text, id and keep columns of record batches; one per thread. The file is read with
// pread, never memory-mapped (a file truncated under a mapping kills the process with SIGBUS;
// here it is a ColumnarError naming it). An IPC file's batches are read by index from its
// footer; an IPC stream is read through once when opened, noting where each batch's message
// begins, and a batch is then read alone (a stream with dictionary-encoded columns, whose batch
// i needs the dictionaries sent before it, is read forward instead, from its start again for an
// earlier batch). Only the batch being decoded is held.
class ArrowBatchReader {
  public:
    ArrowBatchReader(std::string textField, std::string idField, std::string keepField);
    ~ArrowBatchReader();
    ArrowBatchReader(const ArrowBatchReader&) = delete;
    ArrowBatchReader& operator=(const ArrowBatchReader&) = delete;

    // Batch `batch` of the file at `path` (of `fileSize` bytes); the last batch read is kept.
    // The values stay valid until the next call. Throws ColumnarError naming the file.
    const RowGroupColumns& read(const std::string& path, uint64_t fileSize, uint32_t batch);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Writes the selected rows of the Arrow IPC file or stream at `source` (ParquetRowSelection's
// keep and annotation columns) in the same IPC format, its bytes going to `write` in order: the
// source's schema (every column, its types and metadata) with the annotation columns appended
// when asked; one record batch per source batch with its selected rows, in order (none for a
// batch without any; a file without rows keeps the schema); bodies uncompressed (what
// `datasets` writes). Reads one batch at a time; `progress` is told the source rows of each
// batch once it is written. Throws ColumnarError naming the file; a failed `write` throws
// through.
void copyArrowRows(const std::string& source, const ParquetRowSelection& rows,
                   const std::function<void(std::string_view)>& write,
                   const std::function<void(uint64_t)>& progress);

// A columnar file's row groups or record batches, by its name (Parquet or Arrow).
std::vector<RowGroupSpan> columnarSpans(const std::string& path, uint64_t fileSize);

// Reads a row group or record batch of a columnar file by its name: a ParquetRowReader or an
// ArrowBatchReader, each made when first needed (one per thread, as they are).
class ColumnarRowReader {
  public:
    ColumnarRowReader(std::string textField, std::string idField, std::string keepField);
    ~ColumnarRowReader();
    ColumnarRowReader(const ColumnarRowReader&) = delete;
    ColumnarRowReader& operator=(const ColumnarRowReader&) = delete;

    // As ParquetRowReader::read; `bytes` serve Parquet reads only (an Arrow file is read again).
    const RowGroupColumns& read(const std::string& path, uint64_t fileSize, uint32_t group,
                                std::string_view bytes = {}, uint64_t bytesOffset = 0);

  private:
    std::string textField_, idField_, keepField_;
    std::unique_ptr<ParquetRowReader> parquet_;
    std::unique_ptr<ArrowBatchReader> arrow_;
};

}  // namespace neardup::columnar
