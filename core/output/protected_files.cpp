#include "protected_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "unique_fd.h"

namespace neardup {

bool isProjectFile(const std::string& path) {
    // Outputs may name devices and pipes (/dev/stdout, a FIFO), which opening may disturb (a tape
    // rewinds, a FIFO's writer sees a reader come and go); a project is a regular file.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
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
