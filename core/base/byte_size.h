// Byte sizes as people write them: "256M", "1.5G", "4GiB". One parser for every option that
// takes a size (the run's memory budget and line limit, the benchmark's corpus sizes).
//
// CLI11's CLI::AsSizeValue is not used: it takes integers only ("1.5G" is refused), reads a
// bare unit ("M") as one of it, and would add its unit list to the options' --help text.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace neardup {

// "268435456", "256M", "256MiB", "256MB", "1.5G", "512k": binary multiples (K = 1024, M, G, T),
// case-insensitive, an optional trailing "B" or "iB". Nothing for empty, negative, malformed or
// overflowing input; "0" parses as 0 (the caller decides what zero means).
std::optional<uint64_t> parseByteSize(std::string_view text);

}  // namespace neardup
