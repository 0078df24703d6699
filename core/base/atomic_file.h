// An output file that appears complete or not at all: written to a temporary file in the
// target directory, flushed to disk, then renamed over the target.
#pragma once

#include <cstdio>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace neardup {

class AtomicFile {
  public:
    // `path` "-" is standard output, written in place like a device or a pipe.
    // Throws std::runtime_error naming the path when the temporary cannot be created.
    explicit AtomicFile(std::string path);
    ~AtomicFile();  // removes the temporary unless commit() succeeded
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(std::string_view bytes);
    // Flushes, syncs and closes the temporary, leaving it to commit(); throws
    // std::runtime_error on any failure (e.g. disk full). Optional: commit() finishes first.
    void finish();
    // finish() when not done yet, then renames; throws std::runtime_error on any failure.
    void commit();

  private:
    void fail(const char* what);
    std::string path_;
    std::string temp_;
    std::FILE* file_ = nullptr;
    bool finished_ = false;
    bool committed_ = false;
};

// An AtomicFile as a std::ostream, for writers that stream (the corpus generator). A failed
// write throws AtomicFile's std::runtime_error out of the stream operation.
class AtomicFileStream : public std::ostream {
  public:
    explicit AtomicFileStream(std::string path);
    // Flushes the stream, then AtomicFile::commit().
    void commit();

  private:
    // Hands every byte straight to the AtomicFile, which buffers.
    class Buffer : public std::streambuf {
      public:
        explicit Buffer(AtomicFile& file) : file_(file) {}

      protected:
        int_type overflow(int_type c) override;
        std::streamsize xsputn(const char* s, std::streamsize n) override;

      private:
        AtomicFile& file_;
    };
    AtomicFile file_;
    Buffer buffer_;
};

}  // namespace neardup
