// The project file's schema: creation of a new project, recognition of an existing one, and
// the upgrade path between schema versions. docs/reference/project-format.md documents every table.
#pragma once

#include <cstdint>
#include <string>

#include "sqlite_handle.h"

namespace neardup::schema {

// PRAGMA application_id of every project file: "NDWB" in ASCII. `file` recognizes it too.
inline constexpr int32_t kApplicationId = 0x4E445742;
// PRAGMA user_version: bumped with every incompatible schema change (and a migration step).
inline constexpr int kVersion = 8;

enum class Access {
    Write,  // create the schema in an empty database, upgrade an older one
    Read,   // a read-only connection: the project must be of this version as it is
};

// Throws StoreError when a companion SQLite keeps beside the project at `path` (its -journal,
// -wal or -shm file) is a symbolic link, naming the link: SQLite would write through it (onto
// whatever it points to) or fail with a message that calls a healthy project damaged. Called
// before the project is opened; a link to the project itself is the user's and is followed.
void refuseLinkedCompanions(const std::string& path);

// Configures the connection, then creates the schema in an empty database or checks (and,
// for Write, upgrades) an existing project. Throws StoreError when `path` is not a NearDup
// project, was written by a newer version or, for Read, needs an upgrade.
void open(sql::Database& db, const std::string& path, Access access = Access::Write);

}  // namespace neardup::schema
