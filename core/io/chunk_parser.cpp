// ChunkParser: the parallel half of reading (one line = one JSON document).
//
// simdjson's DOM parser is used rather than On Demand because it validates the whole line:
// On Demand only checks what it visits, so `{"text":"a","x":[1,}` or trailing garbage after the
// object would pass as documents. For text-heavy lines the cost is nearly the same (the text
// string dominates and is unescaped either way).
#include <fmt/format.h>

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <system_error>

#include "arrow_ipc_file.h"
#include "field_text.h"
#include "jsonl_reader.h"
#include "parquet_rows.h"

namespace neardup {

namespace {

constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING;
// After a line this long the parser's buffers (about 14 bytes per input byte) are released.
constexpr std::size_t kParserShrinkBytes = std::size_t{16} << 20;

const char* typeName(simdjson::dom::element_type t) {
    using T = simdjson::dom::element_type;
    switch (t) {
        case T::ARRAY:
            return "an array";
        case T::OBJECT:
            return "an object";
        case T::INT64:
        case T::UINT64:
            return "an integer";
        case T::DOUBLE:
            return "a float";
        case T::STRING:
            return "a string";
        case T::BOOL:
            return "a boolean";
        case T::NULL_VALUE:
            return "null";
    }
    return "unknown";
}

bool isBlank(const char* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const char c = p[i];
        if (c != ' ' && c != '\t' && c != '\r') return false;
    }
    return true;
}

// Index of the first raw control byte (below 0x20, tab excepted), or n. The branch-free OR
// lets the compiler vectorize the common case of a clean line.
std::size_t findControlByte(const char* p, std::size_t n) {
    unsigned char bad = 0;  // byte-wide so the vectorized loop needs no widening
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(p[i]);
        bad |= static_cast<unsigned char>((c < 0x20) & (c != '\t'));
    }
    if (bad == 0) return n;
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(p[i]);
        if (c < 0x20 && c != '\t') return i;
    }
    return n;
}

// What replaces a number simdjson cannot represent (beyond 64-bit integers, beyond double),
// so that the rest of the line is still read: a string no real field holds.
constexpr std::string_view kOutOfRange = R"(\u0000\u0000number out of range)";
constexpr char kOutOfRangeBytes[] = "\0\0number out of range";
constexpr std::string_view kOutOfRangeValue(kOutOfRangeBytes, sizeof kOutOfRangeBytes - 1);

// True when the JSON number `token` cannot be represented: an integer beyond 64 bits, or a
// float beyond a double's range.
bool outOfRange(std::string_view token) {
    const bool integer = token.find_first_of(".eE") == std::string_view::npos;
    if (integer) {
        const char* first = token.data();
        const char* last = token.data() + token.size();
        if (token.front() == '-') {
            int64_t v = 0;
            return std::from_chars(first, last, v).ec == std::errc::result_out_of_range;
        }
        uint64_t v = 0;
        return std::from_chars(first, last, v).ec == std::errc::result_out_of_range;
    }
    // Beyond a double's range (or so small that it underflows): from_chars says so.
    double v = 0;
    return std::from_chars(token.data(), token.data() + token.size(), v).ec ==
           std::errc::result_out_of_range;
}

// `line` with every out-of-range number outside strings replaced by kOutOfRange; false when
// there is none (the line's error lies elsewhere).
bool tameNumbers(std::string_view line, std::string& out) {
    out.clear();
    bool replaced = false;
    bool inString = false;
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < line.size()) {
                out += line[i + 1];
                i += 2;
                continue;
            }
            if (c == '"') inString = false;
            ++i;
            continue;
        }
        if (c == '"') {
            inString = true;
            out += c;
            ++i;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            std::size_t end = i + 1;
            while (end < line.size() &&
                   ((line[end] >= '0' && line[end] <= '9') || line[end] == '.' ||
                    line[end] == 'e' || line[end] == 'E' || line[end] == '+' || line[end] == '-'))
                ++end;
            const std::string_view token = line.substr(i, end - i);
            if (token != "-" && outOfRange(token)) {
                out += '"';
                out += kOutOfRange;
                out += '"';
                replaced = true;
            } else {
                out += token;
            }
            i = end;
            continue;
        }
        out += c;
        ++i;
    }
    return replaced;
}

// A key as a rejection's detail quotes it: control characters as '?', at most 64 bytes (cut on
// a character boundary).
std::string shownKey(std::string_view key) {
    constexpr std::size_t kShown = 64;
    std::string s;
    if (key.size() > kShown) {
        std::size_t cut = kShown;
        while (cut > 0 && (static_cast<unsigned char>(key[cut]) & 0xC0) == 0x80)
            --cut;
        s.assign(key.substr(0, cut));
        s += "...";
    } else {
        s.assign(key);
    }
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
    return s;
}

