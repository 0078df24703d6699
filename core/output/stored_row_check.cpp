#include "stored_row_check.h"

// simdjson's ondemand iterators, inlined here, make GCC 12 warn of a null dereference that the
// iterator's own state rules out (-Wnull-dereference); the warning points into simdjson.h.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <simdjson.h>
#pragma GCC diagnostic pop

#include "field_text.h"

namespace neardup {

namespace {

// The id a line shows at `path`, as the reader records it (a string as it is, an integer in
// decimal); false when the line has none there (its document then has the default id).
bool idAt(simdjson::ondemand::document& doc, const std::vector<std::string>& path,
          std::string& out) {
    simdjson::ondemand::value value;
    simdjson::ondemand::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) return false;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (object.find_field_unordered(path[i]).get(value) != simdjson::SUCCESS) return false;
        if (i + 1 < path.size() && value.get_object().get(object) != simdjson::SUCCESS)
            return false;
    }
    simdjson::ondemand::json_type type;
    if (value.type().get(type) != simdjson::SUCCESS) return false;
    if (type == simdjson::ondemand::json_type::null) return false;
    std::string_view text;
    if (type == simdjson::ondemand::json_type::string) {
        if (value.get_string().get(text) != simdjson::SUCCESS) text = {};
        out.assign(text);
    } else if (type == simdjson::ondemand::json_type::number) {
        // An integer's token is how the reader wrote it: in decimal.
        text = value.raw_json_token();
        while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                                 text.back() == '\n'))
            text.remove_suffix(1);
        out.assign(text);
    } else {
        out.clear();  // an id the reader would have refused matches no stored id
    }
    return true;
}

// `text` for a one-line message: at most 60 bytes, control characters as '?'.
std::string shown(std::string_view text) {
    std::string out(text.substr(0, 60));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
    if (text.size() > 60) out += "...";
    return out;
}

}  // namespace

StoredRowCheck::StoredRowCheck(const ReaderOptions& reader)
    : idPath_(splitFieldPath(reader.idField)), idField_(reader.idField) {}

std::string StoredRowCheck::problem(std::string_view data, bool fileStart, std::size_t at,
                                    uint32_t length, std::string_view id, uint64_t lineNo) {
    // A file's first line starts after its UTF-8 byte order mark, if it has one.
    const bool afterMark = fileStart && at == 3 && data.starts_with("\xEF\xBB\xBF");
    if (at > 0 && data[at - 1] != '\n' && !afterMark)
        return "its offset is not the start of a line";
    const std::size_t end = at + length;
    if (end > data.size()) return "its length runs past the end of its line";
    if (end < data.size() && data[end] != '\n' && data[end] != '\r')
        return "its length ends inside its line";
    padded_.assign(data.substr(at, length));
    padded_.resize(length + simdjson::SIMDJSON_PADDING);
    // One parser per thread; ondemand touches only the path to the id, so long texts and
    // numbers beyond 64 bits elsewhere in the line are skipped, as the reader skips them.
    thread_local simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    std::string found;
    const simdjson::padded_string_view view(padded_.data(), length, padded_.size());
    simdjson::ondemand::json_type type;
    if (parser.iterate(view).get(doc) != simdjson::SUCCESS ||
        doc.type().get(type) != simdjson::SUCCESS || type != simdjson::ondemand::json_type::object)
        return "its line is not a JSON object";
    if (!idAt(doc, idPath_, found)) {
        // A line without an id has the default one, "<file as read>:<line number>".
        const std::string suffix = ":" + std::to_string(lineNo);
        if (id.size() > suffix.size() && id.ends_with(suffix)) return {};
        return "its line has no '" + idField_ + "' but the row has the id '" + shown(id) + "'";
    }
    if (found != id)
        return "the line's '" + idField_ + "' is '" + shown(found) + "', the row's id '" +
               shown(id) + "'";
    return {};
}

}  // namespace neardup
