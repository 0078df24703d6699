// An output file that appears complete or not at all: written to a temporary file in the
// target directory, flushed to disk, then renamed over the target. The temporary is named
// ".<name>.tmp-<pid>", or ".<name>.tmp-<pid>-<8 hex digits>" when that name is taken; a process
// killed while writing leaves it, and whoever sweeps up after dead processes recognises it by
// that name (tempFileOwner below).
//
// The folder may be shared with other users (mode 0777): the temporary is created with
// O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 while it is written, so an existing name (a link or file
// planted there, or left by a dead process) is never opened, followed or truncated: another name
// is tried instead. Before the rename the file gets the mode an ordinary new file gets
// (0666 less the umask). Creating a temporary first removes the ones that dead processes left
// for the same target: regular files owned by the effective user, named exactly so, whose
// process is gone; nothing else in the folder is touched.
//
// A large file is written behind: every 8 MiB handed to the kernel is sent to the disk at once,
// and the window four back is waited for and dropped from the page cache. finish() syncs the
// whole file anyway, so nothing waits longer; but a multi-gigabyte output no longer fills the
// page cache with dirty pages that the kernel must then write back and reclaim while the run
// is still writing, at a cost in kernel time that grows with the output (docs/performance.md).
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "unique_fd.h"

namespace neardup {

class AtomicFile {
  public:
    // `path` "-" is standard output, written in place like a device or a pipe.
    // Throws std::runtime_error naming the path when the temporary cannot be created.
    explicit AtomicFile(std::string path);
    // The file `name` in the folder open as `dirFd` (a descriptor of its own is kept), named
    // `shown` in messages: for folders opened once and used through their descriptor (a
    // project's sidecar folder).
    AtomicFile(int dirFd, std::string name, std::string shown);
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
    void openInPlace(const char* path);
    void createTemporary();
    // Hands the buffer to the kernel, then writes behind (see above).
    void flush();
    void writeBehind();
    // Writes `size` bytes straight to the descriptor, retrying short writes.
    void writeAll(const char* data, std::size_t size);
    [[noreturn]] void fail(const char* what);
    std::string path_;  // as shown in messages
    UniqueFd dir_;      // the target's folder; not valid when written in place
    std::string name_;  // the target's name in dir_
    std::string temp_;  // the temporary's name in dir_; empty when written in place
    uint64_t tempDev_ = 0, tempIno_ = 0;
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
// the rename fails. The intermediate name is a temporary's, made as AtomicFile makes them (an
// existing name is never replaced or followed).
bool linkDurably(int fd, const std::string& path);

// The process id in the name of an AtomicFile's temporary (".<name>.tmp-<pid>" or
// ".<name>.tmp-<pid>-<8 hex digits>"), else 0; for removing what dead processes left.
long tempFileOwner(std::string_view fileName);

// Removes the temporaries that dead processes left for the target `name` in the folder open as
// `dirFd` (see the top of this file); returns how many. Done by every AtomicFile as it starts.
int sweepDeadTemporaries(int dirFd, std::string_view name);

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
