// Re-pointing a project at inputs that moved (`neardup relocate`): every stored input path
// under an old folder (or equal to an old file) is replaced by the same relative path under a
// new one, once the file there is checked to be the very file that was read (input_pin.h).
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

}  // namespace neardup
