// How a RunResult maps onto a row of the `runs` table: one column list shared by the INSERT,
// the UPDATE and the SELECT, so the three cannot drift apart.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "project_store.h"
#include "run_result.h"
#include "sqlite_handle.h"

namespace neardup::store_rows {

// The enum value whose toString() is `name`; StoreError naming `what` otherwise.
template <typename E>
E enumFromName(std::initializer_list<E> values, std::string_view name, const char* what) {
    for (E v : values)
        if (name == toString(v)) return v;
    throw StoreError("project store: unknown " + std::string(what) + " '" + std::string(name) +
                     "'");
}

// Columns of a dataset_files row as readFile() reads them.
inline constexpr const char* kFileColumns =
    "path, size, mtime_ns, compression, ctime_ns, device, inode, content_bytes, fingerprint";
// An input file (with its pin, input_pin.h) from a row of kFileColumns. A relative path (stored
// by versions before 0.2) is taken relative to the folder of `projectPath`.
InputFile readFile(const sql::Statement& st, const std::string& projectPath);

// INSERT of every column but `id`; run it with writeRun().
std::string insertRunSql();
// UPDATE of every column but `id`; bind the id to parameter updateRunIdParameter() first.
std::string updateRunSql();
int updateRunIdParameter();
// SELECT of `id` and every column, followed by `where` (a WHERE and/or ORDER BY clause).
std::string selectRunSql(const std::string& where);
// Column of params_json in selectRunSql()'s rows.
inline constexpr int kParamsJsonColumn = 8;

// Binds every column from `run` and runs the INSERT or UPDATE `st`. It steps itself because
// the derived strings it binds (without copying) live only in its frame.
void writeRun(sql::Statement& st, const RunResult& run);
// Reads a row of selectRunSql() into `run` (parameters, counts, status; not the details).
void readRun(const sql::Statement& st, RunResult& run);

}  // namespace neardup::store_rows
