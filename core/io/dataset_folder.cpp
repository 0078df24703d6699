// Hugging Face `datasets` folders as inputs (dataset_folder.h): state.json's `_data_files` and
// dataset_dict.json's `splits`, read with simdjson.
#include "dataset_folder.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "arrow_ipc_file.h"
#include "jsonl_reader.h"

namespace neardup {

namespace fs = std::filesystem;

namespace {

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

[[noreturn]] void badMetadata(const fs::path& file, const std::string& why) {
    throw InputError("cannot read the datasets folder metadata '" + file.string() + "': " + why);
}

// The list under `key` of the metadata file `file`, parsed by `parser` (which holds it).
simdjson::dom::array listIn(simdjson::dom::parser& parser, const fs::path& file,
                            const std::string& key) {
    simdjson::dom::element root;
    if (const auto error = parser.load(file.string()).get(root); error != simdjson::SUCCESS)
        badMetadata(file, simdjson::error_message(error));
    simdjson::dom::array list;
    if (root[key].get_array().get(list) != simdjson::SUCCESS)
        badMetadata(file, "no '" + key + "' list");
    return list;
}

// A name state.json or dataset_dict.json gives: a plain name inside the folder, never a path
// that leaves it.
std::string plainName(std::string_view name, const fs::path& file) {
    if (name.empty() || name == "." || name == ".." ||
        name.find_first_of("/\\") != std::string_view::npos || name.find('\0') != name.npos)
        badMetadata(file, "'" + std::string(name) + "' is not a plain file name");
    return std::string(name);
}

// The shards of a save_to_disk folder, in state.json's order.
std::vector<std::string> datasetShards(const fs::path& dir) {
    const fs::path state = dir / "state.json";
    simdjson::dom::parser parser;
    const simdjson::dom::array files = listIn(parser, state, "_data_files");
    std::vector<std::string> shards;
    std::vector<std::string> listed;
    for (const simdjson::dom::element entry : files) {
        std::string_view name;
        if (entry["filename"].get_string().get(name) != simdjson::SUCCESS)
            badMetadata(state, "an entry of '_data_files' has no 'filename'");
        const std::string plain = plainName(name, state);
        const fs::path shard = dir / plain;
        if (!isFile(shard))
            throw InputError("cannot read '" + shard.string() + "': listed in '" + state.string() +
                             "' but missing");
        shards.push_back(shard.string());
        listed.push_back(plain);
    }
    // Anything else in the folder that would be read as data is a doubt about what the dataset
    // is: refused, naming it, rather than read or left out in silence.
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name == "state.json" || name == "dataset_info.json") continue;
        const bool dataLike = columnar::isColumnarName(name) || name.ends_with(".jsonl") ||
                              name.ends_with(".json") || name.ends_with(".ndjson");
        if (dataLike && std::find(listed.begin(), listed.end(), name) == listed.end())
            throw InputError("cannot read '" + entry.path().string() +
                             "': it is in the datasets folder '" + dir.string() +
                             "' but its state.json does not list it");
    }
    if (ec) throw InputError("cannot read directory '" + dir.string() + "': " + ec.message());
    return shards;
}

}  // namespace

bool isDatasetFolder(const fs::path& dir) {
    return isFile(dir / "state.json") && isFile(dir / "dataset_info.json");
}

bool isDatasetDictFolder(const fs::path& dir) {
    return isFile(dir / "dataset_dict.json");
}

std::optional<std::vector<std::string>> datasetFolderFiles(const std::string& dir) {
    const fs::path folder(dir);
    if (isDatasetFolder(folder)) return datasetShards(folder);
    if (!isDatasetDictFolder(folder)) return std::nullopt;
    const fs::path dict = folder / "dataset_dict.json";
    // A DatasetDict: every split, in the order dataset_dict.json lists them (as `datasets`
    // loads them), each a save_to_disk folder of its own.
    simdjson::dom::parser parser;
    const simdjson::dom::array splits = listIn(parser, dict, "splits");
    std::vector<std::string> files;
    for (const simdjson::dom::element split : splits) {
        std::string_view name;
        if (split.get_string().get(name) != simdjson::SUCCESS)
            badMetadata(dict, "a split name is not a string");
        const fs::path sub = folder / plainName(name, dict);
        if (!isDatasetFolder(sub))
            throw InputError("cannot read split '" + std::string(name) + "' of '" + dict.string() +
                             "': '" + sub.string() + "' has no state.json and dataset_info.json");
        for (std::string& shard : datasetShards(sub))
            files.push_back(std::move(shard));
    }
    return files;
}

}  // namespace neardup