// A bit of a 64-bit set standing for `key`: equal keys have the same bit, so a key whose bit
// is not yet set has not been seen.
inline uint64_t keyBit(std::string_view key) {
    const std::size_t n = key.size();
    if (n == 0) return 1;
    // Multiplicative hashing of the first and last bytes and the length: the six top bits.
    const uint32_t x = static_cast<uint32_t>(static_cast<unsigned char>(key[0])) |
                       static_cast<uint32_t>(static_cast<unsigned char>(key[n - 1])) << 8 |
                       static_cast<uint32_t>(n) << 16;
    return uint64_t{1} << ((x * 0x9E3779B1u) >> 26);
}

// Finds, in one pass over an object's fields, a key it holds twice (keys compared unescaped, as
// readers see them) and the values of up to three keys wanted (their first occurrence). Readers
// disagree on an object with a key twice: simdjson and JavaScript's first-match lookups take the
// first value, Python's json and most others the last. A small object (the usual JSON Lines
// record) is checked with a 64-bit set of key bits, its keys compared only when a bit repeats; a
// larger one is sorted in a scratch vector afterwards.
class ObjectScan {
  public:
    static constexpr std::size_t kWanted = 3;

    void want(std::size_t slot, std::string_view key) {
        wanted_[slot] = key;
        want_[slot] = true;
        wantedBits_ |= keyBit(key);
    }
    bool found(std::size_t slot) const { return found_[slot]; }
    simdjson::dom::element value(std::size_t slot) const { return value_[slot]; }
    std::string_view duplicate() const { return duplicate_; }

    // True when `obj` holds a key twice (duplicate() names it).
    bool run(simdjson::dom::object obj) {
        constexpr std::size_t kSmall = 32;
        found_[0] = found_[1] = found_[2] = false;
        const bool small = obj.size() <= kSmall;
        if (!small) scratch_.clear();
        uint64_t bits = 0;
        const simdjson::dom::object::iterator end = obj.end();
        for (simdjson::dom::object::iterator it = obj.begin(); it != end; ++it) {
            const std::string_view key = it.key();
            const uint64_t bit = keyBit(key);
            if (small) {
                if ((bits & bit) != 0 && seenBefore(obj, it, key)) {
                    duplicate_ = key;
                    return true;
                }
                bits |= bit;
            } else {
                scratch_.push_back(key);
            }
            if ((bit & wantedBits_) != 0) {
                for (std::size_t k = 0; k < kWanted; ++k) {
                    if (want_[k] && !found_[k] && key == wanted_[k]) {
                        value_[k] = it.value();
                        found_[k] = true;
                    }
                }
            }
        }
        if (small) return false;
        std::sort(scratch_.begin(), scratch_.end());
        const auto twice = std::adjacent_find(scratch_.begin(), scratch_.end());
        if (twice == scratch_.end()) return false;
        duplicate_ = *twice;
        return true;
    }

  private:
    // Whether a field of `obj` before `at` has the key `key` (when its bit repeats).
    static bool seenBefore(simdjson::dom::object obj, simdjson::dom::object::iterator at,
                           std::string_view key) {
        for (simdjson::dom::object::iterator it = obj.begin(); it != at; ++it)
            if (it.key() == key) return true;
        return false;
    }

    std::string_view wanted_[kWanted];
    bool want_[kWanted] = {};
    uint64_t wantedBits_ = 0;
    simdjson::dom::element value_[kWanted];
    bool found_[kWanted] = {};
    std::string_view duplicate_;
    std::vector<std::string_view> scratch_;
};

}  // namespace

void ParsedChunk::clear() {
    file = 0;
    docs.clear();
    arena.clear();
    rejections.clear();
    lines = 0;
    blankLines = 0;
    bytes = 0;
}

void ParsedChunk::reject(RejectReason reason, uint64_t line, std::string detail) {
    Rejection r;
    r.reason = reason;
    r.file = file;
    r.line = line;
    r.detail = std::move(detail);
    rejections.push_back(std::move(r));
}

