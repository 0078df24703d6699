#include "output_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

namespace neardup {

namespace {

std::string problemWith(const std::string& path) {
    const std::string prefix = "cannot write '" + path + "': ";
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) return prefix + "it is a directory";
        // Devices and pipes (/dev/stdout, /dev/full) are written in place, not renamed over.
        if (!S_ISREG(st.st_mode)) {
            return ::access(path.c_str(), W_OK) == 0 ? std::string()
                                                     : prefix + std::strerror(errno);
        }
    }
    const std::filesystem::path target(path);
    const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
    if (::stat(dir.c_str(), &st) != 0)
        return prefix + "directory '" + dir + "': " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return prefix + "'" + dir + "' is not a directory";
    // The output is written to a temporary file in that directory, then renamed.
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return prefix + "directory '" + dir + "': " + std::strerror(errno);
    return {};
}

bool samePath(const std::string& a, const std::string& b) {
    if (a == b) return true;
    std::error_code ea, eb;
    const auto ca = std::filesystem::weakly_canonical(a, ea);
    const auto cb = std::filesystem::weakly_canonical(b, eb);
    return !ea && !eb && ca == cb;
}

}  // namespace

std::string outputProblem(const ExportOptions& outputs) {
    const std::vector<std::pair<const char*, const std::string*>> all = {
        {"--out-jsonl", &outputs.jsonl},
        {"--out-kept", &outputs.kept},
        {"--out-removed", &outputs.removed},
        {"--out-clusters", &outputs.clusters},
        {"--summary-json", &outputs.summaryJson}};
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string& path = *all[i].second;
        if (path.empty()) continue;
        for (std::size_t j = 0; j < i; ++j) {
            const std::string& other = *all[j].second;
            if (!other.empty() && samePath(other, path)) {
                return std::string(all[j].first) + " and " + all[i].first +
                       " name the same file '" + path + "'";
            }
        }
        if (std::string problem = problemWith(path); !problem.empty()) return problem;
    }
    return {};
}

}  // namespace neardup
