// The project file's schema laid down (project_schema_ddl.cpp): what project_schema.cpp's
// open() runs once it has recognized the database, and what it compares a project's shape with.
#pragma once

#include "sqlite_handle.h"

namespace neardup::schema {

// Upgrades a project from schema `from` (< kVersion) to kVersion, inside the caller's
// transaction, one step per version.
void migrate(sql::Database& db, int from);
// Lays the current schema down in an empty database, with its meta rows and pragmas.
void create(sql::Database& db);

}  // namespace neardup::schema
