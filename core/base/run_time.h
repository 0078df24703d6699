// Timestamps of runs as the project stores them.
#pragma once

#include <string>

namespace neardup {

// The current time in UTC, ISO 8601 with milliseconds: "2026-11-24T03:49:21.123Z".
std::string utcNow();

}  // namespace neardup
