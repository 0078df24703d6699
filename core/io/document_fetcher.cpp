#include "document_fetcher.h"

#include <algorithm>
#include <stdexcept>

#include "arrow_ipc_file.h"
#include "field_text.h"
#include "input_pin.h"
#include "jsonl_reader.h"
#include "parquet_rows.h"
#include "shingles.h"

namespace neardup {

struct DocumentFetcher::Impl {
    Impl(std::vector<InputFile> f, const ReaderOptions& r)
        : files(std::move(f)), reader(r), ranges(files), parser(files, reader) {}
    std::vector<InputFile> files;
    ReaderOptions reader;
    RangeReader ranges;
    ChunkParser parser;
    LineChunk chunk;
    ParsedChunk parsed;
    // Parquet and Arrow inputs: rows are read by (row group or record batch, row); the reader keeps
    // the last row group decoded, so the documents of one group (in input order) cost one decoding.
    std::unique_ptr<columnar::ColumnarRowReader> rows;
    std::vector<uint8_t> pinChecked;  // per Parquet file: its pin was checked (input_pin.h)

    FetchedDocument fetchRow(const DocumentLocation& where) {
        FetchedDocument out;
        const InputFile& f = files[where.file];
        try {
            if (pinChecked.empty()) pinChecked.assign(files.size(), 0);
            if (!pinChecked[where.file]) {
                if (const std::string problem = pinProblem(f); !problem.empty())
                    throw InputError(problem);
                pinChecked[where.file] = 1;
            }
            if (!rows)
                rows = std::make_unique<columnar::ColumnarRowReader>(
                    reader.textField, reader.idField, reader.keepField);
            if (where.offset > UINT32_MAX) throw InputError("no such row group");
            const columnar::RowGroupColumns& columns =
                rows->read(f.path, f.size, static_cast<uint32_t>(where.offset));
            if (where.length >= columns.rows)
                throw InputError("row group " + std::to_string(where.offset) + " of '" + f.path +
                                 "' has no row " + std::to_string(where.length) +
                                 " (changed since it was read?)");
            parsed.clear();
            parsed.file = where.file;
            // Default ids name the file as the reader does (field_text.h).
            const std::string defaultIdPath = idSafeName(f.path);
            appendParquetRows(columns, where.length, 1, static_cast<uint32_t>(where.offset),
                              where.line - where.length, reader, defaultIdPath, parsed);
            if (parsed.docs.empty()) {
                out.error = std::string("the row is rejected now: ") +
                            toString(parsed.rejections.front().reason) + " " +
                            parsed.rejections.front().detail;
                return out;
            }
            const ParsedDocument& d = parsed.docs.front();
            out.id.assign(parsed.id(d));
            out.text.assign(parsed.text(d));
            const bool numericId = columns.id.kind == columnar::ColumnValues::Kind::Integers &&
                                   columns.id.valid[where.length];
            out.line = parquetRowJson(reader, out.id, numericId, out.text);
            out.ok = true;
        } catch (const std::exception& e) {
            out.error = e.what();
        }
        return out;
    }
};

DocumentFetcher::DocumentFetcher(std::vector<InputFile> files, ReaderOptions reader)
    : impl_(std::make_unique<Impl>(std::move(files), reader)) {}

DocumentFetcher::~DocumentFetcher() = default;

FetchedDocument DocumentFetcher::fetch(const DocumentLocation& where) {
    FetchedDocument out;
    Impl& s = *impl_;
    if (where.file >= s.files.size()) {
        out.error = "file index " + std::to_string(where.file) + " is not in the dataset";
        return out;
    }
    if (columnar::isColumnarName(s.files[where.file].path)) return s.fetchRow(where);
    try {
        s.ranges.read(where.file, where.offset, where.length, out.line);
    } catch (const std::exception& e) {
        out.error = e.what();
        return out;
    }
    s.chunk.file = where.file;
    s.chunk.firstLine = where.line;
    s.chunk.baseOffset = where.offset;
    // The stored offset already points past a byte order mark, so never look for one again.
    s.chunk.fileStart = false;
    s.chunk.data.assign(out.line);
    s.chunk.data += '\n';
    s.parser.parse(s.chunk, s.parsed);
    if (s.parsed.docs.empty()) {
        out.error = s.parsed.rejections.empty()
                        ? "the line is blank now (the file changed since it was read?)"
                        : std::string("the line is rejected now: ") +
                              toString(s.parsed.rejections.front().reason) + " " +
                              s.parsed.rejections.front().detail;
        return out;
    }
    const ParsedDocument& d = s.parsed.docs.front();
    out.id.assign(s.parsed.id(d));
    out.text.assign(s.parsed.text(d));
    out.ok = true;
    return out;
}

FetchedDocument DocumentFetcher::fetch(const DocumentTable& docs, std::size_t docIndex) {
    if (docIndex >= docs.size()) {
        FetchedDocument out;
        out.error = "document " + std::to_string(docIndex) + " is not in the dataset";
        return out;
    }
    return fetch(DocumentLocation{docs.file[docIndex], docs.line[docIndex], docs.offset[docIndex],
                                  docs.length[docIndex]},
                 docs.id(docIndex));
}

FetchedDocument DocumentFetcher::fetch(const DocumentLocation& where, std::string_view storedId) {
    FetchedDocument out = fetch(where);
    // A default id names the file as it was read ("<path>:<line>"), which a relocated input no
    // longer has: its line number must match.
    const std::string defaultSuffix = ":" + std::to_string(where.line);
    // An empty id stored by a version that kept it is the place given to it now.
    const bool sameDefault =
        out.id.ends_with(defaultSuffix) && (storedId.ends_with(defaultSuffix) || storedId.empty());
    if (out.ok && out.id != storedId && !sameDefault) {
        out.ok = false;
        out.error =
            "the project's row of this document is damaged: the line at its offset is "
            "the document '" +
            out.id.substr(0, 60) + "', not '" + std::string(storedId.substr(0, 60)) + "'";
    }
    return out;
}

namespace {

char lowerAscii(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

TextSearchResult searchTexts(DocumentFetcher& fetcher,
                             const std::vector<std::pair<uint32_t, DocumentLocation>>& docs,
                             std::string_view needle,
                             const std::function<bool(uint64_t, uint64_t)>& progress) {
    TextSearchResult out;
    std::string folded(needle);
    for (char& c : folded)
        c = lowerAscii(c);
    const auto same = [](char x, char y) { return lowerAscii(x) == y; };
    const uint64_t total = docs.size();
    for (const auto& [index, where] : docs) {
        if (progress && out.searched % 256 == 0 && !progress(out.searched, total)) {
            out.cancelled = true;
            return out;
        }
        ++out.searched;
        const FetchedDocument d = fetcher.fetch(where);
        if (!d.ok) {
            ++out.unreadable;
            continue;
        }
        if (std::search(d.text.begin(), d.text.end(), folded.begin(), folded.end(), same) !=
            d.text.end())
            out.matches.push_back(index);
    }
    if (progress) progress(out.searched, total);
    return out;
}

double exactTextJaccard(std::string_view a, std::string_view b, const SignatureParams& params) {
    Normalizer normalizer(params.normalize);
    std::vector<uint32_t> symbols;
    std::vector<uint64_t> setA, setB;
    toSymbols(params.shingle, normalizer.run(a), symbols);
    shingleSet(symbols.data(), symbols.size(), params.ngram, setA);
    toSymbols(params.shingle, normalizer.run(b), symbols);
    shingleSet(symbols.data(), symbols.size(), params.ngram, setB);
    return exactJaccard(setA, setB);
}

}  // namespace neardup
