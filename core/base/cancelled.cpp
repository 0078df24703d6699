#include "cancelled.h"

#include <atomic>
#include <csignal>

namespace neardup {

namespace {
std::atomic<int> gStopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);
}  // namespace

void noteStopSignal(int signo) noexcept {
    gStopSignal.store(signo, std::memory_order_relaxed);
}

int stopSignal() noexcept {
    return gStopSignal.load(std::memory_order_relaxed);
}

std::string stopReason() {
    switch (gStopSignal.load(std::memory_order_relaxed)) {
        case SIGTERM:
            // Slurm sends it at a job's time limit (or earlier with --signal) and on scancel;
            // kill and a system shutdown send it too.
            return "stopped by a signal (SIGTERM: a job's time limit, scancel, kill or a "
                   "shutdown)";
        case SIGHUP:
            return "stopped by a signal (SIGHUP: the terminal closed)";
        default:
            return "cancelled by the user";
    }
}

}  // namespace neardup
