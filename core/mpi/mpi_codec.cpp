// The codec's parts that are not templates: the first field of requests and failures, and the
// checks a decoded message must pass before a rank uses it (a corrupt count or index would
// otherwise read past an array).
#include "mpi_codec.h"

#include <algorithm>
#include <string_view>

namespace neardup::mpi {

Op requestOp(std::span<const char> bytes) {
    Reader r(bytes);
    Op op{};
    r(op);
    switch (op) {
        case Op::Hello:
        case Op::Signatures:
        case Op::BandKeys:
        case Op::Compare:
        case Op::Stop:
        case Op::BeginChunks:
        case Op::Chunk:
        case Op::EndChunks:
            return op;
    }
    throw WireError("unknown request " + std::to_string(static_cast<uint32_t>(op)));
}

std::vector<char> encodeFailure(const std::string& reason) {
    Writer w;
    w(Status::Error, reason);
    return w.take();
}

void keepIdsOnly(ParsedChunk& chunk) {
    std::string ids;
    for (ParsedDocument& d : chunk.docs) {
        const std::string_view id = chunk.id(d);
        d.idBegin = static_cast<uint32_t>(ids.size());
        ids.append(id);
        d.textBegin = 0;
        d.textLength = 0;
    }
    chunk.arena = std::move(ids);
}

void validate(const ChunkWork& w) {
    const ParsedChunk& p = w.parsed;
    for (const ParsedDocument& d : p.docs)
        if (uint64_t{d.idBegin} + d.idLength > p.arena.size()) throw WireError("document id");
    if (w.chars.size() != p.docs.size() || w.symbols.docEnd.size() != p.docs.size())
        throw WireError("chunk documents");
}

namespace {
// Ends of consecutive ranges: non-decreasing, the last one `total`.
bool endsCover(const std::vector<uint64_t>& ends, uint64_t first, uint64_t total) {
    if (ends.empty()) return total == 0;
    return ends.front() >= first && std::is_sorted(ends.begin(), ends.end()) &&
           ends.back() == total;
}
}  // namespace

void validate(const SignaturesRequest& m) {
    if (m.constants.hashes <= 0) throw WireError("signature length");
    if (!endsCover(m.batch.docEnd, 0, m.batch.symbols.size())) throw WireError("document ends");
}

void validate(const BandKeysRequest& m) {
    if (m.hashes <= 0 || m.values.size() % static_cast<std::size_t>(m.hashes) != 0)
        throw WireError("signature rows");
}

void validate(const CompareRequestMessage& m) {
    const std::size_t docs = m.digests.size();
    if (m.hashes <= 0 || m.keyStride < 0 ||
        m.rows.size() / static_cast<std::size_t>(m.hashes) != docs ||
        m.rows.size() % static_cast<std::size_t>(m.hashes) != 0 ||
        m.keys.size() != docs * static_cast<std::size_t>(m.keyStride))
        throw WireError("document matrix");
    if (m.bucketBegin.empty() || m.bucketBegin.front() != 0 ||
        !endsCover(m.bucketBegin, 0, m.members.size()))
        throw WireError("bucket bounds");
    for (const uint32_t member : m.members)
        if (member >= docs) throw WireError("bucket member");
}

}  // namespace neardup::mpi
