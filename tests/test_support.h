// Helpers shared by the tests that drive projects and files from the outside (the CLI as a
// child process, killed runs): reading files and querying a project with plain SQLite.
#pragma once

#include <QLatin1Char>
#include <QString>
#include <QStringList>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sqlite3.h>

namespace testsupport {

inline QString q(const std::string& s) {
    return QString::fromStdString(s);
}

inline std::string readFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Rows of a query, columns joined by '|'. Opened read-write (never created), so that a hot
// journal left by a killed process is rolled back first, as the next run would. A project that
// cannot be opened or a query that fails gives one row saying so, which no expected result
// matches: a missing file never passes for "no rows".
inline QStringList sqlRows(const std::string& db, const char* sql) {
    sqlite3* h = nullptr;
    QStringList rows;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(h, sql, -1, &st, nullptr) == SQLITE_OK) {
            int rc = SQLITE_ROW;
            while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                QStringList cols;
                for (int i = 0; i < sqlite3_column_count(st); ++i)
                    cols << QString::fromUtf8(
                        reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
                rows << cols.join(QLatin1Char('|'));
            }
            if (rc != SQLITE_DONE)
                rows << QStringLiteral("SQL error: ") + QString::fromUtf8(sqlite3_errmsg(h));
        } else {
            rows << QStringLiteral("SQL error: ") + QString::fromUtf8(sqlite3_errmsg(h));
        }
        sqlite3_finalize(st);
    } else {
        rows << QStringLiteral("cannot open ") + q(db);
    }
    sqlite3_close(h);
    return rows;
}

// True when no run was recorded in `project`: the file was never created, or it holds no run.
inline bool noRunRecorded(const std::string& project) {
    return !std::filesystem::exists(project) || sqlRows(project, "SELECT id FROM runs").isEmpty();
}

}  // namespace testsupport
