#include "memory_budget.h"

#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

namespace neardup {

std::optional<uint64_t> parseByteSize(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
    const std::size_t numberBegin = i;
    bool digits = false, dot = false;
    while (i < text.size()) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits = true;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
        ++i;
    }
    if (!digits) return std::nullopt;
    const std::string number(text.substr(numberBegin, i - numberBegin));
    std::string unit;
    for (; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (std::isspace(c)) continue;
        unit += static_cast<char>(std::toupper(c));
    }
    int shift = 0;
    std::string_view rest = unit;
    if (!rest.empty()) {
        switch (rest.front()) {
            case 'K':
                shift = 10;
                break;
            case 'M':
                shift = 20;
                break;
            case 'G':
                shift = 30;
                break;
            case 'T':
                shift = 40;
                break;
            default:
                break;
        }
        if (shift != 0) rest.remove_prefix(1);
    }
    if (!(rest.empty() || rest == "B" || (shift != 0 && rest == "IB"))) return std::nullopt;
    const long double value = std::strtold(number.c_str(), nullptr);
    const long double bytes = std::floor(value * std::ldexp(1.0L, shift));
    if (!(bytes >= 0) || bytes > static_cast<long double>(std::numeric_limits<uint64_t>::max()))
        return std::nullopt;
    return static_cast<uint64_t>(bytes);
}

std::string formatBytes(uint64_t bytes) {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : "%.0f %s", v, kUnits[u]);
    return buf;
}

namespace {

// A "Key:   123 kB" line of a /proc file, in bytes; 0 when absent.
uint64_t procKilobytes(const char* file, const std::string& key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() ||
            line[key.size()] != ':')
            continue;
        return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10) * 1024;
    }
    return 0;
}

}  // namespace

uint64_t defaultMemoryBudget() {
    uint64_t available = procKilobytes("/proc/meminfo", "MemAvailable");
    if (available == 0) {
        const long pages = ::sysconf(_SC_PHYS_PAGES);
        const long pageSize = ::sysconf(_SC_PAGESIZE);
        if (pages > 0 && pageSize > 0)
            available = static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
    }
    return std::max(kMinimumBudget, available / 2);
}

uint64_t resolveMemoryBudget(uint64_t requested) {
    return requested != 0 ? requested : defaultMemoryBudget();
}

uint64_t peakRssBytes() {
    return procKilobytes("/proc/self/status", "VmHWM");
}

uint64_t currentRssBytes() {
    return procKilobytes("/proc/self/status", "VmRSS");
}

void releaseFreedMemory() {
#if defined(__GLIBC__)
    ::malloc_trim(0);
#endif
}

uint64_t documentTableBytes(const DocumentTable& docs) {
    return capacityBytes(docs.file) + capacityBytes(docs.line) + capacityBytes(docs.offset) +
           capacityBytes(docs.length) + capacityBytes(docs.chars) + capacityBytes(docs.keepValue) +
           capacityBytes(docs.idEnd) + static_cast<uint64_t>(docs.idArena.capacity());
}

}  // namespace neardup
