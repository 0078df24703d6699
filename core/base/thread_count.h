// How many threads "0 = all" means: one definition for every backend, tool and front end.
#pragma once

#include <algorithm>
#include <thread>

namespace neardup {

// The machine's hardware threads, at least 1 (std::thread::hardware_concurrency() may say 0).
inline int hardwareThreads() {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// A requested thread count: itself when positive, else (0 or less: "all") hardwareThreads().
inline int resolveThreads(int threads) {
    return threads > 0 ? threads : hardwareThreads();
}

}  // namespace neardup
