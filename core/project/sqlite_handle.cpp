// The sqlite3 C API behind sqlite_handle.h: the only file of the project that calls it.
#include "sqlite_handle.h"

#include <sqlite3.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "project_store.h"
#include "store_memory.h"

namespace neardup::sql {

namespace {

// SQLite's words for the failure: sqlite3_errmsg describes the last call on the connection; the
// code's own text when there is no connection (failed open) or the code came from elsewhere.
std::string reasonFor(sqlite3* db, int rc) {
    return db != nullptr && sqlite3_errcode(db) == rc ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
}

// The operating system's reason behind an I/O failure, when SQLite kept it.
std::string systemReason(sqlite3* db, int rc) {
    const int err = db != nullptr ? sqlite3_system_errno(db) : 0;
    return err != 0 ? std::strerror(err) : reasonFor(db, rc);
}

// One line that names the project and says what went wrong in words a user can act on; SQL
// text means nothing to a user and stays out of it.
StoreError failure(sqlite3* db, const std::string& path, int rc) {
    const std::string quoted = "'" + path + "'";
    std::string msg;
    switch (rc & 0xff) {
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            msg = "project " + quoted +
                  " is busy: another process is writing it; try again when it is done";
            break;
        case SQLITE_FULL:
            msg = "cannot write project " + quoted + ": no space left on device";
            break;
        case SQLITE_IOERR:
            msg = (rc == SQLITE_IOERR_READ || rc == SQLITE_IOERR_SHORT_READ
                       ? "cannot read project "
                       : "cannot write project ") +
                  quoted + ": " + systemReason(db, rc);
            break;
        case SQLITE_CORRUPT:
            msg = quoted + " is a damaged NearDup project: " + reasonFor(db, rc);
            break;
        case SQLITE_NOTADB:
            msg = quoted + " is not a NearDup project (" + reasonFor(db, rc) + ")";
            break;
        case SQLITE_READONLY:
            msg = "cannot write project " + quoted + ": " + reasonFor(db, rc);
            break;
        case SQLITE_CANTOPEN:
            msg = "cannot open project " + quoted + ": " + systemReason(db, rc);
            break;
        default:
            msg = "project " + quoted + ": " + reasonFor(db, rc);
            break;
    }
    return StoreError(msg);
}

// Test hook: NEARDUP_TEST_FAIL_SQL=TEXT makes every statement whose SQL begins with TEXT fail
// when run, as on a full disk, so that a test can fail one chosen write of a command it runs
// (a project's own triggers, the other way to do that, are refused as hostile).
bool plantedFailure(std::string_view sql) {
    const char* text = std::getenv("NEARDUP_TEST_FAIL_SQL");
    return text != nullptr && *text != 0 && sql.starts_with(text);
}

}  // namespace

// ---- Database ---------------------------------------------------------------------------

Database::Database(const std::string& path, OpenMode mode) : path_(path) {
    // Serialized mode, although a store is meant for one thread at a time: NOMUTEX saves only
    // ~4% of a bulk insert's CPU time, and a connection shared by mistake then fails with an
    // error instead of corrupting memory.
    int flags = SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_FULLMUTEX;
    flags |= mode == OpenMode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (mode == OpenMode::Create) flags |= SQLITE_OPEN_CREATE;
    const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        StoreError error = failure(db_, path, rc);
        sqlite3_close(db_);  // a handle is returned even on failure
        db_ = nullptr;
        throw error;
    }
    sqlite3_extended_result_codes(db_, 1);
}

