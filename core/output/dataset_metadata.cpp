// The `datasets` folders' metadata that --out-dir mirrors (dataset_metadata.h): which files,
// found through core/io's reading of those folders, and dataset_info.json rewritten with
// simdjson (its values kept as they were, minified).
#include "dataset_metadata.h"

#include <simdjson.h>

#include <filesystem>
#include <set>
#include <stdexcept>

#include "cluster_annotation.h"
#include "dataset_folder.h"
#include "json_text.h"
#include "jsonl_reader.h"

namespace neardup {

namespace fs = std::filesystem;

namespace {

std::string identity(const fs::path& p) {
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(p, ec);
    return (ec ? p.lexically_normal() : c).string();
}

// Whether every data file of the `datasets` folder `dir` is one of `inputs` (identities).
bool allAreInputs(const fs::path& dir, const std::set<std::string>& inputs) {
    const std::optional<std::vector<std::string>> listed = datasetFolderFiles(dir.string());
    if (!listed || listed->empty()) return false;
    for (const std::string& f : *listed)
        if (!inputs.contains(identity(f))) return false;
    return true;
}

std::string readWhole(const std::string& path) {
    simdjson::padded_string bytes;
    if (const auto error = simdjson::padded_string::load(path).get(bytes);
        error != simdjson::SUCCESS)
        throw InputError("cannot read '" + path + "': " + simdjson::error_message(error));
    return std::string(std::string_view(bytes));
}

}  // namespace

std::vector<DatasetMetadataFile> datasetMetadataFiles(const std::vector<InputFile>& files,
                                                      const std::vector<std::string>& names) {
    std::set<std::string> inputs;
    for (const InputFile& f : files)
        inputs.insert(identity(f.path));
    std::vector<DatasetMetadataFile> out;
    std::set<std::string> seen;  // input folders looked at
    for (std::size_t f = 0; f < files.size() && f < names.size(); ++f) {
        const fs::path folder = fs::path(files[f].path).parent_path();
        if (!seen.insert(identity(folder)).second) continue;
        if (!isDatasetFolder(folder) || !allAreInputs(folder, inputs)) continue;
        const fs::path mirror = fs::path(names[f]).parent_path();
        for (const char* name : {"state.json", "dataset_info.json"})
            out.push_back({(folder / name).string(), (mirror / name).string()});
        // A split of a DatasetDict mirrored with its siblings: the dict's list of splits too.
        const fs::path dict = folder.parent_path();
        if (mirror.empty() || !isDatasetDictFolder(dict) ||
            !seen.insert(identity(dict / "dataset_dict.json")).second ||
            !allAreInputs(dict, inputs))
            continue;
        out.push_back({(dict / "dataset_dict.json").string(),
                       (mirror.parent_path() / "dataset_dict.json").string()});
    }
    return out;
}

std::string mirroredMetadata(const DatasetMetadataFile& file, bool annotate) {
    const std::string bytes = readWhole(file.source);
    if (fs::path(file.source).filename() != "dataset_info.json") return bytes;
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    if (const auto error = parser.parse(bytes).get(root); error != simdjson::SUCCESS)
        throw InputError("cannot read '" + file.source +
                         "': not a JSON object: " + simdjson::error_message(error));
    std::string out = "{";
    bool first = true;
    auto key = [&](std::string_view name) {
        if (!first) out += ',';
        first = false;
        json::appendString(out, name);
        out += ':';
    };
    for (const auto field : root) {
        // The sizes of the splits no longer hold (dataset_metadata.h).
        if (field.key == "splits" || field.key == "dataset_size" || field.key == "size_in_bytes")
            continue;
        key(field.key);
        simdjson::dom::object features;
        if (!annotate || field.key != "features" ||
            field.value.get_object().get(features) != simdjson::SUCCESS) {
            out += simdjson::to_string(field.value);
            continue;
        }
        // The annotation columns as `datasets` describes an int64 or bool column.
        std::string value = simdjson::to_string(field.value);
        value.pop_back();  // the closing brace
        bool none = features.size() == 0;
        for (const auto& [column, dtype] : {std::pair{ClusterAnnotation::kClusterId, "int64"},
                                            std::pair{ClusterAnnotation::kClusterSize, "int64"},
                                            std::pair{ClusterAnnotation::kRemoved, "bool"}}) {
            if (!none) value += ',';
            none = false;
            json::appendString(value, column);
            value += ":{\"dtype\":\"";
            value += dtype;
            value += "\",\"_type\":\"Value\"}";
        }
        out += value + "}";
    }
    out += "}\n";
    return out;
}

}  // namespace neardup
