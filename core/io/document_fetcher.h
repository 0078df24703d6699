// Showing a document again: its input line is read back by file and byte range (recorded when
// the dataset was read) and parsed with the same reader options, so the text is exactly what
// the engine saw, without rescanning the corpus.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "document_table.h"
#include "params.h"

namespace neardup {

// For a Parquet input: line is the 1-based row of the file, offset the row group and length the
// row within it (document_table.h).
struct DocumentLocation {
    uint32_t file = 0;    // index into the dataset's files
    uint64_t line = 0;    // 1-based line number
    uint64_t offset = 0;  // byte offset of the line in the (decompressed) file
    uint32_t length = 0;  // bytes of the line without its terminator
};

struct FetchedDocument {
    bool ok = false;
    std::string id;
    std::string text;   // unescaped text field
    std::string line;   // the input line, byte for byte (a Parquet row: its id and text as JSON)
    std::string error;  // why ok is false: unreadable file, changed file, rejected line
};

// Not thread-safe: one fetcher per thread. Plain files are read with pread, so requests may
// come in any order; compressed files are streamed forward and reopened for a backward jump.
// A Parquet row group is decoded once for the requests of its rows that follow each other.
class DocumentFetcher {
  public:
    DocumentFetcher(std::vector<InputFile> files, ReaderOptions reader);
    ~DocumentFetcher();
    DocumentFetcher(const DocumentFetcher&) = delete;
    DocumentFetcher& operator=(const DocumentFetcher&) = delete;

    FetchedDocument fetch(const DocumentLocation& where);
    // The document a project's row names: the line at its location must be the document with
    // `storedId` (a moved or swapped row would show another document under this one's name);
    // otherwise ok is false and error says the row is damaged.
    FetchedDocument fetch(const DocumentLocation& where, std::string_view storedId);
    FetchedDocument fetch(const DocumentTable& docs, std::size_t docIndex);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct TextSearchResult {
    std::vector<uint32_t> matches;  // document indices, in the order searched
    uint64_t searched = 0;          // documents read so far
    uint64_t unreadable = 0;        // documents that could not be read back (skipped)
    bool cancelled = false;
};

// Reads the given documents back (index and location, best in input order so that files are
// read forward) and returns those whose text contains `needle`, ignoring ASCII case.
// `progress(searched, total)` is called every 256 documents and at the end; returning false
// cancels the search, which then returns what it found so far.
TextSearchResult searchTexts(DocumentFetcher& fetcher,
                             const std::vector<std::pair<uint32_t, DocumentLocation>>& docs,
                             std::string_view needle,
                             const std::function<bool(uint64_t, uint64_t)>& progress = nullptr);

// Exact Jaccard of the two texts' shingle sets under `params` (normalization, shingle kind and
// size), as --verify exact computes it.
double exactTextJaccard(std::string_view a, std::string_view b, const SignatureParams& params);

}  // namespace neardup
