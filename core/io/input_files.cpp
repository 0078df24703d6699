// expandInputs: turning the paths a user gives into the ordered list of input files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <unordered_set>

#include <fmt/format.h>

#include "arrow_ipc_file.h"
#include "byte_stream.h"
#include "dataset_folder.h"
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

// Names taken from directories: *.jsonl, *.ndjson, *.json, optionally + .gz/.zst, *.parquet and
// *.arrow (any case).
bool isInputName(std::string name) {
    if (columnar::isColumnarName(name)) return true;
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

// PRAGMA application_id of a NearDup project: "NDWB" (core/project/project_schema.h).
constexpr uint32_t kProjectApplicationId = 0x4E445742;

// "a NearDup project" or "a SQLite database" when `header` (the first `have` bytes of a file)
// begins a SQLite database, else nullptr.
const char* sqliteKind(const unsigned char* header, std::size_t have) {
    static constexpr char kMagic[] = "SQLite format 3";  // with its '\0', 16 bytes
    if (have < sizeof kMagic || std::memcmp(header, kMagic, sizeof kMagic) != 0) return nullptr;
    // The application id: big-endian, at offset 68 of the database header.
    constexpr std::size_t kAt = 68;
    if (have >= kAt + 4) {
        const uint32_t id = uint32_t{header[kAt]} << 24 | uint32_t{header[kAt + 1]} << 16 |
                            uint32_t{header[kAt + 2]} << 8 | uint32_t{header[kAt + 3]};
        if (id == kProjectApplicationId) return "a NearDup project";
    }
    return "a SQLite database";
}

InputFile describe(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throwCannotRead(path, errno);
    struct stat sb {};
    if (::fstat(fd, &sb) != 0) {
        const int err = errno;
        ::close(fd);
        throwCannotRead(path, err);
    }
    if (!S_ISREG(sb.st_mode)) {
        ::close(fd);
        throw InputError("cannot read '" + path + "': not a regular file");
    }
    // Enough for every magic below, and for a SQLite header's application id (bytes 68-71).
    unsigned char magic[72] = {};
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
    // A SQLite database (a NearDup project given as an input, say) read as text would become
    // hundreds of rejected lines.
    if (const char* what = sqliteKind(magic, have))
        throw UnsupportedInputError("'" + path + "' is " + what + ", not a dataset");
    // A Parquet file by name is read as Parquet, in a build that can.
    const bool parquetMagic = have >= 4 && std::memcmp(magic, "PAR1", 4) == 0;
    if (columnar::isParquetName(path)) {
        if (!columnar::parquetCompiledIn())
            throw UnsupportedInputError(columnar::notCompiledInMessage(path));
        if (!parquetMagic)
            throw InputError("cannot read '" + path +
                             "': named .parquet but it is not a Parquet file (no PAR1 magic)");
    }
    // An Arrow IPC file (or stream) by name is read as Arrow, in a build that can; its magic
    // ("ARROW1" for the file format, the 0xFFFFFFFF continuation marker that begins a stream)
    // only keeps a text file named .arrow from being taken for one.
    const bool arrowFileMagic = have >= 6 && std::memcmp(magic, "ARROW1", 6) == 0;
    const bool arrowStreamMagic = have >= 4 && std::memcmp(magic, "\xff\xff\xff\xff", 4) == 0;
    if (columnar::isArrowName(path)) {
        if (!columnar::parquetCompiledIn())
            throw UnsupportedInputError(columnar::arrowNotCompiledInMessage(path));
        if (!arrowFileMagic && !arrowStreamMagic)
            throw InputError("cannot read '" + path +
                             "': named .arrow but it is not an Arrow IPC file or stream");
    }
    // Columnar files are binary: read as text they would become thousands of rejected lines.
    const char* format = nullptr;
    if (parquetMagic && !columnar::isParquetName(path))
        format = "a Parquet file (name it *.parquet to read it as Parquet)";
    if (!columnar::isArrowName(path)) {
        if (arrowFileMagic) format = "an Arrow IPC file (name it *.arrow to read it as Arrow)";
        if (arrowStreamMagic) format = "an Arrow IPC stream (name it *.arrow to read it as Arrow)";
    }
    if (format)
        throw UnsupportedInputError("cannot read '" + path + "': it is " + format +
                                    ", not JSON Lines (convert it to JSONL first, e.g. with "
                                    "pyarrow or duckdb)");

    InputFile f;
    f.path = path;
    f.size = static_cast<uint64_t>(sb.st_size);
    f.mtimeNs = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
    f.ctimeNs = static_cast<int64_t>(sb.st_ctim.tv_sec) * 1000000000 + sb.st_ctim.tv_nsec;
    f.device = static_cast<uint64_t>(sb.st_dev);
    f.inode = static_cast<uint64_t>(sb.st_ino);
    if (have >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        f.compression = InputFile::Compression::Gzip;
    } else if (have >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f &&
               magic[3] == 0xfd) {
        f.compression = InputFile::Compression::Zstd;
    }
    return f;
}

// An input that exists but cannot be read, listed so that reading reports it. mtimeNs = -1
// never equals a real file's, so a dataset holding it is not reused once it becomes readable
// (chmod does not change the modification time).
InputFile describeUnreadable(const std::string& path) {
    InputFile f;
    f.path = path;
    struct stat sb {};
    if (::stat(path.c_str(), &sb) == 0 && S_ISREG(sb.st_mode))
        f.size = static_cast<uint64_t>(sb.st_size);
    f.mtimeNs = -1;
    return f;
}

// How a directory walk treats an entry that cannot be read: Legacy passes over it (the
// one-argument expandInputs), Skip lists it, Fail throws.
enum class Unreadable { Legacy, Skip, Fail };

struct Found {
    std::string path;
    bool unreadable = false;
    // The order of reading: the path, or for a shard of a `datasets` folder the folder's path
    // and the shard's place in its state.json (dataset_folder.h).
    std::string key;
    bool operator<(const Found& o) const { return key < o.key; }
};

// The shards of the `datasets` folder `dir`, in their order, placed where the folder sorts;
// false when `dir` is not such a folder.
bool addDatasetFolder(const std::string& dir, std::vector<Found>& found) {
    const std::optional<std::vector<std::string>> shards = datasetFolderFiles(dir);
    if (!shards) return false;
    for (std::size_t i = 0; i < shards->size(); ++i)
        found.push_back({(*shards)[i], false, fmt::format("{}/\x01{:010}", dir, i)});
    return true;
}

void unreadableEntry(Unreadable mode, const std::string& path, const std::string& why,
                     std::vector<Found>& found) {
    if (mode == Unreadable::Fail) throw InputError("cannot read '" + path + "': " + why);
    if (mode == Unreadable::Skip) found.push_back({path, true, path});
}

// Input file names under `dir`, sorted. Directory symlinks are followed except into a directory
// that is already on the path from `dir` (a cycle). Deduplication of what is reached twice happens
// later, on the sorted list, so the path kept does not depend on readdir order.
std::vector<Found> walkDirectory(const std::string& dir, Unreadable mode) {
    std::vector<Found> found;
    if (addDatasetFolder(dir, found)) return found;
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
        const std::string path = entry.path().string();
        if (entry.is_directory(entryEc)) {
            chain.resize(static_cast<std::size_t>(it.depth()) + 1);
            std::string canonical = fs::canonical(entry.path(), entryEc).string();
            if (entryEc || std::find(chain.begin(), chain.end(), canonical) != chain.end()) {
                it.disable_recursion_pending();
            } else if (mode != Unreadable::Legacy && ::access(path.c_str(), R_OK | X_OK) != 0) {
                // skip_permission_denied would pass over it in silence.
                unreadableEntry(mode, path, std::strerror(errno), found);
                it.disable_recursion_pending();
            } else if (addDatasetFolder(path, found)) {
                it.disable_recursion_pending();
            } else {
                chain.push_back(std::move(canonical));
            }
        } else if (isInputName(entry.path().filename().string())) {
            if (entry.is_regular_file(entryEc)) {
                found.push_back({path, false, path});
            } else {
                // A dangling symlink, a symlink loop, a FIFO or a socket named like an input.
                unreadableEntry(mode, path, entryEc ? entryEc.message() : "not a regular file",
                                found);
            }
        }
        it.increment(ec);
        if (ec) throw InputError("cannot read directory '" + dir + "': " + ec.message());
    }
    std::sort(found.begin(), found.end());
    return found;
}

