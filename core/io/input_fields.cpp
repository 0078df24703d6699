// The JSON Lines field sampler: simdjson's DOM parser (as the reader's) over the first lines of
// a file, read through LineChunkSource so that compressed files are sampled as they are read.
#include "input_fields.h"

#include <simdjson.h>

#include <string>
#include <string_view>
#include <unordered_map>

#include "arrow_ipc_file.h"
#include "jsonl_reader.h"
#include "parquet_file.h"

namespace neardup {

namespace {

// Nesting beyond this is not listed: no one names a text field ten objects deep, and a
// pathological line must not make the listing deep.
constexpr int kMaxDepth = 8;
// Nor are more fields than this: a file whose keys are data (one key per word, per URL)
// would otherwise list every record's keys.
constexpr std::size_t kMaxFields = 2000;

// JSON types seen, as bits, in the order their names are listed.
enum TypeBit : uint8_t {
    kString = 1,
    kInteger = 2,
    kFloat = 4,
    kBoolean = 8,
    kNull = 16,
    kObject = 32,
    kArray = 64
};
constexpr std::pair<TypeBit, const char*> kTypeNames[] = {
    {kString, "string"}, {kInteger, "integer"}, {kFloat, "float"}, {kBoolean, "boolean"},
    {kNull, "null"},     {kObject, "object"},   {kArray, "array"},
};

TypeBit typeBit(simdjson::dom::element_type t) {
    using T = simdjson::dom::element_type;
    switch (t) {
        case T::STRING:
            return kString;
        case T::INT64:
        case T::UINT64:
            return kInteger;
        case T::DOUBLE:
            return kFloat;
        case T::BOOL:
            return kBoolean;
        case T::NULL_VALUE:
            return kNull;
        case T::OBJECT:
            return kObject;
        case T::ARRAY:
            return kArray;
    }
    return kNull;
}

class Sampler {
  public:
    // Not inlined: inlined into its caller, GCC 12 sees the parse's default-constructed object
    // and warns of a null dereference (-Wnull-dereference) that the parse's check rules out.
    [[gnu::noinline]] void addObject(simdjson::dom::object object, const std::string& prefix,
                                     int depth) {
        for (const simdjson::dom::key_value_pair field : object) {
            const std::string path =
                prefix.empty() ? std::string(field.key) : prefix + "." + std::string(field.key);
            const auto t = field.value.type();
            if (!note(path, typeBit(t))) continue;
            if (t == simdjson::dom::element_type::OBJECT && depth + 1 < kMaxDepth)
                addObject(field.value.get_object().value_unsafe(), path, depth + 1);
        }
    }

    FieldListing finish(uint64_t records, uint64_t notObjects) {
        FieldListing out;
        out.records = records;
        out.notObjects = notObjects;
        for (std::size_t i = 0; i < paths_.size(); ++i) {
            columnar::FieldInfo info;
            info.path = paths_[i];
            for (const auto& [bit, name] : kTypeNames)
                if (types_[i] & bit)
                    info.type += (info.type.empty() ? "" : " | ") + std::string(name);
            using K = columnar::FieldInfo::Kind;
            if (types_[i] & kString)
                info.kind = K::String;
            else if ((types_[i] & kInteger) && !(types_[i] & ~(kInteger | kNull)))
                info.kind = K::Integer;
            info.seen = seen_[i];
            out.fields.push_back(std::move(info));
        }
        return out;
    }

  private:
    // Records one occurrence; false when the field is not listed (too many fields).
    bool note(const std::string& path, TypeBit bit) {
        auto found = index_.find(path);
        if (found == index_.end()) {
            if (paths_.size() >= kMaxFields) return false;
            found = index_.emplace(path, paths_.size()).first;
            paths_.push_back(path);
            types_.push_back(0);
            seen_.push_back(0);
        }
        types_[found->second] |= bit;
        ++seen_[found->second];
        return true;
    }

    std::unordered_map<std::string, std::size_t> index_;
    std::vector<std::string> paths_;  // in order of first appearance
    std::vector<uint8_t> types_;
    std::vector<uint64_t> seen_;
};

bool isBlank(std::string_view line) {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

FieldListing jsonlFields(const InputFile& file, std::size_t maxLines) {
    LineChunkSource source({file}, std::size_t{256} << 10);
    simdjson::dom::parser parser;
    Sampler sampler;
    LineChunk chunk;
    std::size_t lines = 0;
    uint64_t records = 0, notObjects = 0;
    while (lines < maxLines && source.next(chunk)) {
        std::string_view data = chunk.data;
        if (chunk.fileStart && data.starts_with("\xEF\xBB\xBF")) data.remove_prefix(3);
        std::size_t pos = 0;
        while (lines < maxLines && pos < data.size()) {
            std::size_t end = data.find('\n', pos);
            if (end == std::string_view::npos) end = data.size();
            const std::string_view line = data.substr(pos, end - pos);
            pos = end + 1;
            if (isBlank(line)) continue;
            ++lines;
            simdjson::dom::object object;
            // parse() copies the line into the parser's padded buffer.
            if (parser.parse(line.data(), line.size()).get_object().get(object) !=
                simdjson::SUCCESS) {
                ++notObjects;
                continue;
            }
            ++records;
            sampler.addObject(object, {}, 0);
        }
    }
    return sampler.finish(records, notObjects);
}

FieldListing inputFields(const InputFile& file, std::size_t maxLines) {
    const bool arrow = columnar::isArrowName(file.path);
    if (!arrow && !columnar::isParquetName(file.path)) return jsonlFields(file, maxLines);
    FieldListing out;
    out.parquet = true;
    out.fields = arrow ? columnar::arrowFields(file.path) : columnar::parquetFields(file.path);
    if (!out.fields.empty()) out.records = out.fields.front().seen;
    return out;
}

}  // namespace neardup
