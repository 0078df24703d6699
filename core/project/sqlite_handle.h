// The one RAII layer over the sqlite3 C API that every file of core/project goes through: a
// connection (read-write, creating, or read-only), prepared statements with typed bind and
// column helpers (by position or by column name), checked transactions and savepoints that
// roll back when an exception leaves their scope, and the online backup of Save As. Every
// failure throws StoreError with one line a user can act on (the project's path and the reason,
// never SQL text; lastErrorCode() tells code the kind), so callers never look at result codes
// to report them; no other file calls sqlite3_* or includes <sqlite3.h>.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;
struct sqlite3_backup;

namespace neardup::sql {

// How long a connection waits for another process's lock on the project before it reports
// "project busy": long enough for any single write of another run (saving a large dataset).
inline constexpr int kBusyTimeoutMs = 60000;

class Database;

class Statement {
  public:
    Statement() = default;
    Statement(const Database& db, std::string_view sql);
    ~Statement();
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // Parameters are 1-based, as in SQLite. Text and blobs are bound without copying: the
    // caller keeps them alive until the next step() or reset().
    Statement& bind(int index, int64_t value);
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view text);
    // Text SQLite copies (for a temporary the statement outlives).
    Statement& bindCopy(int index, std::string_view text);
    Statement& bindBlob(int index, const void* data, std::size_t bytes);
    Statement& bindNull(int index);
    // Unsigned values are stored bit-cast into SQLite's signed 64-bit integers.
    Statement& bindU64(int index, uint64_t value) {
        return bind(index, static_cast<int64_t>(value));
    }
    Statement& bindBool(int index, bool value) { return bind(index, int64_t{value ? 1 : 0}); }
    Statement& bindInt(int index, int value) { return bind(index, int64_t{value}); }

    // True when a row is available, false when done.
    bool step();
    // Runs a statement that returns no rows to completion, then resets it for reuse.
    void run();
    void reset();

    // Columns are 0-based, as in SQLite.
    bool isNull(int column) const;
    int64_t int64(int column) const;
    uint64_t u64(int column) const { return static_cast<uint64_t>(int64(column)); }
    uint32_t u32(int column) const { return static_cast<uint32_t>(int64(column)); }
    int i32(int column) const { return static_cast<int>(int64(column)); }
    double real(int column) const;
    // NaN for NULL (an average over no rows, a pair that was not verified).
    double realOrNaN(int column) const {
        return isNull(column) ? std::numeric_limits<double>::quiet_NaN() : real(column);
    }
    std::string_view text(int column) const;
    std::string string(int column) const { return std::string(text(column)); }
    const void* blob(int column) const;
    std::size_t bytes(int column) const;

    // The position of the result column called `name`, or -1 when the statement has none.
    int column(std::string_view name) const;

    const char* sql() const;

  private:
    [[noreturn]] void fail(int rc) const;

    const Database* db_ = nullptr;
    sqlite3_stmt* stmt_ = nullptr;
    mutable std::vector<std::string> names_;  // result column names, read on first column()
    bool planted_ = false;                    // fails as on a full disk (NEARDUP_TEST_FAIL_SQL)
};

// A statement's current row read by column name: what row mappers decode with, so that a
// column list can change without every reader counting positions. A column the statement does
// not have reads as NULL (an older schema without it).
class Row {
  public:
    explicit Row(const Statement& st) : st_(st) {}
    bool has(std::string_view name) const { return st_.column(name) >= 0; }
    bool isNull(std::string_view name) const;
    int64_t int64(std::string_view name) const;
    uint64_t u64(std::string_view name) const { return static_cast<uint64_t>(int64(name)); }
    int i32(std::string_view name) const { return static_cast<int>(int64(name)); }
    bool flag(std::string_view name) const { return int64(name) != 0; }
    double real(std::string_view name) const;
    std::string_view text(std::string_view name) const;
    std::string string(std::string_view name) const { return std::string(text(name)); }

  private:
    // The column's position; StoreError when the statement has no such column.
    int at(std::string_view name) const;
    const Statement& st_;
};

// How a connection opens its file.
enum class OpenMode {
    ReadWrite,  // an existing file, read and written
    Create,     // read and written, created when missing
    ReadOnly,   // never written: no lock but the shared one a reader takes
};

