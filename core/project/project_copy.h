// Save As: a consistent copy of a project file and of its signature cache (the sidecar
// directory `<project>.d/`), made while other connections may be reading or writing it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace neardup {

struct ProjectCopyResult {
    uint64_t databaseBytes = 0;  // size of the copied database
    uint64_t sidecarFiles = 0;   // signature files copied
    uint64_t sidecarBytes = 0;
};

// Copies the project at `source` to `target`. The database goes through SQLite's online backup
// API (a snapshot consistent with one transaction, whatever another connection commits
// meanwhile); the signature files the database refers to and the resume records of
// interrupted runs are copied from `source.d/` into `target.d/` (locks, spill directories and
// stray files are left out). Everything is written under
// temporary names next to the target, synced, then renamed into place, so a failure leaves the
// target as it was. An existing target and its sidecar directory are replaced. `progress`
// (optional) gets (bytes done, bytes in all). Throws StoreError naming the file on failure:
// a missing source, a source that is not a project, target == source, a disk error.
ProjectCopyResult copyProject(const std::string& source, const std::string& target,
                              const std::function<void(uint64_t, uint64_t)>& progress = {});

}  // namespace neardup
