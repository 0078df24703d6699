// Scratch files of a run that does not fit its memory budget: a private work directory and
// append-then-read files of raw records inside it.
//
// Each file is unlinked as soon as it is created and lives on through its descriptor, so
// nothing is left behind whatever way the run ends, even when the process is killed; the work
// directory itself is removed by WorkDir's destructor (success, failure and cancellation all
// unwind through it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace neardup {

class WorkDir {
  public:
    // The directory is created on first use, as a unique "work-<pid>-XXXXXX" inside `parent`
    // (created too when missing; never removed).
    explicit WorkDir(std::string parent);
    ~WorkDir();
    WorkDir(const WorkDir&) = delete;
    WorkDir& operator=(const WorkDir&) = delete;

    const std::string& parent() const { return parent_; }
    // Creates the directory when needed. Throws std::runtime_error naming it.
    const std::string& path();
    bool created() const { return !path_.empty(); }
    // Removes the directory and anything in it now; safe to call twice.
    void remove() noexcept;

    // Bytes written to files of this directory so far.
    uint64_t bytesWritten() const { return written_; }
    void addWritten(uint64_t bytes) { written_ += bytes; }

  private:
    std::string parent_;
    std::string path_;
    uint64_t written_ = 0;
};

// Reads exactly `bytes` at `offset` of `fd`; safe from several threads at once. Throws
// std::runtime_error naming `what` when the file fails or ends before.
void readExactlyAt(int fd, uint64_t offset, void* out, std::size_t bytes, const std::string& what);

class SpillFile {
  public:
    // A scratch file is gone once closed. A keepable one may instead be given a name that
    // outlives the run (linkAs): the rows of a spilled run become the project's signature
    // cache that way instead of being copied into it.
    enum class Kind { Scratch, Keepable };
    // Creates `name` in the work directory (and unlinks it at once), or for a keepable file an
    // anonymous file there (O_TMPFILE; a scratch file where the file system has none). Throws
    // std::runtime_error.
    SpillFile(WorkDir& dir, const std::string& name, Kind kind = Kind::Scratch);
    ~SpillFile();
    SpillFile(const SpillFile&) = delete;
    SpillFile& operator=(const SpillFile&) = delete;

    // Appends at the end. Throws std::runtime_error (e.g. disk full) naming the file.
    void append(const void* data, std::size_t bytes);
    // Moves the end `bytes` further without writing them: a hole, which takes no disk space
    // until writeAt fills it (rows that lie elsewhere for now, copied in only if the file is
    // kept).
    void appendHole(uint64_t bytes) { size_ += bytes; }
    // Reads exactly `bytes` at `offset`; safe to call from several threads at once.
    void readAt(uint64_t offset, void* out, std::size_t bytes) const;
    uint64_t size() const { return size_; }
    // Drops the contents (the space is returned to the file system).
    void truncate();

    // Writes `bytes` at `offset` (over what append wrote, or past its end) without counting
    // them as appended: a header or trailer that turns the file into another format. Throws
    // std::runtime_error.
    void writeAt(uint64_t offset, const void* data, std::size_t bytes);
    // Names a keepable file `path`, synced (replacing what had that name, durably:
    // linkDurably). False where it cannot be: a scratch file, or `path` on another file system.
    bool linkAs(const std::string& path);

  private:
    WorkDir& dir_;
    std::string name_;
    int fd_ = -1;
    bool anonymous_ = false;  // created with O_TMPFILE, so it can be linked
    uint64_t size_ = 0;
};

}  // namespace neardup
