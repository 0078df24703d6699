// An output file that appears complete or not at all: written to a temporary file in the
// target directory, flushed to disk, then renamed over the target.
#pragma once

#include <cstdio>
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

}  // namespace neardup
