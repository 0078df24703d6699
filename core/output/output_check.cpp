#include "output_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "dataset_metadata.h"
#include "dataset_shards.h"
#include "jsonl_reader.h"
#include "parquet_file.h"

namespace neardup {

namespace fs = std::filesystem;

namespace {

std::string problemWith(const std::string& path) {
    if (path == "-") return {};  // standard output
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
    const fs::path target(path);
    const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
    if (::stat(dir.c_str(), &st) != 0)
        return prefix + "directory '" + dir + "': " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return prefix + "'" + dir + "' is not a directory";
    // The output is written to a temporary file in that directory, then renamed.
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return prefix + "directory '" + dir + "': " + std::strerror(errno);
    return {};
}

// The problem of a file or folder to be created with its missing parent folders: the nearest
// folder above it that exists must be a writable directory.
std::string problemBelow(const std::string& option, const std::string& path, bool folder) {
    const std::string prefix = "cannot write " + option + " '" + path + "': ";
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (folder) {
            if (!S_ISDIR(st.st_mode)) return prefix + "it is not a directory";
            if (::access(path.c_str(), W_OK | X_OK) != 0) return prefix + std::strerror(errno);
            return {};
        }
        if (S_ISDIR(st.st_mode)) return prefix + "it is a directory";
    }
    fs::path above = fs::path(path).lexically_normal();
    do {
        above = above.has_parent_path() && above.parent_path() != above ? above.parent_path()
                                                                        : fs::path(".");
    } while (::stat(above.c_str(), &st) != 0 && above != fs::path("."));
    const std::string dir = above.string();
    if (::stat(dir.c_str(), &st) != 0)
        return prefix + "directory '" + dir + "': " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return prefix + "'" + dir + "' is not a directory";
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return prefix + "directory '" + dir + "': " + std::strerror(errno);
    return {};
}

// What identifies a file: its canonical path, and (device, inode) when it exists.
struct FileKey {
    std::string canonical;
    bool exists = false;
    dev_t device = 0;
    ino_t inode = 0;
};

FileKey keyOf(const std::string& given) {
    const std::string path = given == "-" ? std::string("/dev/stdout") : given;
    FileKey k;
    k.canonical = given == "-" ? path : canonicalPath(path);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        k.exists = true;
        k.device = st.st_dev;
        k.inode = st.st_ino;
    }
    return k;
}

bool sameFile(const FileKey& a, const FileKey& b) {
    return a.canonical == b.canonical ||
           (a.exists && b.exists && a.device == b.device && a.inode == b.inode);
}

// True when `path` is `dir` or lies below it (canonical paths).
bool within(const std::string& path, const std::string& dir) {
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                           path[dir.size()] == '/');
}

// The message for an output on the project or one of its companions, or "".
std::string projectProblem(const NamedOutput& out, const FileKey& key, const std::string& project) {
    if (project.empty() || project == ":memory:") return {};
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
        if (sameFile(key, keyOf(project + suffix))) {
            return "refusing to overwrite the project" +
                   (*suffix ? std::string("'s ") + (suffix + 1) + " file '" + project + suffix
                            : std::string(" '") + project) +
                   "' with " + out.option;
        }
    }
    const FileKey sidecar = keyOf(project + ".d");
    if (within(key.canonical, sidecar.canonical) || sameFile(key, sidecar))
        return "refusing to write " + out.option + " '" + out.path +
               "' into the project's sidecar folder '" + project + ".d'";
    return {};
}

}  // namespace

std::string canonicalPath(const std::string& path) {
    std::error_code ec;
    fs::path abs = fs::absolute(path, ec);
    if (ec) abs = fs::path(path);
    abs = abs.lexically_normal();
    const fs::path resolved = fs::weakly_canonical(abs, ec);
    std::string s = (ec ? abs : resolved.lexically_normal()).string();
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

std::vector<NamedOutput> namedOutputs(const ExportOptions& outputs) {
    return {{"--out-jsonl", outputs.jsonl},          {"--out-kept", outputs.kept},
            {"--out-removed", outputs.removed},      {"--out-clusters", outputs.clusters},
            {"--summary-json", outputs.summaryJson}, {"--out-dir", outputs.outDir, true}};
}

std::string outputProblem(const std::vector<NamedOutput>& all, const std::vector<InputFile>& files,
                          const std::string& project) {
    std::vector<FileKey> keys(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string& path = all[i].path;
        if (path.empty()) continue;
        keys[i] = keyOf(path);
        if (all[i].folder) {
            if (std::string problem = projectProblem(all[i], keys[i], project); !problem.empty())
                return problem;
            if (std::string problem = problemBelow(all[i].option, path, true); !problem.empty())
                return problem;
            continue;
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (!all[j].path.empty() && !all[j].folder && sameFile(keys[j], keys[i])) {
                return all[j].option + " '" + all[j].path + "' and " + all[i].option + " '" + path +
                       "' name the same file";
            }
        }
        // The project first: it may not exist yet, and may sit in an unwritable directory.
        if (std::string problem = projectProblem(all[i], keys[i], project); !problem.empty())
            return problem;
        for (const InputFile& f : files) {
            if (sameFile(keys[i], keyOf(f.path)))
                return "refusing to overwrite input file '" + f.path + "' with " + all[i].option;
        }
        if (!columnar::parquetCompiledIn() && columnar::isParquetName(path) &&
            (all[i].option == "--out-kept" || all[i].option == "--out-removed" ||
             all[i].option == "--out-clusters"))
            return "cannot write " + all[i].option + " '" + path +
                   "' as Parquet: Parquet support is not compiled in";
        if (std::string problem =
                all[i].inFolder ? problemBelow(all[i].option, path, false) : problemWith(path);
            !problem.empty())
            return problem;
    }
    return {};
}

std::string outputProblem(const ExportOptions& outputs, const std::vector<InputFile>& files,
                          const std::string& project) {
    if (outputs.annotate && outputs.jsonl.empty() && outputs.outDir.empty())
        return "--annotate needs --out-dir or --out-jsonl (the outputs it annotates)";
    std::vector<NamedOutput> all = namedOutputs(outputs);
    if (!outputs.outDir.empty()) {
        const std::vector<std::string> names = shardNames(outputs, files);
        if (std::string problem = shardNameProblem(files, names, outputs.outDir); !problem.empty())
            return problem;
        for (const std::string& name : names)
            all.push_back({"--out-dir", (fs::path(outputs.outDir) / name).string(), false, true});
        try {
            for (const DatasetMetadataFile& meta : datasetMetadataFiles(files, names))
                all.push_back(
                    {"--out-dir", (fs::path(outputs.outDir) / meta.name).string(), false, true});
        } catch (const std::exception& e) {
            return e.what();
        }
    }
    return outputProblem(all, files, project);
}

std::string outputProblem(const ExportOptions& outputs) {
    return outputProblem(namedOutputs(outputs));
}

std::string outputProblem(const ExportOptions& outputs, const std::vector<std::string>& inputs,
                          const std::string& project) {
    std::vector<InputFile> files;
    ExportOptions named = outputs;
    try {
        files = expandInputs(inputs, OnError::Skip, named.shardNames);
    } catch (const std::exception&) {
        // A missing input is the run's to report, with its own message.
        named.shardNames.clear();
    }
    return outputProblem(named, files, project);
}

}  // namespace neardup