std::vector<InputFile> expand(const std::vector<std::string>& inputs, Unreadable mode,
                              std::vector<std::string>* names = nullptr) {
    std::vector<InputFile> files;
    std::unordered_set<std::string> seen;  // canonical paths
    // Files are listed by their canonical absolute path (symlinks resolved), so that a project
    // finds them again from any working directory; one that cannot be resolved (a symlink
    // loop, a dangling symlink) by its absolute path.
    auto add = [&](const std::string& given, bool unreadable, const std::string& name) {
        std::error_code ec;
        const fs::path canonical = fs::canonical(given, ec);
        std::string path;
        if (ec) {
            const fs::path absolute = fs::absolute(given, ec);
            path = (ec ? fs::path(given) : absolute).lexically_normal().string();
        } else {
            path = canonical.string();
        }
        if (!seen.insert(path).second) return;
        if (names) names->push_back(name);
        if (unreadable) {
            files.push_back(describeUnreadable(path));
            return;
        }
        try {
            files.push_back(describe(path));
        } catch (const UnsupportedInputError&) {
            throw;
        } catch (const InputError&) {
            if (mode != Unreadable::Skip) throw;
            files.push_back(describeUnreadable(path));
        }
    };

    for (const std::string& input : inputs) {
        std::error_code ec;
        const fs::file_status st = fs::status(input, ec);
        if (st.type() == fs::file_type::not_found) throwCannotRead(input, ENOENT);
        if (ec) {
            if (mode != Unreadable::Skip)
                throw InputError("cannot read '" + input + "': " + ec.message());
            add(input, true, fs::path(input).filename().string());  // e.g. a symlink loop
        } else if (fs::is_directory(st)) {
            const std::vector<Found> found = walkDirectory(input, mode);
            if (found.empty()) {
                throw InputError(
                    "no input files (*.jsonl, *.ndjson, *.json, optionally .gz or "
                    ".zst, *.parquet or *.arrow) in directory '" +
                    input + "'");
            }
            for (const Found& f : found)
                add(f.path, f.unreadable,
                    fs::path(f.path).lexically_relative(fs::path(input)).string());
        } else if (fs::is_regular_file(st)) {
            add(input, false, fs::path(input).filename().string());
        } else {
            throw InputError("cannot read '" + input + "': not a regular file or directory");
        }
    }
    return files;
}

}  // namespace

std::vector<InputFile> expandInputs(const std::vector<std::string>& inputs) {
    return expand(inputs, Unreadable::Legacy);
}

std::vector<InputFile> expandInputs(const std::vector<std::string>& inputs, OnError onError) {
    return expand(inputs, onError == OnError::Skip ? Unreadable::Skip : Unreadable::Fail);
}

std::vector<InputFile> expandInputs(const std::vector<std::string>& inputs, OnError onError,
                                    std::vector<std::string>& names) {
    names.clear();
    return expand(inputs, onError == OnError::Skip ? Unreadable::Skip : Unreadable::Fail, &names);
}

std::string sharedInputProblem(const std::vector<InputFile>& inputs,
                               const std::vector<InputFile>& references) {
    for (const InputFile& in : inputs)
        for (const InputFile& ref : references)
            if (in.path == ref.path ||
                (in.device != 0 && in.device == ref.device && in.inode == ref.inode))
                return "'" + in.path +
                       "' is both an input and part of the reference (--reference); name it in "
                       "one of them";
    return {};
}

}  // namespace neardup
