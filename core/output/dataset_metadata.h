// The JSON metadata of Hugging Face `datasets` folders, mirrored by --out-dir beside their Arrow
// shards so that `datasets.load_from_disk(OUT)` loads the deduplicated rows: a save_to_disk
// folder's state.json (it lists the shards by name, and the shards keep their names) and
// dataset_info.json, and a DatasetDict's dataset_dict.json. dataset_info.json loses its split
// sizes (num_examples and num_bytes of "splits", "dataset_size", "size_in_bytes"), which would
// be stale once rows are removed or columns added, rather than being recomputed: `datasets`
// treats them as optional. With --annotate its features gain the three annotation columns.
#pragma once

#include <string>
#include <vector>

#include "document_table.h"

namespace neardup {

struct DatasetMetadataFile {
    std::string source;  // the metadata file of an input folder
    std::string name;    // its name under --out-dir, beside the shards' names
};

// The metadata files --out-dir mirrors for inputs `files` written under shard names `names`:
// state.json and dataset_info.json of each save_to_disk folder whose listed shards are all
// inputs, and dataset_dict.json of each DatasetDict folder whose splits' shards are all inputs
// and whose mirror lies inside --out-dir. None for inputs given shard by shard. Throws
// InputError naming a metadata file that cannot be read.
std::vector<DatasetMetadataFile> datasetMetadataFiles(const std::vector<InputFile>& files,
                                                      const std::vector<std::string>& names);

// The bytes --out-dir writes for `file`: state.json and dataset_dict.json as they are;
// dataset_info.json without its split sizes and, when `annotate`, with the annotation columns
// among its features. Throws InputError naming the file.
std::string mirroredMetadata(const DatasetMetadataFile& file, bool annotate);

}  // namespace neardup
