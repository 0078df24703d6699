// The fields an input offers for --text-field and --id-field, as the workbench's dataset panel
// lists them: a Parquet or Arrow IPC file's columns with their Arrow types (here) and the keys of a
// JSON Lines file's first lines with the JSON types seen (core/io's input_fields.h). Plain types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace neardup::columnar {

// One field, named as the reader's field options name it: a dotted path reaches a struct's
// children (Parquet) or a nested object's keys (JSON Lines), "meta.url".
struct FieldInfo {
    // What the field holds, for ordering the choices: strings first for the text field,
    // strings and integers for the id field.
    enum class Kind : uint8_t { String, Integer, Other };
    std::string path;
    std::string type;  // Arrow's name of its type, or the JSON types seen ("string | null")
    Kind kind = Kind::Other;
    uint64_t seen = 0;  // JSON Lines: the sampled lines that have it; Parquet: the file's rows
};

// The columns of the Parquet file at `path`, from its footer alone: each top-level column in
// schema order, a struct followed by its children (depth first). Lists and maps are listed but
// not entered (no reader option can name what is inside them). Throws ColumnarError naming the
// file, "not compiled in" in a build without Arrow.
std::vector<FieldInfo> parquetFields(const std::string& path);

// The columns of the Arrow IPC file (or stream) at `path`, from its schema, listed as
// parquetFields lists them; `seen` is the file's rows. Throws ColumnarError naming the file,
// "not compiled in" in a build without Arrow.
std::vector<FieldInfo> arrowFields(const std::string& path);

}  // namespace neardup::columnar
