#include "document_table.h"

namespace neardup {

void DocumentTable::clear() {
    file.clear();
    line.clear();
    offset.clear();
    length.clear();
    chars.clear();
    keepValue.clear();
    idArena.clear();
    idEnd.clear();
    referenceDocuments = 0;
}

void DocumentTable::markReference(uint32_t referenceFiles) {
    // Documents are in input order, so the reference's are the ones before the first document
    // of a later file.
    std::size_t n = 0;
    while (n < file.size() && file[n] < referenceFiles)
        ++n;
    referenceDocuments = static_cast<uint32_t>(n);
}

void DocumentTable::reserve(std::size_t n) {
    file.reserve(n);
    line.reserve(n);
    offset.reserve(n);
    length.reserve(n);
    chars.reserve(n);
    keepValue.reserve(n);
    idEnd.reserve(n);
}

void DocumentTable::append(uint32_t fileIndex, uint64_t lineNo, uint64_t byteOffset,
                           uint32_t byteLength, uint32_t charCount, double keep,
                           std::string_view docId) {
    file.push_back(fileIndex);
    line.push_back(lineNo);
    offset.push_back(byteOffset);
    length.push_back(byteLength);
    chars.push_back(charCount);
    keepValue.push_back(keep);
    idArena.append(docId);
    idEnd.push_back(idArena.size());
}

void DocumentTable::append(const DocumentTable& more) {
    const auto add = [](auto& to, const auto& from) {
        to.insert(to.end(), from.begin(), from.end());
    };
    add(file, more.file);
    add(line, more.line);
    add(offset, more.offset);
    add(length, more.length);
    add(chars, more.chars);
    add(keepValue, more.keepValue);
    const uint64_t before = idArena.size();
    idArena += more.idArena;
    idEnd.reserve(idEnd.size() + more.idEnd.size());
    for (const uint64_t end : more.idEnd)
        idEnd.push_back(before + end);
}

}  // namespace neardup
