// Files and SQL helpers shared by the tests (test_support.h).
#include "test_support.h"

#include <sqlite3.h>

#include <QFile>
#include <QLatin1Char>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace testsupport {

std::string readFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

QStringList sqlRows(const std::string& db, const char* sql) {
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

bool sqlExec(const std::string& db, const char* sql) {
    sqlite3* h = nullptr;
    const bool ok = sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK &&
                    sqlite3_exec(h, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(h);
    return ok;
}

bool noRunRecorded(const std::string& project) {
    return !std::filesystem::exists(project) || sqlRows(project, "SELECT id FROM runs").isEmpty();
}

}  // namespace testsupport
