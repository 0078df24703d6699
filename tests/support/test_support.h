// Helpers shared by the tests (tests/support, the neardup_test_support library): files read and
// written whole, a project queried with plain SQLite, and (cli_process.h) the CLI as a child
// process.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <string>

#include "cli_process.h"

namespace testsupport {

inline QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// A file's bytes; empty when it cannot be read.
std::string readFile(const std::string& path);
QByteArray readFile(const QString& path);
// Replaces `path` with exactly `bytes`.
void writeFile(const std::string& path, const std::string& bytes);

// Rows of a query, columns joined by '|'. Opened read-write (never created), so that a hot
// journal left by a killed process is rolled back first, as the next run would. A project that
// cannot be opened or a query that fails gives one row saying so, which no expected result
// matches: a missing file never passes for "no rows".
QStringList sqlRows(const std::string& db, const char* sql);

// Runs SQL statements on a project (for tests that plant faults or old formats); false when
// the project cannot be opened or a statement fails.
bool sqlExec(const std::string& db, const char* sql);

// While it lives, the statements of NearDup's project store whose SQL begins with `sql` fail as
// on a full disk (NEARDUP_TEST_FAIL_SQL, sqlite_handle.cpp): in this process and in the commands
// it starts meanwhile.
class FailingSql {
  public:
    explicit FailingSql(const char* sql) { qputenv("NEARDUP_TEST_FAIL_SQL", sql); }
    ~FailingSql() { qunsetenv("NEARDUP_TEST_FAIL_SQL"); }
    FailingSql(const FailingSql&) = delete;
    FailingSql& operator=(const FailingSql&) = delete;
};

// True when no run was recorded in `project`: the file was never created, or it holds no run.
bool noRunRecorded(const std::string& project);

}  // namespace testsupport
