// Thin RAII layer over the sqlite3 C API: a connection, prepared statements and transactions.
// Every failure throws StoreError carrying SQLite's message and the SQL that failed, so callers
// never look at result codes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace neardup::sql {

// How long a connection waits for another process's lock on the project before it reports
// "project busy": long enough for any single write of another run (saving a large dataset).
inline constexpr int kBusyTimeoutMs = 60000;

class Database;

class Statement {
  public:
    Statement() = default;
    Statement(Database& db, std::string_view sql);
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
    double real(int column) const;
    std::string_view text(int column) const;
    std::string string(int column) const { return std::string(text(column)); }
    const void* blob(int column) const;
    std::size_t bytes(int column) const;

    const char* sql() const;

  private:
    [[noreturn]] void fail(int rc) const;

    Database* db_ = nullptr;
    sqlite3_stmt* stmt_ = nullptr;
};

class Database {
  public:
    // Opens (creating when `create`) the database at `path`; ":memory:" gives a private one.
    Database(const std::string& path, bool create);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    void exec(std::string_view sql);
    Statement prepare(std::string_view sql) { return Statement(*this, sql); }
    // Runs a query expected to yield one integer (e.g. a pragma or a count).
    int64_t queryInt(std::string_view sql);

    int64_t lastInsertRowId() const;
    int64_t changes() const;
    sqlite3* handle() const { return db_; }

    [[noreturn]] void fail(int rc, std::string_view what, std::string_view sql) const;

  private:
    sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE on construction (the write lock is taken up front, so a busy database fails
// here, before any work); ROLLBACK on destruction unless commit() succeeded.
class Transaction {
  public:
    explicit Transaction(Database& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    void commit();

  private:
    Database& db_;
    bool open_ = true;
};

}  // namespace neardup::sql
