#include "output_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "jsonl_reader.h"

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

std::vector<NamedOutput> namedOutputs(const ExportOptions& outputs) {
    return {{"--out-jsonl", outputs.jsonl},
            {"--out-kept", outputs.kept},
            {"--out-removed", outputs.removed},
            {"--out-clusters", outputs.clusters},
            {"--summary-json", outputs.summaryJson}};
}

std::string outputProblem(const std::vector<NamedOutput>& all,
                          const std::vector<InputFile>& files) {
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string& path = all[i].path;
        if (path.empty()) continue;
        for (std::size_t j = 0; j < i; ++j) {
            const std::string& other = all[j].path;
            if (!other.empty() && samePath(other, path)) {
                return all[j].option + " and " + all[i].option + " name the same file '" + path +
                       "'";
            }
        }
        if (std::string problem = problemWith(path); !problem.empty()) return problem;
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) continue;
        for (const InputFile& f : files) {
            if (samePath(path, f.path) || std::filesystem::equivalent(path, f.path, ec))
                return "refusing to overwrite input file '" + f.path + "' with " + all[i].option;
        }
    }
    return {};
}

std::string outputProblem(const ExportOptions& outputs) {
    return outputProblem(namedOutputs(outputs));
}

std::string outputProblem(const ExportOptions& outputs, const std::vector<std::string>& inputs) {
    std::vector<InputFile> files;
    try {
        files = expandInputs(inputs, OnError::Skip);
    } catch (const std::exception&) {
        // A missing input is the run's to report, with its own message.
    }
    return outputProblem(namedOutputs(outputs), files);
}

}  // namespace neardup
