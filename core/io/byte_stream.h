// Sequential reading of one input file's decompressed bytes (plain, gzip or zstd). Internal to
// the reader: LineChunkSource and RangeReader share it so both see the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "document_table.h"
#include "jsonl_reader.h"

namespace neardup {

class ByteStream {
  public:
    ByteStream();
    ~ByteStream();
    ByteStream(const ByteStream&) = delete;
    ByteStream& operator=(const ByteStream&) = delete;

    // Opens `file` (closing any previous one). Throws InputError.
    void open(const InputFile& file);
    void close();
    bool isOpen() const;

    // Reads up to n decompressed bytes into dst; returns 0 only at the end of the file. Throws
    // InputError on I/O errors and CorruptStreamError on corrupt or truncated compressed
    // streams. Bytes decoded before the damage are returned first: the call that meets it
    // returns them, the next one throws.
    std::size_t read(char* dst, std::size_t n);
    // Decompressed bytes returned by read() since open().
    uint64_t position() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A compressed stream that is damaged or ends early; the message names the file and the
// decompressed byte offset of the damage.
class CorruptStreamError : public InputError {
  public:
    using InputError::InputError;
};

// "cannot read 'path': <strerror(err)>"
[[noreturn]] void throwCannotRead(const std::string& path, int err);

}  // namespace neardup
