// An output file compressed by its name: "*.gz" is written as gzip, "*.zst" as zstd, any other
// name as it is. It writes through an AtomicFile, so a compressed output too appears complete
// or not at all. The streams are deterministic (no time stamp in the gzip header, one zstd
// frame compressed on the calling thread), so an output's bytes depend only on its content.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace neardup {

class AtomicFile;

enum class OutputCompression { None, Gzip, Zstd };

// The compression a file name asks for: ".gz" gzip, ".zst" zstd (any case), else none. "-"
// (standard output) is never compressed.
OutputCompression compressionForName(std::string_view path);

class OutputFile {
  public:
    // Creates the AtomicFile's temporary for `path`. Throws std::runtime_error naming it.
    OutputFile(const std::string& path, OutputCompression compression);
    // Compressed as its name asks (compressionForName).
    explicit OutputFile(const std::string& path);
    // The file `name` in the folder open as `dirFd` (AtomicFile's), named `shown` in messages.
    OutputFile(int dirFd, const std::string& name, const std::string& shown,
               OutputCompression compression);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(std::string_view bytes);
    // Ends the compressed stream, then AtomicFile::finish(): complete under the temporary name.
    void finish();
    // finish() when not done yet, then renames the file into place.
    void commit();
    // The finished file, for a caller that renames it later (PendingOutputs).
    std::unique_ptr<AtomicFile> release();
    const std::string& path() const { return path_; }

  private:
    struct Compressor;
    void startCompression(OutputCompression compression);
    void pump(std::string_view bytes, bool end);
    std::string path_;
    std::unique_ptr<AtomicFile> file_;
    std::unique_ptr<Compressor> compressor_;
    bool finished_ = false;
};

}  // namespace neardup
