#include "protected_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "unique_fd.h"

namespace neardup {

bool isProjectFile(const std::string& path) {
    // O_NONBLOCK: a FIFO named as an output must not hang the check.
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) return false;
    std::array<unsigned char, 72> header{};
    if (::pread(fd.get(), header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()))
        return false;
    static constexpr char kMagic[] = "SQLite format 3";  // with its '\0', 16 bytes
    if (std::memcmp(header.data(), kMagic, sizeof kMagic) != 0) return false;
    const uint32_t id = uint32_t{header[68]} << 24 | uint32_t{header[69]} << 16 |
                        uint32_t{header[70]} << 8 | uint32_t{header[71]};
    return id == static_cast<uint32_t>(kProjectApplicationId);
}

}  // namespace neardup
