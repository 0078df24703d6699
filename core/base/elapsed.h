// Wall-clock intervals of phases and measurements: the monotonic clock and seconds since a point
// on it, as a double (what every timing in a run's result and the benchmark holds).
#pragma once

#include <chrono>

namespace neardup {

using SteadyClock = std::chrono::steady_clock;

inline double secondsSince(SteadyClock::time_point start) {
    return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

}  // namespace neardup