void Database::distrustFile() {
    struct Setting {
        int op;
        int value;
        const char* name;
    };
    static constexpr Setting kSettings[] = {
        {SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive mode"},
        {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "triggers off"},
        {SQLITE_DBCONFIG_ENABLE_VIEW, 0, "views off"},
        {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "trusted_schema off"},
    };
    for (const Setting& s : kSettings) {
        int now = -1;
        const int rc = sqlite3_db_config(db_, s.op, s.value, &now);
        // Checked as read back: a setting this SQLite ignores must not pass for one in force.
        if (rc != SQLITE_OK || now != s.value)
            throw StoreError("project '" + path_ + "': SQLite " + sqlite3_libversion() +
                             " cannot switch " + s.name);
    }
    exec("PRAGMA trusted_schema = OFF");
}

Database::~Database() {
    // Statements are owned by the store and destroyed before the connection, so close_v2's
    // deferred close never has to wait for stragglers.
    sqlite3_close_v2(db_);
}

void Database::fail(int rc) const {
    throw failure(db_, path_, rc);
}

void Database::exec(std::string_view sql) {
    const std::string text(sql);
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
    sqlite3_free(err);  // the connection's sqlite3_errmsg says the same
    if (rc != SQLITE_OK) fail(rc);
}

int64_t Database::queryInt(std::string_view sql) const {
    Statement st(*this, sql);
    return st.step() ? st.int64(0) : 0;
}

bool Database::hasTable(std::string_view name) const {
    Statement st(*this, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
    st.bind(1, name);
    return st.step();
}

int64_t Database::lastInsertRowId() const {
    return sqlite3_last_insert_rowid(db_);
}

int64_t Database::changes() const {
    return sqlite3_changes64(db_);
}

bool Database::readOnly() const {
    return sqlite3_db_readonly(db_, "main") == 1;
}

bool Database::inTransaction() const {
    return sqlite3_get_autocommit(db_) == 0;
}

void Database::setBusyTimeout(int ms) {
    sqlite3_busy_timeout(db_, ms);
}

void Database::interrupt() const {
    sqlite3_interrupt(db_);
}

int Database::lastErrorCode() const {
    return sqlite3_errcode(db_) & 0xff;
}

bool Database::lastErrorWasBusy() const {
    const int rc = lastErrorCode();
    return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

std::string Database::errorMessage() const {
    return db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
}

// ---- Statement --------------------------------------------------------------------------

Statement::Statement(const Database& db, std::string_view sql) : db_(&db) {
    if (sql.size() > static_cast<std::size_t>(INT_MAX)) db.fail(SQLITE_TOOBIG);
    const int rc = sqlite3_prepare_v3(db.db_, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
    if (rc != SQLITE_OK) db.fail(rc);
    planted_ = plantedFailure(sql);
}

Statement::~Statement() {
    sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      stmt_(std::exchange(other.stmt_, nullptr)),
      names_(std::move(other.names_)),
      planted_(other.planted_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(stmt_);
        db_ = std::exchange(other.db_, nullptr);
        stmt_ = std::exchange(other.stmt_, nullptr);
        names_ = std::move(other.names_);
        planted_ = other.planted_;
    }
    return *this;
}

const char* Statement::sql() const {
    return stmt_ != nullptr ? sqlite3_sql(stmt_) : "";
}

void Statement::fail(int rc) const {
    // Leave the statement reusable after the caller catches the error.
    sqlite3_reset(stmt_);
    db_->fail(rc);
}

Statement& Statement::bind(int index, int64_t value) {
    const int rc = sqlite3_bind_int64(stmt_, index, value);
    if (rc != SQLITE_OK) fail(rc);
    return *this;
}

Statement& Statement::bind(int index, double value) {
    const int rc = sqlite3_bind_double(stmt_, index, value);
    if (rc != SQLITE_OK) fail(rc);
    return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
    // A non-null pointer even for empty text, so that "" is stored as '' and not as NULL.
    static const char kEmpty[] = "";
    const char* data = text.empty() ? kEmpty : text.data();
    const int rc = sqlite3_bind_text64(stmt_, index, data, text.size(), SQLITE_STATIC, SQLITE_UTF8);
    if (rc != SQLITE_OK) fail(rc);
    return *this;
}

Statement& Statement::bindCopy(int index, std::string_view text) {
    static const char kEmpty[] = "";
    const char* data = text.empty() ? kEmpty : text.data();
    const int rc =
        sqlite3_bind_text64(stmt_, index, data, text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    if (rc != SQLITE_OK) fail(rc);
    return *this;
}

Statement& Statement::bindBlob(int index, const void* data, std::size_t bytes) {
    const int rc = sqlite3_bind_blob64(stmt_, index, data, bytes, SQLITE_STATIC);
    if (rc != SQLITE_OK) fail(rc);
    return *this;
}

Statement& Statement::bindNull(int index) {
    const int rc = sqlite3_bind_null(stmt_, index);
    if (rc != SQLITE_OK) fail(rc);
    return *this;
}

bool Statement::step() {
    if (planted_) fail(SQLITE_FULL);
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(rc);
}

void Statement::run() {
    while (step()) {
    }
    reset();
}

void Statement::reset() {
    sqlite3_reset(stmt_);
}

bool Statement::isNull(int column) const {
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::int64(int column) const {
    return sqlite3_column_int64(stmt_, column);
}

double Statement::real(int column) const {
    return sqlite3_column_double(stmt_, column);
}

std::string_view Statement::text(int column) const {
    const auto* p = sqlite3_column_text(stmt_, column);
    const auto n = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
    if (p == nullptr) return {};
    return std::string_view(reinterpret_cast<const char*>(p), n);
}

const void* Statement::blob(int column) const {
    return sqlite3_column_blob(stmt_, column);
}

std::size_t Statement::bytes(int column) const {
    return static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
}

int Statement::column(std::string_view name) const {
    if (names_.empty()) {
        const int n = sqlite3_column_count(stmt_);
        names_.reserve(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            const char* c = sqlite3_column_name(stmt_, i);
            names_.emplace_back(c != nullptr ? c : "");
        }
    }
    for (std::size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == name) return static_cast<int>(i);
    return -1;
}

// ---- Row --------------------------------------------------------------------------------

int Row::at(std::string_view name) const {
    const int c = st_.column(name);
    if (c < 0) throw StoreError("project store: a query has no column " + std::string(name));
    return c;
}

bool Row::isNull(std::string_view name) const {
    const int c = st_.column(name);
    return c < 0 || st_.isNull(c);
}

int64_t Row::int64(std::string_view name) const {
    return st_.int64(at(name));
}

double Row::real(std::string_view name) const {
    return st_.real(at(name));
}

std::string_view Row::text(std::string_view name) const {
    return st_.text(at(name));
}

// ---- Transaction ------------------------------------------------------------------------

Transaction::Transaction(Database& db, Kind kind) : db_(db) {
    db_.exec(kind == Kind::Write ? "BEGIN IMMEDIATE" : "BEGIN");
}

Transaction::~Transaction() {
    if (open_) {
        // Errors are ignored: SQLite may already have rolled back on its own (e.g. after
        // SQLITE_FULL), and a destructor must not throw.
        sqlite3_exec(db_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
}

void Transaction::commit() {
    db_.exec("COMMIT");
    open_ = false;
}

// ---- ForeignKeysUnchecked ------------------------------------------------------------

ForeignKeysUnchecked::ForeignKeysUnchecked(Database& db) : db_(db) {
    if (sqlite3_get_autocommit(db_.db_) == 0)
        throw std::logic_error("foreign-key checks cannot be switched inside a transaction");
    db_.exec("PRAGMA foreign_keys = OFF");
}

ForeignKeysUnchecked::~ForeignKeysUnchecked() {
    // Outside any transaction again (the caller's ended first), so this takes effect; a
    // destructor must not throw.
    sqlite3_exec(db_.db_, "PRAGMA foreign_keys = ON", nullptr, nullptr, nullptr);
}

// ---- Savepoint --------------------------------------------------------------------------

Savepoint::Savepoint(Database& db, std::string name) : db_(db), name_(std::move(name)) {
    db_.exec("SAVEPOINT " + name_);
}

Savepoint::~Savepoint() {
    if (open_) {
        const std::string undo = "ROLLBACK TO " + name_ + "; RELEASE " + name_;
        sqlite3_exec(db_.db_, undo.c_str(), nullptr, nullptr, nullptr);  // as ~Transaction
    }
}

void Savepoint::release() {
    db_.exec("RELEASE " + name_);
    open_ = false;
}

// ---- Backup -----------------------------------------------------------------------------

Backup::Backup(Database& to, const Database& from) {
    backup_ = sqlite3_backup_init(to.db_, "main", from.db_, "main");
    if (backup_ == nullptr)
        throw StoreError("project store: cannot start copying the database: " + to.errorMessage());
}

Backup::~Backup() {
    finish();
}

Backup::Step Backup::step(int pages) {
    rc_ = sqlite3_backup_step(backup_, pages);
    switch (rc_ & 0xff) {
        case SQLITE_OK:
            return Step::More;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return Step::Busy;
        case SQLITE_DONE:
            return Step::Done;
        default:
            return Step::Failed;
    }
}

int Backup::pageCount() const {
    return sqlite3_backup_pagecount(backup_);
}

int Backup::remaining() const {
    return sqlite3_backup_remaining(backup_);
}

void Backup::finish() {
    if (backup_ != nullptr) sqlite3_backup_finish(backup_);
    backup_ = nullptr;
}

std::string Backup::error() const {
    return rc_ == SQLITE_OK || rc_ == SQLITE_DONE ? std::string() : sqlite3_errstr(rc_);
}

}  // namespace neardup::sql

namespace neardup {

// Above the limit, SQLite recycles cache pages (spilling dirty ones) rather than allocating.
StoreMemoryLimit::StoreMemoryLimit(uint64_t bytes)
    : previous_(sqlite3_soft_heap_limit64(static_cast<sqlite3_int64>(bytes))) {}

StoreMemoryLimit::~StoreMemoryLimit() {
    sqlite3_soft_heap_limit64(previous_);
}

}  // namespace neardup
