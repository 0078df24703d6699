// Parquet rows as documents or rejections (parquet_rows.h).
#include "parquet_rows.h"

#include <simdjson.h>

#include <cmath>
#include <limits>

#include "field_text.h"
#include "json_text.h"

namespace neardup {

namespace {

using Kind = columnar::ColumnValues::Kind;

// Why the text column cannot be a document's text as a whole, or "" when it can.
std::string textColumnProblem(const columnar::ColumnValues& text, const std::string& field) {
    if (text.kind == Kind::Missing) return "no '" + field + "' column";
    if (text.kind != Kind::Strings) return "'" + field + "' is a column of " + text.type;
    return {};
}

}  // namespace

void appendParquetRows(const columnar::RowGroupColumns& columns, uint64_t from, uint64_t count,
                       uint32_t group, uint64_t firstLine, const ReaderOptions& options,
                       const std::string& defaultIdPath, ParsedChunk& out) {
    const columnar::ColumnValues& text = columns.text;
    const columnar::ColumnValues& id = columns.id;
    const columnar::ColumnValues& keep = columns.keep;
    const std::string textProblem = textColumnProblem(text, options.textField);
    const RejectReason textReason =
        text.kind == Kind::Missing ? RejectReason::MissingText : RejectReason::TextNotString;
    for (uint64_t row = from; row < from + count && row < columns.rows; ++row) {
        const uint64_t line = firstLine + row;
        const auto r = static_cast<std::size_t>(row);
        if (!textProblem.empty()) {
            out.reject(textReason, line, textProblem);
            continue;
        }
        if (!text.valid[r]) {
            out.reject(RejectReason::MissingText, line, "'" + options.textField + "' is null");
            continue;
        }
        const std::string_view value = text.text[r];
        if (!simdjson::validate_utf8(value.data(), value.size())) {
            out.reject(RejectReason::InvalidUtf8, line,
                       "'" + options.textField + "' is not valid UTF-8");
            continue;
        }
        if (value.size() > std::numeric_limits<uint32_t>::max()) {
            out.reject(RejectReason::LineTooLong, line, "text longer than 4 GiB");
            continue;
        }
        const std::size_t arenaBefore = out.arena.size();
        // An empty id would be a blank line in the id lists: given the place, as a null one.
        if (id.kind == Kind::Missing || !id.valid[r] ||
            (id.kind == Kind::Strings && id.text[r].empty())) {
            out.arena += defaultIdPath;
            out.arena += ':';
            out.arena += std::to_string(line);
        } else if (id.kind == Kind::Strings) {
            // An id is one line of an id list: no character that breaks a line, valid UTF-8.
            const std::string_view v = id.text[r];
            const int lineBreak = firstIdBreak(v);
            if (lineBreak >= 0 || !simdjson::validate_utf8(v.data(), v.size())) {
                out.reject(RejectReason::InvalidId, line,
                           "'" + options.idField + "' " +
                               (lineBreak >= 0 ? "holds " + describeIdBreak(lineBreak)
                                               : std::string("is not valid UTF-8")));
                continue;
            }
            out.arena += v;
        } else if (id.kind == Kind::Integers) {
            out.arena += id.text[r];
        } else {
            out.reject(RejectReason::InvalidId, line,
                       "'" + options.idField + "' is a column of " + id.type);
            continue;
        }
        ParsedDocument doc;
        doc.line = line;
        doc.offset = group;
        doc.length = static_cast<uint32_t>(row);
        doc.idBegin = static_cast<uint32_t>(arenaBefore);
        doc.idLength = static_cast<uint32_t>(out.arena.size() - arenaBefore);
        doc.textBegin = static_cast<uint32_t>(out.arena.size());
        doc.textLength = static_cast<uint32_t>(value.size());
        out.arena += value;
        doc.keepValue = std::numeric_limits<double>::quiet_NaN();
        if ((keep.kind == Kind::Integers || keep.kind == Kind::Floats) && keep.valid[r])
            doc.keepValue = keep.numbers[r];
        out.docs.push_back(doc);
    }
}

namespace {

std::vector<std::string_view> splitDots(std::string_view dotted) {
    std::vector<std::string_view> parts;
    for (;;) {
        const std::size_t dot = dotted.find('.');
        parts.push_back(dotted.substr(0, dot));
        if (dot == std::string_view::npos) break;
        dotted.remove_prefix(dot + 1);
    }
    return parts;
}

}  // namespace

std::string parquetRowJson(const ReaderOptions& options, std::string_view id, bool numericId,
                           std::string_view text) {
    // The two fields as nested objects, sharing the leading names they have in common.
    const std::vector<std::string_view> idPath = splitDots(options.idField);
    const std::vector<std::string_view> textPath = splitDots(options.textField);
    std::size_t common = 0;
    while (common + 1 < idPath.size() && common + 1 < textPath.size() &&
           idPath[common] == textPath[common])
        ++common;
    std::string line = "{";
    auto openPath = [&](const std::vector<std::string_view>& path, std::size_t from) {
        for (std::size_t i = from; i < path.size(); ++i) {
            json::appendString(line, path[i]);
            line += i + 1 < path.size() ? ":{" : ":";
        }
    };
    auto closePath = [&](const std::vector<std::string_view>& path, std::size_t from) {
        for (std::size_t i = from; i + 1 < path.size(); ++i)
            line += '}';
    };
    openPath(idPath, 0);
    if (numericId)
        line += id;
    else
        json::appendString(line, id);
    closePath(idPath, common);
    line += ',';
    openPath(textPath, common);
    json::appendString(line, text);
    closePath(textPath, 0);
    line += '}';
    return line;
}

}  // namespace neardup
