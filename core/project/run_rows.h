// The row mapper of the `runs` table: how a RunResult maps onto a row. One column list is
// shared by the INSERT, the UPDATE and the SELECT, and one decoder (by column name) serves
// every reader: the store, the workbench's queries, bucket members and run diffs.
#pragma once

#include <string>

#include "project_store.h"
#include "run_result.h"
#include "sqlite_handle.h"
#include "store_rows.h"

namespace neardup::store_rows {

// INSERT of every column but `id`; run it with writeRun().
std::string insertRunSql();
// UPDATE of every column but `id`; bind the id to parameter updateRunIdParameter() first.
std::string updateRunSql();
int updateRunIdParameter();
// SELECT of `id` and every column, followed by `where` (a WHERE and/or ORDER BY clause).
std::string selectRunSql(const std::string& where);

// Binds every column from `run` and runs the INSERT or UPDATE `st`. It steps itself because
// the derived strings it binds (without copying) live only in its frame.
void writeRun(sql::Statement& st, const RunResult& run);

// Decodes the current row of a selectRunSql() statement. Throws StoreError on a value this
// version does not know (an unknown hash family, keep policy, ...).
RunRow readRun(const sql::Statement& st);

}  // namespace neardup::store_rows
