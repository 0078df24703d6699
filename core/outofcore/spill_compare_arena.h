// The task arena a SpilledComparison runs its parallel work in (spill_compare.h keeps TBB out of
// its header: Qt's `emit` clashes with it in tests), shared by the files that define its members.
#pragma once

#include <tbb/task_arena.h>

#include "spill_compare.h"

namespace neardup {

struct SpilledComparison::Arena {
    explicit Arena(int threads) : arena(threads) {}
    tbb::task_arena arena;
};

}  // namespace neardup