struct ChunkParser::Impl {
    std::vector<std::string> paths;  // of the input files
    std::vector<uint64_t> sizes;     // and their sizes (Parquet footers are at the end)
    std::unique_ptr<columnar::ColumnarRowReader> parquet;  // made for the first columnar chunk
    std::vector<std::string> defaultIdPaths;               // the same, as default ids show them
    ReaderOptions options;
    std::vector<std::string> textPath, idPath, keepPath;
    simdjson::dom::parser parser;
    std::string padded;  // a line copied when the chunk cannot serve as its padding
    std::string tamed;   // a line with its out-of-range numbers replaced
    // The objects a nested field path passes through ("meta" for --text-field meta.content),
    // each once: checked for duplicate keys like the top-level object.
    std::vector<std::vector<std::string>> innerObjects;
    ObjectScan top;     // the top-level object: its keys, and the fields' first components
    ObjectScan nested;  // an object a nested field path passes through

    Impl(const std::vector<InputFile>& files, ReaderOptions o) : options(std::move(o)) {
        for (const InputFile& f : files) {
            paths.push_back(f.path);
            sizes.push_back(f.size);
            defaultIdPaths.push_back(idSafeName(f.path));
        }
        textPath = splitFieldPath(options.textField);
        idPath = splitFieldPath(options.idField);
        if (!options.keepField.empty()) keepPath = splitFieldPath(options.keepField);
        top.want(0, textPath.front());
        top.want(1, idPath.front());
        if (!keepPath.empty()) top.want(2, keepPath.front());
        for (const std::vector<std::string>* path : {&textPath, &idPath, &keepPath}) {
            for (std::size_t depth = 1; depth < path->size(); ++depth) {
                std::vector<std::string> prefix(path->begin(),
                                                path->begin() + static_cast<std::ptrdiff_t>(depth));
                if (std::find(innerObjects.begin(), innerObjects.end(), prefix) ==
                    innerObjects.end())
                    innerObjects.push_back(std::move(prefix));
            }
        }
    }

    // The value at a dotted path; false when a component is missing or not inside an object.
    static bool lookup(simdjson::dom::element root, const std::vector<std::string>& path,
                       simdjson::dom::element& value) {
        simdjson::dom::element cur = root;
        for (const std::string& key : path) {
            simdjson::dom::object obj;
            if (cur.get_object().get(obj) != simdjson::SUCCESS) return false;
            if (obj.at_key(key).get(cur) != simdjson::SUCCESS) return false;
        }
        value = cur;
        return true;
    }

    void parseLine(const char* line, std::size_t length, bool paddedInPlace, uint64_t lineNo,
                   uint64_t offset, ParsedChunk& out) {
        std::size_t jsonLength = length;
        if (jsonLength > 0 && line[jsonLength - 1] == '\r') --jsonLength;
        if (isBlank(line, jsonLength)) {
            ++out.blankLines;
            return;
        }
        if (options.maxLineBytes > 0 && length > options.maxLineBytes) {
            out.reject(RejectReason::LineTooLong, lineNo,
                       "line of " + std::to_string(length) + " bytes, longer than the limit of " +
                           std::to_string(options.maxLineBytes) + " (--max-line-bytes)");
            return;
        }
        if (length > std::numeric_limits<uint32_t>::max()) {
            out.reject(RejectReason::MalformedJson, lineNo, "line longer than 4 GiB");
            return;
        }
        if (!simdjson::validate_utf8(line, jsonLength)) {
            out.reject(RejectReason::InvalidUtf8, lineNo, "invalid UTF-8");
            return;
        }
        const std::size_t control = findControlByte(line, jsonLength);
        if (control != jsonLength) {
            const std::string hex =
                fmt::format("0x{:02x}", static_cast<unsigned char>(line[control]));
            out.reject(
                RejectReason::ControlCharacter, lineNo,
                std::string("raw control byte ") + hex + " at byte " + std::to_string(control + 1));
            return;
        }

        const char* json = line;
        if (!paddedInPlace) {
            padded.resize(jsonLength + kPadding);
            std::memcpy(padded.data(), line, jsonLength);
            std::memset(padded.data() + jsonLength, ' ', kPadding);
            json = padded.data();
        }
        simdjson::dom::element root;
        simdjson::error_code error = parser.parse(json, jsonLength, false).get(root);
        // Valid JSON holding a number simdjson cannot represent (123456789012345678901234567890,
        // 1e400) is still a document: such numbers are replaced and the line parsed again. Only
        // the text, id and keep fields are ever read, and those say so.
        if (error != simdjson::SUCCESS && tameNumbers(std::string_view(line, jsonLength), tamed)) {
            const std::size_t tamedLength = tamed.size();
            tamed.append(kPadding, ' ');
            if (parser.parse(tamed.data(), tamedLength, false).get(root) == simdjson::SUCCESS)
                error = simdjson::SUCCESS;
        }
        if (error != simdjson::SUCCESS) {
            out.reject(RejectReason::MalformedJson, lineNo, simdjson::error_message(error));
        } else {
            extract(root, lineNo, offset, static_cast<uint32_t>(length), out);
        }
        if (jsonLength > kParserShrinkBytes) {
            parser = simdjson::dom::parser{};
            padded = std::string{};
        }
    }

