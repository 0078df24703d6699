// The documents of a dataset, in input order, as parallel arrays (one entry per document).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neardup {

// A content pin (core/io/content_pin.h): the project's key and a file's tag under it.
using PinKey = std::array<uint8_t, 32>;
using PinTag = std::array<uint8_t, 16>;

// An input file, pinned (core/io/input_pin.h): its canonical absolute path and what identifies
// its content, so that stored byte offsets are used only on the very file they came from.
struct InputFile {
    std::string path;
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    enum class Compression { None, Gzip, Zstd } compression = Compression::None;
    // Identity at the time it was listed (0 where unknown: projects of schema version < 3).
    int64_t ctimeNs = 0;
    uint64_t device = 0, inode = 0;
    // Content fingerprint, computed while the file is read (input_pin.h): the decompressed
    // bytes read and their fingerprint; `fingerprinted` is false where it is unknown (a file
    // that could not be read to its end, or a project of schema version < 3).
    bool fingerprinted = false;
    uint64_t contentBytes = 0;
    // The content pin (content_pin.h) under `pinKey`, the project's key; or, where
    // `legacySum` is set (projects of schema versions 3 to 5), `fingerprint`, a 64-bit
    // position-weighted sum of the bytes that anyone can match with an edit of their own.
    PinTag pin{};
    PinKey pinKey{};
    bool legacySum = false;
    uint64_t fingerprint = 0;
    // A file of the run's reference (`--reference`): read and compared, never written from.
    bool reference = false;
};

const char* toString(InputFile::Compression c);

struct DocumentTable {
    // Where each document's input line lives: file index, 1-based line number, byte offset of
    // the line in the (decompressed) file and its length without the line terminator. For a
    // Parquet input: file index, 1-based row of the file, row group, and row within the group.
    std::vector<uint32_t> file;
    std::vector<uint64_t> line;
    std::vector<uint64_t> offset;
    std::vector<uint32_t> length;
    // Code points of the normalized text; documents shorter than the shingle size are never
    // candidates (they keep a well-defined signature but skip LSH).
    std::vector<uint32_t> chars;
    std::vector<double> keepValue;  // value of the --keep max:FIELD field, NaN when absent
    std::string idArena;            // ids back to back
    std::vector<uint64_t> idEnd;    // end offset of id i in idArena
    // Documents [0, referenceDocuments) come from the run's reference (`--reference`): read
    // first, ahead of every new document, never removed and never written to an output. They
    // are a prefix because the reference's files are the dataset's first files.
    uint32_t referenceDocuments = 0;

    std::size_t size() const { return file.size(); }
    bool reference(std::size_t i) const { return i < referenceDocuments; }
    // Counts the documents of the first `referenceFiles` files into referenceDocuments.
    void markReference(uint32_t referenceFiles);
    std::string_view id(std::size_t i) const {
        const uint64_t begin = i == 0 ? 0 : idEnd[i - 1];
        return std::string_view(idArena).substr(begin, idEnd[i] - begin);
    }
    void clear();
    void reserve(std::size_t n);
    void append(uint32_t fileIndex, uint64_t lineNo, uint64_t byteOffset, uint32_t byteLength,
                uint32_t charCount, double keep, std::string_view docId);
    // Appends every document of `more` after these (their ids' ends moved past these ids).
    void append(const DocumentTable& more);
};

}  // namespace neardup
