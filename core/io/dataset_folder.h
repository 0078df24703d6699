// Hugging Face `datasets` folders (what Dataset.save_to_disk and DatasetDict.save_to_disk
// write): a folder holding state.json and dataset_info.json is one dataset, its Arrow shards in
// the order state.json lists them; a folder holding dataset_dict.json is its splits, in the
// order it lists them. Their JSON metadata is recognized, never read as data.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace neardup {

// Whether `dir` is the save_to_disk folder of one dataset: it holds state.json and
// dataset_info.json.
bool isDatasetFolder(const std::filesystem::path& dir);

// Whether `dir` is the folder of a DatasetDict: it holds dataset_dict.json.
bool isDatasetDictFolder(const std::filesystem::path& dir);

// The data files of the `datasets` folder `dir`, in reading order (absolute or relative as
// `dir` is), or nothing when `dir` is not such a folder. Throws InputError naming the file: a
// metadata file that cannot be read or parsed, a shard it lists that is missing or a path
// outside the folder, a file of the folder that looks like an input but is not listed, a split
// folder that is not a dataset.
std::optional<std::vector<std::string>> datasetFolderFiles(const std::string& dir);

}  // namespace neardup
