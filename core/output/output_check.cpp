#include "output_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dataset_metadata.h"
#include "dataset_shards.h"
#include "jsonl_reader.h"
#include "no_follow.h"
#include "parquet_file.h"

namespace neardup {

namespace fs = std::filesystem;

namespace {

// The problem of writing into the directory `dir`, after `prefix`, or "" when there is none: an
// output is written to a temporary file in that directory, then renamed.
std::string directoryProblem(const std::string& prefix, const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
        return prefix + "directory '" + dir + "': " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return prefix + "'" + dir + "' is not a directory";
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return prefix + "directory '" + dir + "': " + std::strerror(errno);
    return {};
}

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
    return directoryProblem(prefix, target.has_parent_path() ? target.parent_path().string() : ".");
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
    return directoryProblem(prefix, above.string());
}

// A subfolder of the output folder on the way to the shard `name` that is a symbolic link: the
// shards are written through their folders' descriptors and refuse one (openSubfoldersNoFollow),
// so the run is refused before it starts rather than failing at its export.
std::string linkedSubfolder(const std::string& outDir, const std::string& name) {
    fs::path at(outDir);
    for (const fs::path& part : fs::path(name).parent_path()) {
        at /= part;
        struct stat st {};
        if (::lstat(at.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
            return linkedSubfolderRefusal(at.string());
    }
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

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() > suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The message for an output on a NearDup project other than the command's own (a project given
// as --reference, any project the user keeps), one of its companions or anything in its sidecar
// folder, or "". Such a project is known by its header, so no command has to be told of it.
std::string otherProjectProblem(const NamedOutput& out, const FileKey& key) {
    if (out.path == "-") return {};
    if (isProjectFile(key.canonical))
        return "refusing to overwrite the NearDup project '" + key.canonical + "' with " +
               out.option + " '" + out.path + "'";
    for (const std::string suffix : {"-journal", "-wal", "-shm"}) {
        if (!endsWith(key.canonical, suffix)) continue;
        const std::string project = key.canonical.substr(0, key.canonical.size() - suffix.size());
        if (isProjectFile(project))
            return "refusing to overwrite the " + suffix.substr(1) +
                   " file of the NearDup project '" + project + "' with " + out.option + " '" +
                   out.path + "'";
    }
    for (fs::path at(key.canonical); at.has_relative_path(); at = at.parent_path()) {
        const std::string folder = at.string();
        if (!endsWith(folder, ".d")) continue;
        const std::string project = folder.substr(0, folder.size() - 2);
        if (isProjectFile(project))
            return "refusing to write " + out.option + " '" + out.path +
                   "' into the sidecar folder '" + folder + "' of the NearDup project '" + project +
                   "'";
    }
    return {};
}

bool isFile(const fs::path& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The files no output may replace (the inputs of the run or export, and of every dataset of the
// project) and the Hugging Face dataset folders they belong to, in which nothing may be written:
// a file added or replaced there (state.json, a shard) changes or breaks the dataset.
class Guarded {
  public:
    Guarded(const std::vector<InputFile>& files, const ProtectedFiles& project)
        : project_(project.project) {
        for (const InputFile& f : files)
            add(f.path, 0);
        for (const ProtectedFiles::Input& in : project.inputs)
            add(in.path, in.dataset);
        for (const ProtectedFiles::Folder& folder : project.folders)
            given_.push_back({canonicalPath(folder.path), folder.givenAs});
    }

    // The message for an output in a folder given as an input or reference, or "".
    std::string givenFolderProblem(const NamedOutput& out, const FileKey& key) const {
        for (const ProtectedFiles::Folder& folder : given_) {
            if (!within(key.canonical, folder.path)) continue;
            return "refusing to write " + out.option + " '" + out.path +
                   "' into the input folder '" + folder.path + "' (given to this command as " +
                   folder.givenAs +
                   "): the next run of that folder would read it back as documents";
        }
        return {};
    }

    // The message for an output on one of the files, or "".
    std::string fileProblem(const NamedOutput& out, const FileKey& key) const {
        const Entry* hit = nullptr;
        if (const auto it = byPath_.find(key.canonical); it != byPath_.end())
            hit = &entries_[it->second];
        else if (key.exists) {
            if (const auto at = byInode_.find({key.device, key.inode}); at != byInode_.end())
                hit = &entries_[at->second];
        }
        if (hit == nullptr) return {};
        if (hit->dataset == 0)
            return "refusing to overwrite input file '" + hit->path + "' with " + out.option;
        return "refusing to overwrite '" + hit->path + "', an input of dataset " +
               std::to_string(hit->dataset) + " of the project '" + project_ + "', with " +
               out.option;
    }

    // The message for an output in one of the dataset folders, or "".
    std::string folderProblem(const NamedOutput& out, const FileKey& key) const {
        for (const Folder& folder : folders_) {
            if (!within(key.canonical, folder.canonical)) continue;
            const Entry& reader = entries_[folder.entry];
            return "refusing to write " + out.option + " '" + out.path +
                   "' into the dataset folder '" + folder.canonical + "', which " +
                   (reader.dataset == 0 ? std::string("this run reads")
                                        : "dataset " + std::to_string(reader.dataset) +
                                              " of the project '" + project_ + "' reads");
        }
        return {};
    }

  private:
    struct Entry {
        std::string path;
        int64_t dataset = 0;
    };
    struct Folder {
        std::string canonical;
        std::size_t entry = 0;
    };

    void add(const std::string& path, int64_t dataset) {
        const FileKey key = keyOf(path);
        const std::size_t index = entries_.size();
        entries_.push_back({path, dataset});
        byPath_.emplace(key.canonical, index);
        if (key.exists) byInode_.emplace(std::pair{key.device, key.inode}, index);
        // A dataset folder holds its metadata beside its shards; a DatasetDict's splits are
        // folders of its root, which holds dataset_dict.json.
        const fs::path dir = fs::path(key.canonical).parent_path();
        if (!seenDirs_.insert(dir.string()).second) return;
        if (isFile(dir / "state.json") || isFile(dir / "dataset_info.json")) {
            const fs::path root = dir.parent_path();
            folders_.push_back(
                {isFile(root / "dataset_dict.json") ? root.string() : dir.string(), index});
        }
    }

    std::string project_;
    std::vector<Entry> entries_;
    std::unordered_map<std::string, std::size_t> byPath_;
    std::map<std::pair<dev_t, ino_t>, std::size_t> byInode_;
    std::set<std::string> seenDirs_;
    std::vector<Folder> folders_;
    std::vector<ProtectedFiles::Folder> given_;  // canonical paths
};

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
                          const ProtectedFiles& project) {
    const Guarded guarded(files, project);
    std::vector<FileKey> keys(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string& path = all[i].path;
        if (path.empty()) continue;
        keys[i] = keyOf(path);
        if (all[i].folder) {
            if (std::string problem = projectProblem(all[i], keys[i], project.project);
                !problem.empty())
                return problem;
            if (std::string problem = otherProjectProblem(all[i], keys[i]); !problem.empty())
                return problem;
            if (std::string problem = guarded.folderProblem(all[i], keys[i]); !problem.empty())
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
        if (std::string problem = projectProblem(all[i], keys[i], project.project);
            !problem.empty())
            return problem;
        if (std::string problem = otherProjectProblem(all[i], keys[i]); !problem.empty())
            return problem;
        if (std::string problem = guarded.fileProblem(all[i], keys[i]); !problem.empty())
            return problem;
        if (std::string problem = guarded.folderProblem(all[i], keys[i]); !problem.empty())
            return problem;
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
    // Last, so that an output replacing an input file is refused as such.
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i].path.empty()) continue;
        if (std::string problem = guarded.givenFolderProblem(all[i], keys[i]); !problem.empty())
            return problem;
    }
    return {};
}

std::string outputProblem(const ExportOptions& outputs, const std::vector<InputFile>& files,
                          const ProtectedFiles& project) {
    if (outputs.annotate && outputs.jsonl.empty() && outputs.outDir.empty())
        return "--annotate needs --out-dir or --out-jsonl (the outputs it annotates)";
    std::vector<NamedOutput> all = namedOutputs(outputs);
    if (!outputs.outDir.empty()) {
        const std::vector<std::string> names = shardNames(outputs, files);
        if (std::string problem = shardNameProblem(files, names, outputs.outDir); !problem.empty())
            return problem;
        for (const std::string& name : names) {
            if (std::string problem = linkedSubfolder(outputs.outDir, name); !problem.empty())
                return problem;
            all.push_back({"--out-dir", (fs::path(outputs.outDir) / name).string(), false, true});
        }
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

void guardFoldersGiven(ProtectedFiles& guarded, const std::vector<std::string>& given,
                       const std::string& givenAs) {
    for (const std::string& path : given) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) guarded.folders.push_back({path, givenAs});
    }
}

std::string outputProblem(const ExportOptions& outputs, const std::vector<std::string>& inputs,
                          const ProtectedFiles& project) {
    ProtectedFiles guarded = project;
    guardFoldersGiven(guarded, inputs, "an input");
    std::vector<InputFile> files;
    ExportOptions named = outputs;
    try {
        files = expandInputs(inputs, OnError::Skip, named.shardNames);
    } catch (const std::exception&) {
        // A missing input is the run's to report, with its own message.
        named.shardNames.clear();
    }
    return outputProblem(named, files, guarded);
}

}  // namespace neardup
