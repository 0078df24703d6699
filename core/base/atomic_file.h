// An output file that appears complete or not at all: written to a temporary file in the
// target directory, flushed to disk, then renamed over the target. The temporary is named
// ".<name>.tmp-<pid>" (hidden, one per process); a process killed while writing leaves it, and
// whoever sweeps up after dead processes recognises it by that name (tempFileOwner below).
//
// A large file is written behind: every 8 MiB handed to the kernel is sent to the disk at once,
// and the window four back is waited for and dropped from the page cache. finish() syncs the
// whole file anyway, so nothing waits longer; but a multi-gigabyte output no longer fills the
// page cache with dirty pages that the kernel must then write back and reclaim while the run
// is still writing, which on the 2-core development VM cost 1-5 s of kernel time per 4 GB
// written (docs/performance.md, "Writing behind").
#pragma once

#include <cstdint>
#include <memory>
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
    void write(const void* data, std::size_t size) {
        write(std::string_view(static_cast<const char*>(data), size));
    }
    // Flushes, syncs and closes the temporary, leaving it to commit(); throws
    // std::runtime_error on any failure (e.g. disk full). Optional: commit() finishes first.
    void finish();
    // finish() when not done yet, then renames; throws std::runtime_error on any failure.
    void commit();
    // commit(), then syncs the target's directory so that the new name itself survives a power
    // loss (files whose name a database row refers to). A failed directory sync is ignored: it
    // loses nothing already visible.
    void commitDurably();

  private:
    void open(const char* path, bool writeBehind);
    // Hands the buffer to the kernel, then writes behind (see above).
    void flush();
    void writeBehind();
    // Writes `size` bytes straight to the descriptor, retrying short writes.
    void writeAll(const char* data, std::size_t size);
    [[noreturn]] void fail(const char* what);
    std::string path_;
    std::string temp_;
    int fd_ = -1;
    std::unique_ptr<char[]> buffer_;
    std::size_t used_ = 0;
    uint64_t handed_ = 0;   // bytes handed to the kernel
    uint64_t started_ = 0;  // bytes whose write to the disk was started
    bool writeBehind_ = false;
    bool finished_ = false;
    bool committed_ = false;
};

// Syncs the directory that holds `path`, so that a name just given there survives a power loss.
// A failed sync is ignored: it loses nothing already visible.
void syncDirectoryOf(const std::string& path);

// Gives the anonymous file open as `fd` (created with O_TMPFILE) the name `path`, replacing
// what had it, synced as AtomicFile::commitDurably() leaves a temporary. False, with nothing
// synced or left behind, where the system cannot name it: another file system, no /proc, a
// file that was not created anonymous. Throws std::runtime_error naming `path` when the sync or
// the rename fails.
bool linkDurably(int fd, const std::string& path);

// The process id in the name of an AtomicFile's temporary (".<name>.tmp-<pid>"), else 0; for
// removing what dead processes left.
long tempFileOwner(std::string_view fileName);

// An AtomicFile as a std::ostream, for writers that stream (the corpus generator). A failed
// write throws AtomicFile's std::runtime_error out of the stream operation.
class AtomicFileStream : public std::ostream {
  public:
    explicit AtomicFileStream(std::string path);
    // Flushes the stream, then AtomicFile::commit().
    void commit();
    // commit(), then syncs the target's directory so that the new name itself survives a power
    // loss (files whose name a database row refers to). A failed directory sync is ignored: it
    // loses nothing already visible.
    void commitDurably();

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
