// expandInputs: turning the paths a user gives into the ordered list of input files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <unordered_set>

#include "byte_stream.h"
#include "jsonl_reader.h"

namespace neardup {

namespace fs = std::filesystem;

const char* toString(InputFile::Compression c) {
    switch (c) {
        case InputFile::Compression::None:
            return "none";
        case InputFile::Compression::Gzip:
            return "gzip";
        case InputFile::Compression::Zstd:
            return "zstd";
    }
    return "none";
}

namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Names taken from directories: *.jsonl, *.ndjson, *.json, optionally + .gz/.zst (any case).
bool isInputName(std::string name) {
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string_view n = name;
    if (endsWith(n, ".gz")) {
        n.remove_suffix(3);
    } else if (endsWith(n, ".zst")) {
        n.remove_suffix(4);
    }
    return endsWith(n, ".jsonl") || endsWith(n, ".ndjson") || endsWith(n, ".json");
}

InputFile describe(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throwCannotRead(path, errno);
    struct stat sb {};
    if (::fstat(fd, &sb) != 0) {
        const int err = errno;
        ::close(fd);
        throwCannotRead(path, err);
    }
    unsigned char magic[4] = {};
    std::size_t have = 0;
    while (have < sizeof magic) {
        const ssize_t got = ::read(fd, magic + have, sizeof magic - have);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            throwCannotRead(path, err);
        }
        have += static_cast<std::size_t>(got);
    }
    ::close(fd);

    InputFile f;
    f.path = path;
    f.size = static_cast<uint64_t>(sb.st_size);
    f.mtimeNs = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
    if (have >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        f.compression = InputFile::Compression::Gzip;
    } else if (have >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f &&
               magic[3] == 0xfd) {
        f.compression = InputFile::Compression::Zstd;
    }
    return f;
}

// Input file names under `dir`, sorted. Directory symlinks are followed except into a directory
// that is already on the path from `dir` (a cycle). Deduplication of what is reached twice happens
// later, on the sorted list, so the path kept does not depend on readdir order.
std::vector<std::string> walkDirectory(const std::string& dir) {
    std::vector<std::string> found;
    std::error_code ec;
    // Canonical paths of the directories from `dir` down to the current entry's parent.
    std::vector<std::string> chain{fs::canonical(dir, ec).string()};
    const auto options = fs::directory_options::follow_directory_symlink |
                         fs::directory_options::skip_permission_denied;
    fs::recursive_directory_iterator it(dir, options, ec);
    if (ec) throw InputError("cannot read directory '" + dir + "': " + ec.message());
    for (const fs::recursive_directory_iterator end; it != end;) {
        std::error_code entryEc;
        const fs::directory_entry& entry = *it;
        if (entry.is_directory(entryEc)) {
            chain.resize(static_cast<std::size_t>(it.depth()) + 1);
            std::string canonical = fs::canonical(entry.path(), entryEc).string();
            if (entryEc || std::find(chain.begin(), chain.end(), canonical) != chain.end()) {
                it.disable_recursion_pending();
            } else {
                chain.push_back(std::move(canonical));
            }
        } else if (entry.is_regular_file(entryEc) &&
                   isInputName(entry.path().filename().string())) {
            found.push_back(entry.path().string());
        }
        it.increment(ec);
        if (ec) throw InputError("cannot read directory '" + dir + "': " + ec.message());
    }
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace

std::vector<InputFile> expandInputs(const std::vector<std::string>& inputs) {
    std::vector<InputFile> files;
    std::unordered_set<std::string> seen;  // canonical paths
    auto add = [&](const std::string& path) {
        std::error_code ec;
        const fs::path canonical = fs::canonical(path, ec);
        if (!seen.insert(ec ? path : canonical.string()).second) return;
        files.push_back(describe(path));
    };

    for (const std::string& input : inputs) {
        std::error_code ec;
        const fs::file_status st = fs::status(input, ec);
        if (st.type() == fs::file_type::not_found) throwCannotRead(input, ENOENT);
        if (ec) throw InputError("cannot read '" + input + "': " + ec.message());
        if (fs::is_directory(st)) {
            const std::vector<std::string> found = walkDirectory(input);
            if (found.empty()) {
                throw InputError(
                    "no input files (*.jsonl, *.ndjson, *.json, optionally .gz or "
                    ".zst) in directory '" +
                    input + "'");
            }
            for (const std::string& path : found)
                add(path);
        } else if (fs::is_regular_file(st)) {
            add(input);
        } else {
            throw InputError("cannot read '" + input + "': not a regular file or directory");
        }
    }
    return files;
}

}  // namespace neardup
