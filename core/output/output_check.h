// Checking output paths before a run or an export starts, so that a long run does not end in
// "cannot write" after hours of work, nothing is written when one output cannot be, and no
// output ever lands on a file the user needs: an input, the project or its companions.
#pragma once

#include <string>
#include <vector>

#include "document_table.h"
#include "exporter.h"

namespace neardup {

struct NamedOutput {
    std::string option;  // "--out-jsonl", for messages
    std::string path;    // empty: not requested
    // --out-dir itself: a folder, created when missing below an existing writable one.
    bool folder = false;
    // A shard under --out-dir, whose folders are created when missing.
    bool inFolder = false;
};

// The outputs of `outputs`, named by their command-line options.
std::vector<NamedOutput> namedOutputs(const ExportOptions& outputs);

// An empty string when every requested output can be created, else a message naming the first
// that cannot: its directory is missing, not a directory or not writable; the path is a
// directory; two outputs name one file; the output is one of the input `files` or of the inputs
// of `project`'s datasets; it lies in a Hugging Face dataset folder that one of those inputs
// belongs to (its state.json, dataset_info.json, dataset_dict.json or shards); or it is the
// project, its "-journal", "-wal" or "-shm" file, or its sidecar folder "<project>.d" or
// anything inside it; or the same of any other NearDup project (a project given as --reference,
// any the user keeps: isProjectFile); or it lies in one of `project.folders` (a folder given as
// an input or reference, which the next run of it would read the output from). Files are compared
// by canonical absolute path (symlinks resolved, "./" and ".." removed) and, for files that exist,
// by (device, inode), so hard links and symlinks count as the same file. The final write can still
// fail (a full disk); that is reported then, and leaves nothing partial behind.
std::string outputProblem(const std::vector<NamedOutput>& outputs,
                          const std::vector<InputFile>& files = {},
                          const ProtectedFiles& project = {});
std::string outputProblem(const ExportOptions& outputs);

// As above for every output of `outputs` made from the input `files`, the shards of --out-dir
// (dataset_shards.h) one by one: two inputs whose shards would have one name, a shard that would
// be an input or another output, are refused; so is --annotate without an output it annotates.
std::string outputProblem(const ExportOptions& outputs, const std::vector<InputFile>& files,
                          const ProtectedFiles& project);

// Adds each of `given` (inputs or references as given) that is a folder to `guarded.folders`,
// named in messages as `givenAs` ("an input", "--reference").
void guardFoldersGiven(ProtectedFiles& guarded, const std::vector<std::string>& given,
                       const std::string& givenAs);

// As above for a run's `inputs` as given (files or directories, expanded as the run expands
// them, the shards named as the run names them, the folders among them guarded; an input that
// cannot be expanded is left to the run to report).
std::string outputProblem(const ExportOptions& outputs, const std::vector<std::string>& inputs,
                          const ProtectedFiles& project = {});

// `path` made absolute and canonical: symlinks resolved as far as the path exists, "." and
// ".." removed. Never throws; a path that cannot be resolved is made absolute lexically.
std::string canonicalPath(const std::string& path);

}  // namespace neardup