class Database {
  public:
    // Opens the database at `path`; ":memory:" gives a private one. Throws StoreError.
    Database(const std::string& path, OpenMode mode);
    // ReadWrite, or Create when `create`.
    Database(const std::string& path, bool create)
        : Database(path, create ? OpenMode::Create : OpenMode::ReadWrite) {}
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Treats the file as data from elsewhere, before anything reads it: SQLite's defensive mode
    // (no writable_schema, no direct writes to the schema or its pages), triggers and views of
    // the file never run, and functions its schema names run only where SQLite deems them
    // harmless (trusted_schema off). Temporary triggers and views of this connection still work.
    void distrustFile();

    // The file as given when opening (":memory:" for a private database).
    const std::string& path() const { return path_; }

    void exec(std::string_view sql);
    Statement prepare(std::string_view sql) const { return Statement(*this, sql); }
    // Runs a query expected to yield one integer (e.g. a pragma or a count); 0 when no row.
    int64_t queryInt(std::string_view sql) const;
    // Whether the schema holds a table called `name`.
    bool hasTable(std::string_view name) const;

    int64_t lastInsertRowId() const;
    int64_t changes() const;
    // True when the file can only be read (opened ReadOnly, or a write-protected file).
    bool readOnly() const;
    // True inside a transaction this connection opened: what it wrote there, other connections
    // do not see yet.
    bool inTransaction() const;
    // How long a statement waits for another connection's lock before it fails busy.
    void setBusyTimeout(int ms);
    // Makes the statement running on another thread fail (SQLITE_INTERRUPT). Thread-safe.
    void interrupt() const;
    // SQLite's primary result code of the last failed call (SQLITE_BUSY and friends), and
    // whether that failure was a lock held by another connection.
    int lastErrorCode() const;
    bool lastErrorWasBusy() const;
    // SQLite's message about the last call on the connection.
    std::string errorMessage() const;

    // Throws StoreError describing SQLite's result code `rc` for this project.
    [[noreturn]] void fail(int rc) const;

  private:
    friend class Statement;
    friend class Transaction;
    friend class Savepoint;
    friend class ForeignKeysUnchecked;
    friend class Backup;
    sqlite3* db_ = nullptr;
    std::string path_;
};

// A transaction that must be committed to count: BEGIN on construction, ROLLBACK on
// destruction unless commit() succeeded (an exception leaving the scope undoes everything).
// Every BEGIN and COMMIT is checked.
class Transaction {
  public:
    enum class Kind {
        Write,  // BEGIN IMMEDIATE: the write lock is taken up front, so a busy database fails
                // here, before any work
        Read,   // BEGIN: one consistent snapshot for several reads
    };
    explicit Transaction(Database& db, Kind kind = Kind::Write);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    void commit();

  private:
    Database& db_;
    bool open_ = true;
};

// A named savepoint (nestable, and usable on a read-only connection for its temp schema):
// SAVEPOINT on construction, ROLLBACK TO and RELEASE on destruction unless release() succeeded.
class Savepoint {
  public:
    Savepoint(Database& db, std::string name);
    ~Savepoint();
    Savepoint(const Savepoint&) = delete;
    Savepoint& operator=(const Savepoint&) = delete;

    void release();

  private:
    Database& db_;
    std::string name_;
    bool open_ = true;
};

// SQLite's foreign-key checks off while it lives, for a bulk write of rows whose references the
// writer has made sure of itself (parents written first, in the same transaction): the check is
// an index lookup per row, half the time of writing a large run's cluster members. SQLite
// ignores the setting inside a transaction, so this is made before the transaction begins and
// destroyed after it ended (construction inside one is a logic error). Cascades do not fire
// meanwhile either: a delete under it names every child table itself.
class ForeignKeysUnchecked {
  public:
    explicit ForeignKeysUnchecked(Database& db);
    ~ForeignKeysUnchecked();  // checks on again
    ForeignKeysUnchecked(const ForeignKeysUnchecked&) = delete;
    ForeignKeysUnchecked& operator=(const ForeignKeysUnchecked&) = delete;

  private:
    Database& db_;
};

// SQLite's online backup of one database into another (the main schemas), a step at a time.
class Backup {
  public:
    enum class Step { More, Busy, Done, Failed };
    Backup(Database& to, const Database& from);
    ~Backup();
    Backup(const Backup&) = delete;
    Backup& operator=(const Backup&) = delete;

    // Copies up to `pages` pages. Busy: another connection holds a lock, try again later;
    // Failed: see error().
    Step step(int pages);
    int pageCount() const;
    int remaining() const;
    // Ends the backup (also done by the destructor); the text of the failing step, or "".
    void finish();
    std::string error() const;

  private:
    sqlite3_backup* backup_ = nullptr;
    int rc_ = 0;
};

}  // namespace neardup::sql