    // The value at `path` below `start`, which is the value of its first component; false when
    // a later component is missing or not inside an object.
    static bool lookupRest(simdjson::dom::element start, const std::vector<std::string>& path,
                           simdjson::dom::element& value) {
        if (path.size() == 1) {
            value = start;
            return true;
        }
        simdjson::dom::element cur = start;
        for (std::size_t i = 1; i < path.size(); ++i) {
            simdjson::dom::object obj;
            if (cur.get_object().get(obj) != simdjson::SUCCESS) return false;
            if (obj.at_key(path[i]).get(cur) != simdjson::SUCCESS) return false;
        }
        value = cur;
        return true;
    }

    void rejectDuplicate(ParsedChunk& out, uint64_t lineNo, std::string_view key,
                         const std::string& where) {
        out.reject(RejectReason::DuplicateKey, lineNo,
                   "the key '" + shownKey(key) + "' appears twice" +
                       (where.empty() ? std::string() : " in '" + where + "'") +
                       " (readers differ on which value counts)");
    }

    // Rejects the line as duplicate_key when an object a nested field path passes through holds
    // a key twice (the top-level object is checked by extract's scan).
    bool innerDuplicateKey(simdjson::dom::element root, uint64_t lineNo, ParsedChunk& out) {
        for (const std::vector<std::string>& path : innerObjects) {
            simdjson::dom::element inner;
            simdjson::dom::object obj;
            if (!lookup(root, path, inner) || inner.get_object().get(obj) != simdjson::SUCCESS)
                continue;
            if (nested.run(obj)) {
                std::string where;
                for (const std::string& part : path)
                    where += (where.empty() ? "" : ".") + part;
                rejectDuplicate(out, lineNo, nested.duplicate(), where);
                return true;
            }
        }
        return false;
    }

    void extract(simdjson::dom::element root, uint64_t lineNo, uint64_t offset, uint32_t length,
                 ParsedChunk& out) {
        if (!root.is_object()) {
            out.reject(RejectReason::NotAnObject, lineNo,
                       std::string("top-level value is ") + typeName(root.type()));
            return;
        }
        // One pass over the top-level fields finds a key given twice and the fields' first
        // components.
        if (top.run(root.get_object().value_unsafe())) {
            rejectDuplicate(out, lineNo, top.duplicate(), {});
            return;
        }
        if (!innerObjects.empty() && innerDuplicateKey(root, lineNo, out)) return;
        simdjson::dom::element text;
        if (!top.found(0) || !lookupRest(top.value(0), textPath, text) || text.is_null()) {
            out.reject(RejectReason::MissingText, lineNo, "no '" + options.textField + "' field");
            return;
        }
        std::string_view textValue;
        if (text.get_string().get(textValue) != simdjson::SUCCESS ||
            textValue == kOutOfRangeValue) {
            out.reject(RejectReason::TextNotString, lineNo,
                       "'" + options.textField + "' is " +
                           (textValue == kOutOfRangeValue ? "a number out of range"
                                                          : typeName(text.type())));
            return;
        }

        ParsedDocument doc;
        doc.line = lineNo;
        doc.offset = offset;
        doc.length = length;
        const std::size_t arenaBefore = out.arena.size();

        simdjson::dom::element id;
        // An empty id would be a blank line in the id lists, which many readers skip: it is
        // given the place, as a missing one is.
        if (!top.found(1) || !lookupRest(top.value(1), idPath, id) || id.is_null() ||
            (id.is_string() && id.get_string().value_unsafe().empty())) {
            out.arena.append(defaultIdPaths.at(out.file));
            out.arena.push_back(':');
            appendNumber(out.arena, lineNo);
        } else if (id.is_string()) {
            // An id is one line of an id list: a character that breaks a line (a newline
            // would make one id two) makes it invalid, as does a number no 64-bit integer holds.
            const std::string_view value = id.get_string().value_unsafe();
            const int lineBreak = firstIdBreak(value);
            if (value == kOutOfRangeValue || lineBreak >= 0) {
                out.reject(
                    RejectReason::InvalidId, lineNo,
                    "'" + options.idField + "' " +
                        (value == kOutOfRangeValue ? std::string("is an integer beyond 64 bits")
                                                   : "holds " + describeIdBreak(lineBreak)));
                out.arena.resize(arenaBefore);
                return;
            }
            out.arena.append(value);
        } else if (id.is_int64()) {
            appendNumber(out.arena, id.get_int64().value_unsafe());
        } else if (id.is_uint64()) {
            appendNumber(out.arena, id.get_uint64().value_unsafe());
        } else {
            out.reject(RejectReason::InvalidId, lineNo,
                       "'" + options.idField + "' is " + typeName(id.type()));
            return;
        }
        doc.idBegin = static_cast<uint32_t>(arenaBefore);
        doc.idLength = static_cast<uint32_t>(out.arena.size() - arenaBefore);
        doc.textBegin = static_cast<uint32_t>(out.arena.size());
        doc.textLength = static_cast<uint32_t>(textValue.size());
        out.arena.append(textValue);

        doc.keepValue = std::numeric_limits<double>::quiet_NaN();
        simdjson::dom::element keep;
        double keepValue = 0;
        if (top.found(2) && lookupRest(top.value(2), keepPath, keep) &&
            keep.get_double().get(keepValue) == simdjson::SUCCESS) {
            doc.keepValue = keepValue;
        }
        out.docs.push_back(doc);
    }

