// Re-pointing a project at inputs that moved (`neardup relocate`): every stored input path
// under an old folder (or equal to an old file) is replaced by the same relative path under a
// new one, once the file there is checked to be the very file that was read (input_pin.h).
// Paths are compared and joined as written once made lexically normal, so that "/", "a/" and
// "a//b" name what "a" and "a/b" name; a stored path never gets "//".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace neardup {

class ProjectStore;

struct RelocateResult {
    std::size_t files = 0;     // input rows re-pointed (over every dataset)
    std::size_t datasets = 0;  // datasets holding one of them
    // Input rows under `from` that are already where `to` would put them (`from` and `to` name
    // the same place): left as they are, so that the caller can say nothing changed.
    std::size_t alreadyThere = 0;
    // Why nothing was changed: one line per input that is missing or not the pinned file,
    // naming its dataset and the runs that read it.
    std::vector<std::string> problems;
};

// Re-points the inputs under `from` (a folder or a file; it need not exist any more) to `to`,
// of every dataset, or of dataset `onlyDataset` alone when it is not 0 (a project holding two
// datasets of one path whose file changed between them: the one the file now matches).
// Each new file must have the pinned size and, where the project stores one, the pinned
// fingerprint (read once); a file pinned before schema version 3 must also keep its
// modification time. All or nothing: with any problem, nothing is changed. The new files'
// identity (times, device, inode) is stored, so later runs reuse the dataset. Throws
// StoreError when the project cannot be written.
RelocateResult relocateInputs(ProjectStore& store, const std::string& from, const std::string& to,
                              int64_t onlyDataset = 0);

// The input files of dataset `datasetId` checked as every use of stored offsets checks them
// (pinProblem: the content decides when a file was touched or replaced by an identical copy);
// those that pass under another identity get their identity now stored, so that a run on them
// finds the dataset by identity again (ProjectStore::findDataset) and reuses what it stored.
// Returns the first problem, naming the file, with nothing changed; "" otherwise. Throws
// StoreError when the project cannot be written.
std::string repinInputs(ProjectStore& store, int64_t datasetId);

}  // namespace neardup
