#include "project_schema.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "project_schema_ddl.h"
#include "project_store.h"

namespace neardup::schema {

namespace {

std::string quoted(const std::string& text) {
    return "'" + text + "'";
}

// ---- The shape of a schema ---------------------------------------------------------------
// What a project's schema is made of, as SQLite reports it (PRAGMA table_xinfo, index_xinfo,
// foreign_key_list): compared structurally, because the CREATE text SQLite keeps for a table
// that ALTER TABLE changed differs from the text of a fresh one.

struct Column {
    std::string type;  // as declared
    bool notNull = false;
    int pk = 0;      // position in the primary key, 0 when not part of it
    int hidden = 0;  // 2, 3: a generated column
    std::string defaultValue;

    bool operator==(const Column& o) const {
        return notNull == o.notNull && pk == o.pk && hidden == o.hidden &&
               defaultValue == o.defaultValue && type.size() == o.type.size() &&
               std::equal(type.begin(), type.end(), o.type.begin(), [](char a, char b) {
                   return std::toupper(static_cast<unsigned char>(a)) ==
                          std::toupper(static_cast<unsigned char>(b));
               });
    }

    std::string describe() const {
        std::string d = type.empty() ? "untyped" : type;
        if (notNull) d += " NOT NULL";
        if (pk != 0) d += " PRIMARY KEY";
        if (!defaultValue.empty()) d += " DEFAULT " + defaultValue;
        if (hidden >= 2) d += " GENERATED";
        return d;
    }
};

struct Object {
    std::string type;   // table, index, view, trigger
    std::string table;  // the table an index or trigger belongs to
    std::vector<std::pair<std::string, Column>> columns;  // tables, in declared order
    std::string layout;  // tables: WITHOUT ROWID, STRICT, foreign keys; indexes: uniqueness, keys
    std::string text;    // views: their SELECT, whitespace collapsed
};

using Shape = std::map<std::string, Object>;

// SQLite's own bookkeeping, which a user's ANALYZE creates too: not part of the comparison.
// Anything else named sqlite_* is compared like every other object (SQLite refuses to create
// such names, so a project holding one was written past SQLite).
bool internalObject(const std::string& type, const std::string& name) {
    return type == "table" &&
           (name == "sqlite_sequence" || name == "sqlite_stat1" || name == "sqlite_stat2" ||
            name == "sqlite_stat3" || name == "sqlite_stat4");
}

std::string collapsedWhitespace(std::string_view text) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            space = !out.empty();
            continue;
        }
        if (space) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

Shape readShape(const sql::Database& db) {
    Shape shape;
    {
        auto st = db.prepare("SELECT type, name, tbl_name, sql FROM main.sqlite_schema");
        while (st.step()) {
            Object o;
            o.type = st.string(0);
            o.table = st.string(2);
            if (o.type == "view") o.text = collapsedWhitespace(st.text(3));
            shape.emplace(st.string(1), std::move(o));
        }
    }
    auto columns = db.prepare(
        "SELECT name, type, \"notnull\", pk, hidden, coalesce(dflt_value, '') "
        "FROM pragma_table_xinfo(?1, 'main') ORDER BY cid");
    auto table = db.prepare("SELECT wr, strict FROM pragma_table_list(?1) WHERE schema = 'main'");
    auto keys = db.prepare(
        "SELECT \"table\", \"from\", coalesce(\"to\", ''), on_update, on_delete "
        "FROM pragma_foreign_key_list(?1, 'main') ORDER BY id, seq");
    auto index =
        db.prepare("SELECT \"unique\", partial FROM pragma_index_list(?1, 'main') WHERE name = ?2");
    auto indexKeys = db.prepare(
        "SELECT coalesce(name, '(expression)'), \"desc\", coalesce(coll, '') "
        "FROM pragma_index_xinfo(?1, 'main') WHERE key = 1 ORDER BY seqno");
    for (auto& [name, o] : shape) {
        if (internalObject(o.type, name)) continue;
        if (o.type == "table") {
            columns.bindCopy(1, name);
            while (columns.step())
                o.columns.emplace_back(columns.string(0),
                                       Column{columns.string(1), columns.int64(2) != 0,
                                              columns.i32(3), columns.i32(4), columns.string(5)});
            columns.reset();
            table.bindCopy(1, name);
            if (table.step())
                o.layout = std::string(table.int64(0) != 0 ? "WITHOUT ROWID" : "rowid") +
                           (table.int64(1) != 0 ? " STRICT" : "");
            table.reset();
            keys.bindCopy(1, name);
            while (keys.step())
                o.layout += "; " + keys.string(1) + " -> " + keys.string(0) + "(" + keys.string(2) +
                            ") " + keys.string(3) + "/" + keys.string(4);
            keys.reset();
        } else if (o.type == "index") {
            index.bindCopy(1, o.table).bindCopy(2, name);
            if (index.step())
                o.layout = std::string(index.int64(0) != 0 ? "UNIQUE " : "") +
                           (index.int64(1) != 0 ? "partial " : "") + "ON " + o.table;
            index.reset();
            indexKeys.bindCopy(1, name);
            while (indexKeys.step())
                o.layout += " " + indexKeys.string(0) + (indexKeys.int64(1) != 0 ? " DESC" : "") +
                            " " + indexKeys.string(2);
            indexKeys.reset();
        }
    }
    return shape;
}

// The shape of the schema create() lays down, read from a private database made by it.
const Shape& expectedShape() {
    static const Shape shape = [] {
        sql::Database mem(":memory:", sql::OpenMode::Create);
        create(mem);
        return readShape(mem);
    }();
    return shape;
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
    throw StoreError("project " + quoted(path) + " is refused: " + why);
}

std::string article(const std::string& type) {
    return type == "index" ? "an " : "a ";
}

// What no version of NearDup writes: a trigger (the most hostile, named first whatever else
// differs), or an object of a name or kind the current schema does not have.
void refuseForeignObjects(const Shape& actual, const std::string& path) {
    const Shape& expected = expectedShape();
    for (const auto& [name, o] : actual)
        if (o.type == "trigger")
            refuse(path, "it holds a trigger " + quoted(name) + " that NearDup never writes");
    for (const auto& [name, o] : actual) {
        if (internalObject(o.type, name)) continue;
        const auto it = expected.find(name);
        if (it == expected.end() || it->second.type != o.type)
            refuse(path, "it holds " + article(o.type) + o.type + " " + quoted(name) +
                             " that NearDup never writes");
    }
}

// The project's schema, object by object and column by column, against the one this version
// of NearDup writes.
void checkShape(const sql::Database& db, const std::string& path) {
    const Shape& expected = expectedShape();
    const Shape actual = readShape(db);
    refuseForeignObjects(actual, path);
    for (const auto& [name, o] : actual) {
        if (internalObject(o.type, name)) continue;
        const Object& want = expected.at(name);
        if (o.type == "view" && o.text != want.text)
            refuse(path, "its view " + quoted(name) + " differs from the one NearDup writes");
        if (o.type == "index" && (o.layout != want.layout || o.table != want.table))
            refuse(path, "its index " + quoted(name) + " differs from the one NearDup writes");
        if (o.type != "table") continue;
        // (Structured bindings are copied into names a lambda may capture: clang 14 cannot
        // capture the bindings themselves.)
        for (const auto& [columnName, c] : o.columns) {
            const std::string& column = columnName;
            const auto w = std::find_if(want.columns.begin(), want.columns.end(),
                                        [&](const auto& e) { return e.first == column; });
            if (w == want.columns.end())
                refuse(path, "its table " + quoted(name) + " holds a column " + quoted(column) +
                                 " that NearDup never writes");
            if (!(w->second == c))
                refuse(path, "column " + quoted(column) + " of table " + quoted(name) + " is " +
                                 c.describe() + ", where NearDup writes " + w->second.describe());
        }
        for (const auto& [columnName, c] : want.columns) {
            const std::string& column = columnName;
            const bool present = std::any_of(o.columns.begin(), o.columns.end(),
                                             [&](const auto& e) { return e.first == column; });
            if (!present)
                refuse(path, "its table " + quoted(name) + " lacks the column " + quoted(column));
        }
        if (o.layout != want.layout)
            refuse(path, "its table " + quoted(name) +
                             " differs from the one NearDup writes (its storage or foreign keys)");
    }
    for (const auto& [name, o] : expected)
        if (!actual.contains(name))
            refuse(path, "it lacks the " + o.type + " " + quoted(name) + " NearDup writes");
}

// What the file's first bytes say it is, for a file SQLite could not read: a damaged NearDup
// project (SQLite's header, with NearDup's application id or too short to hold one), a database
// of another application, or no database at all.
enum class Header { NearDup, OtherDatabase, NotDatabase };

Header readHeader(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<unsigned char, 72> h{};
    in.read(reinterpret_cast<char*>(h.data()), h.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    static constexpr char kMagic[] = "SQLite format 3";  // and its terminating NUL
    if (got < sizeof kMagic || std::memcmp(h.data(), kMagic, sizeof kMagic) != 0)
        return Header::NotDatabase;
    if (got < h.size()) return Header::NearDup;  // cut off before the application id
    const uint32_t id = (uint32_t{h[68]} << 24) | (uint32_t{h[69]} << 16) | (uint32_t{h[70]} << 8) |
                        uint32_t{h[71]};
    return id == static_cast<uint32_t>(kApplicationId) ? Header::NearDup : Header::OtherDatabase;
}

// The version checks of an existing project; a read-only connection can neither create nor
// upgrade, so it only reads them.
void checkReadOnly(sql::Database& db, const std::string& path) {
    const int64_t appId = db.queryInt("PRAGMA application_id");
    const int64_t version = db.queryInt("PRAGMA user_version");
    if (appId != kApplicationId) throw StoreError(quoted(path) + " is not a NearDup project");
    // What no version writes is named first, before any talk of versions or upgrades.
    refuseForeignObjects(readShape(db), path);
    if (version > kVersion)
        throw StoreError("project " + quoted(path) + " has schema version " +
                         std::to_string(version) + ", newer than this build (" +
                         std::to_string(kVersion) + "); update NearDup to open it");
    if (version < kVersion)
        throw StoreError("project " + quoted(path) + " has schema version " +
                         std::to_string(version) +
                         "; open it for writing once to upgrade it before reading it");
}

}  // namespace

void refuseLinkedCompanions(const std::string& path) {
    if (path.empty() || path == ":memory:") return;
    for (const char* suffix : {"-journal", "-wal", "-shm"}) {
        const std::string companion = path + suffix;
        struct stat st {};
        if (::lstat(companion.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
            throw StoreError(quoted(companion) +
                             " is a symbolic link; NearDup never follows one beside a project, "
                             "where the project's journal files are kept: remove it");
    }
}

void open(sql::Database& db, const std::string& path, Access access) {
    // Before any statement reads the file: its schema and rows are data from elsewhere.
    db.distrustFile();
    // Before anything reads the file: another process writing the project holds its lock for
    // a moment, and a read meeting it must wait, not fail (and never pass for "not a project").
    db.exec("PRAGMA busy_timeout = " + std::to_string(sql::kBusyTimeoutMs));
    // The first read of the header and the schema tells a database from any other file
    // (SQLITE_NOTADB) and an intact one from a damaged one (SQLITE_CORRUPT).
    try {
        db.queryInt("PRAGMA application_id");
    } catch (const StoreError& e) {
        if (db.lastErrorWasBusy())
            throw StoreError("project " + quoted(path) +
                             " is busy: another process has been "
                             "writing it for more than " +
                             std::to_string(sql::kBusyTimeoutMs / 1000) +
                             " s; try again when it is done");
        switch (readHeader(path)) {
            case Header::NearDup:
                throw StoreError(quoted(path) +
                                 " is a damaged NearDup project: " + db.errorMessage());
            case Header::OtherDatabase:
                throw StoreError(quoted(path) + " is not a NearDup project (" + db.errorMessage() +
                                 ")");
            case Header::NotDatabase:
                throw StoreError(quoted(path) + " is not a NearDup project");
        }
    }

    db.exec("PRAGMA foreign_keys = ON");
    if (access == Access::Read) {
        db.exec("PRAGMA cache_size = -65536");
        db.exec("PRAGMA temp_store = MEMORY");
        checkReadOnly(db, path);
        checkShape(db, path);
        return;
    }
    // One self-contained file that users copy around: no -wal/-shm companions.
    db.exec("PRAGMA journal_mode = DELETE");
    db.exec("PRAGMA synchronous = FULL");
    // Bulk inserts of millions of documents touch index pages all over the file.
    db.exec("PRAGMA cache_size = -65536");
    db.exec("PRAGMA temp_store = MEMORY");

    // Checked inside a write transaction so that two processes creating one project at the
    // same time cannot both lay down the schema.
    sql::Transaction tx(db);
    const int64_t appId = db.queryInt("PRAGMA application_id");
    const int64_t version = db.queryInt("PRAGMA user_version");
    if (appId == 0 && version == 0 && db.queryInt("SELECT count(*) FROM sqlite_schema") == 0) {
        create(db);
    } else if (appId != kApplicationId) {
        throw StoreError(quoted(path) +
                         " is not a NearDup project (a SQLite database of another application)");
    } else if (version > kVersion) {
        throw StoreError("project " + quoted(path) + " has schema version " +
                         std::to_string(version) + ", newer than this build (" +
                         std::to_string(kVersion) + "); update NearDup to open it");
    } else {
        if (version < kVersion) {
            // Before the upgrade, which writes and would fire a trigger if triggers could fire;
            // by name only, since older versions' tables have fewer columns.
            refuseForeignObjects(readShape(db), path);
            try {
                migrate(db, static_cast<int>(version));
            } catch (const StoreError& e) {
                throw StoreError("project " + quoted(path) + " cannot be upgraded from schema " +
                                 "version " + std::to_string(version) + " to " +
                                 std::to_string(kVersion) + ": " +
                                 (db.lastErrorCode() != 0 ? db.errorMessage() : e.what()));
            }
            db.exec("PRAGMA user_version = " + std::to_string(kVersion));
        }
        // Inside the transaction: an upgrade that leaves a schema other than NearDup's is
        // rolled back with it.
        checkShape(db, path);
    }
    tx.commit();
}

}  // namespace neardup::schema