    // A Parquet row group or Arrow record batch: its rows decoded from the chunk's bytes (and the
    // file's footer). A group that cannot be decoded rejects each of its rows as corrupt_input.
    void parseRowGroup(const LineChunk& chunk, ParsedChunk& out) {
        out.lines = chunk.rows;
        if (chunk.rows == 0) return;
        if (!parquet)
            parquet = std::make_unique<columnar::ColumnarRowReader>(
                options.textField, options.idField, options.keepField);
        try {
            const columnar::RowGroupColumns& columns =
                parquet->read(paths.at(chunk.file), sizes.at(chunk.file), chunk.rowGroup,
                              chunk.data, chunk.baseOffset);
            appendParquetRows(columns, 0, std::min(columns.rows, chunk.rows), chunk.rowGroup,
                              chunk.firstLine, options, defaultIdPaths.at(chunk.file), out);
            for (uint64_t row = columns.rows; row < chunk.rows; ++row)
                out.reject(RejectReason::CorruptInput, chunk.firstLine + row,
                           "row group " + std::to_string(chunk.rowGroup) + " has fewer rows now");
        } catch (const std::exception& e) {
            out.docs.clear();
            out.arena.clear();
            out.rejections.clear();
            for (uint64_t row = 0; row < chunk.rows; ++row)
                out.reject(RejectReason::CorruptInput, chunk.firstLine + row, e.what());
        }
    }

    template <typename Int>
    static void appendNumber(std::string& s, Int v) {
        char digits[24];
        const auto result = std::to_chars(digits, digits + sizeof digits, v);
        s.append(digits, result.ptr);
    }
};

ChunkParser::ChunkParser(const std::vector<InputFile>& files, ReaderOptions options)
    : impl_(std::make_unique<Impl>(files, std::move(options))) {}

ChunkParser::~ChunkParser() = default;

void ChunkParser::parse(const LineChunk& chunk, ParsedChunk& out) {
    out.clear();
    out.file = chunk.file;
    out.bytes = chunk.data.size();
    if (!chunk.failure.empty()) {
        out.lines = 1;
        out.reject(chunk.failureReason, chunk.firstLine, chunk.failure);
        return;
    }
    if (chunk.parquet) {
        impl_->parseRowGroup(chunk, out);
        return;
    }
    const char* base = chunk.data.data();
    const std::size_t size = chunk.data.size();
    std::size_t pos = 0;
    if (chunk.fileStart && size >= 3 && std::memcmp(base, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    uint64_t lineNo = chunk.firstLine;
    while (pos < size) {
        const void* nl = std::memchr(base + pos, '\n', size - pos);
        const std::size_t end =
            nl == nullptr ? size : static_cast<std::size_t>(static_cast<const char*>(nl) - base);
        // The parser may read SIMDJSON_PADDING bytes past the line; use the chunk itself when
        // those bytes are initialized data of the chunk (the following lines), else copy.
        const bool paddedInPlace = end + kPadding <= size;
        impl_->parseLine(base + pos, end - pos, paddedInPlace, lineNo, chunk.baseOffset + pos, out);
        ++out.lines;
        ++lineNo;
        pos = end + 1;
    }
}

}  // namespace neardup
