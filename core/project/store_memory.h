// The memory SQLite keeps for this process's project connections (their page caches above all),
// bounded while a run holds a memory budget: SQLite's soft heap limit, set for the scope's life
// and put back after. sqlite_handle.cpp implements it (the only file that calls SQLite). The
// limit is process-wide: it bounds every connection of the process, the workbench's own too.
#pragma once

#include <cstdint>

namespace neardup {

class StoreMemoryLimit {
  public:
    explicit StoreMemoryLimit(uint64_t bytes);
    ~StoreMemoryLimit();
    StoreMemoryLimit(const StoreMemoryLimit&) = delete;
    StoreMemoryLimit& operator=(const StoreMemoryLimit&) = delete;

  private:
    int64_t previous_;
};

}  // namespace neardup
