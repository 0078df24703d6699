// The project store's private state, shared by the files that implement ProjectStore
// (project_store.cpp: opening, datasets, signatures and decisions; project_store_runs.cpp:
// pairs and runs). Each table is reached through its row mapper (store_rows.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "project_schema.h"
#include "project_store.h"
#include "sidecar.h"
#include "sqlite_handle.h"

namespace neardup {

struct ProjectStore::Impl {
    std::string path;
    sql::Database db;

    std::function<void()> interruptCheck;
    int threads = 0;  // setThreads
    // A run's details are written in one transaction without SQLite's foreign-key checks (the
    // store writes every parent before its children): declared in this order, the transaction
    // ends before the checks are on again.
    struct RunDetailsWrite {
        explicit RunDetailsWrite(sql::Database& db) : unchecked(db), tx(db) {}
        sql::ForeignKeysUnchecked unchecked;
        sql::Transaction tx;
    };
    // The write writeRunDetails left open for finishRun, and its run.
    std::unique_ptr<RunDetailsWrite> runDetails;
    int64_t runDetailsOf = 0;

    // The companions are checked before SQLite opens the file, which may already look for a
    // hot journal through a planted link.
    Impl(const std::string& p, Mode mode)
        : path(projectFile(p)),
          db((schema::refuseLinkedCompanions(path), path),
             mode == Mode::ReadOnly ? sql::OpenMode::ReadOnly : sql::OpenMode::Create) {
        schema::open(db, path,
                     mode == Mode::ReadOnly ? schema::Access::Read : schema::Access::Write);
    }

    std::string sidecarDir() const { return path + ".d"; }
};

}  // namespace neardup
