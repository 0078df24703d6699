// The messages of an MPI job: what rank 0 asks of the other ranks and what they answer. Each
// message, and each engine type that travels inside one, lists its fields once, in a
// `fields(visitor, value)` function beside it; the codec (mpi_codec.h) writes and reads every
// message through that one list, so a field cannot be written and forgotten on read. Beside
// each list of an engine type a static_assert counts the type's members, so that a member added
// to the type fails the build here until the list has it too.
//
// The protocol (which rank sends what, when) is described in mpi_rank0_backend.cpp.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend.h"
#include "chunk_work.h"
#include "document_table.h"
#include "jsonl_reader.h"
#include "params.h"
#include "run_result.h"
#include "signatures.h"

namespace neardup::mpi {

// What a request asks for; the first field of every request on the wire.
enum class Op : uint32_t {
    Hello = 1,
    Signatures = 2,
    BandKeys = 3,
    Compare = 4,
    Stop = 5,
    BeginChunks = 6,
    Chunk = 7,
    EndChunks = 8
};
// The first field of every reply: Ok, then the reply's fields; Error, then the reason.
enum class Status : uint32_t { Ok = 0, Error = 1 };

// T or const T: one field list serves the writer (const values) and the reader alike.
template <class T, class U>
concept Is = std::same_as<std::remove_const_t<T>, U>;

namespace detail {
// Converts to any member type, to count an aggregate's members (memberCount).
struct AnyMember {
    template <class T>
    operator T() const;  // never defined: only used in unevaluated requires-expressions
};
template <class T, std::size_t... I>
constexpr bool bracesInitialize(std::index_sequence<I...>) {
    return requires {
        T{(void(I), AnyMember{})...};
    };
}
template <class T, std::size_t N = 0>
constexpr std::size_t countMembers() {
    if constexpr (!bracesInitialize<T>(std::make_index_sequence<N + 1>()))
        return N;
    else
        return countMembers<T, N + 1>();
}
}  // namespace detail

// How many members the aggregate T has.
template <class T>
constexpr std::size_t memberCount() {
    static_assert(std::is_aggregate_v<T>);
    return detail::countMembers<T>();
}

// ---------------------------------------------------------------------------------------------
// Engine types inside messages

void fields(auto& v, Is<NormalizeOptions> auto& o) {
    static_assert(memberCount<NormalizeOptions>() == 4, "a member was added: list it here");
    v(o.nfc, o.lowercase, o.collapseWhitespace, o.trim);
}

void fields(auto& v, Is<SignatureParams> auto& p) {
    static_assert(memberCount<SignatureParams>() == 7, "a member was added: list it here");
    v(p.normalize, p.shingle, p.ngram, p.hashes, p.family, p.sketch, p.seed);
}

void fields(auto& v, Is<ReaderOptions> auto& o) {
    static_assert(memberCount<ReaderOptions>() == 6, "a member was added: list it here");
    v(o.textField, o.idField, o.keepField, o.chunkBytes, o.onError, o.maxLineBytes);
}

void fields(auto& v, Is<LshParams> auto& l) {
    static_assert(memberCount<LshParams>() == 6, "a member was added: list it here");
    v(l.bands, l.rows, l.scheme, l.bucketMode, l.buckets, l.chosen);
}

void fields(auto& v, Is<HashConstants> auto& c) {
    static_assert(memberCount<HashConstants>() == 15, "a member was added: list it here");
    v(c.family, c.sketch, c.ophSalt, c.ngram, c.hashes, c.rollBase, c.rollTop, c.rollMul, c.rollAdd,
      c.fpBase, c.fpTop, c.fpSalt, c.permA, c.permB, c.fpNegDrop);
}

void fields(auto& v, Is<InputFile> auto& f) {
    static_assert(memberCount<InputFile>() == 14, "a member was added: list it here");
    v(f.path, f.size, f.mtimeNs, f.compression, f.ctimeNs, f.device, f.inode, f.fingerprinted,
      f.contentBytes, f.pin, f.pinKey, f.legacySum, f.fingerprint, f.reference);
}

void fields(auto& v, Is<PinPart> auto& p) {
    static_assert(memberCount<PinPart>() == 5, "a member was added: list it here");
    v(p.offset, p.size, p.head, p.tail, p.blocks);
}

void fields(auto& v, Is<LineChunk> auto& c) {
    static_assert(memberCount<LineChunk>() == 13, "a member was added: list it here");
    v(c.file, c.firstLine, c.baseOffset, c.data, c.fileStart, c.failure, c.failureReason, c.dropped,
      c.droppedPin, c.droppedEdges, c.parquet, c.rowGroup, c.rows);
}

void fields(auto& v, Is<Rejection> auto& r) {
    static_assert(memberCount<Rejection>() == 4, "a member was added: list it here");
    v(r.reason, r.file, r.line, r.detail);
}

// What rank 0's in-order stage needs of a chunk read on another rank. The rank sends the
// documents' ids in place of their text (keepIdsOnly), and the documents' symbol counts
// (symbols.docEnd) without the symbols: Backend::processChunk may leave those out.
// ParsedDocument travels whole, as a block of bytes.
void fields(auto& v, Is<ChunkWork> auto& w) {
    static_assert(memberCount<ChunkWork>() == 6, "a member was added: list it here");
    static_assert(memberCount<ParsedChunk>() == 7, "a member was added: list it here");
    auto& p = w.parsed;
    v(p.file, p.lines, p.blankLines, p.bytes, p.docs, p.arena, p.rejections, w.chars,
      w.symbols.docEnd, w.rows, w.parseNs, w.signNs);
}
// The rank's side: the arena keeps the documents' ids only, their text is dropped.
void keepIdsOnly(ParsedChunk& chunk);
// Rank 0's side: every id lies in the arena, one code point count and symbol count a document.
void validate(const ChunkWork& w);

// ---------------------------------------------------------------------------------------------
// Requests (rank 0 to every other rank): each names its Op.

struct HelloRequest {
    static constexpr Op kOp = Op::Hello;
};
void fields(auto&, Is<HelloRequest> auto&) {}

// The job ends: the rank returns from serveBackendRequests.
struct StopRequest {
    static constexpr Op kOp = Op::Stop;
};
void fields(auto&, Is<StopRequest> auto&) {}

// Sign a share of a batch: the share's symbols, its documents' ends counted from its start.
struct SignaturesRequest {
    static constexpr Op kOp = Op::Signatures;
    HashConstants constants;
    SymbolBatch batch;
};
void fields(auto& v, Is<SignaturesRequest> auto& m) {
    v(m.constants, m.batch.symbols, m.batch.docEnd);
}
void validate(const SignaturesRequest& m);

// Band keys of a share of the signature rows.
struct BandKeysRequest {
    static constexpr Op kOp = Op::BandKeys;
    LshParams lsh;
    uint64_t modulus = 0;
    int hashes = 0;
    std::vector<uint32_t> values;  // rows x hashes
};
void fields(auto& v, Is<BandKeysRequest> auto& m) {
    v(m.lsh, m.modulus, m.hashes, m.values);
}
void validate(const BandKeysRequest& m);

// Compare a share of one band's buckets. The share's documents travel as a compact matrix (in
// ascending document order, so that local indices compare like the global ones): their rows,
// digests and the keys of the bands before this one (keyStride of them, 0 when the
// first-collision rule has none); buckets list local document indices.
struct CompareRequestMessage {
    static constexpr Op kOp = Op::Compare;
    int band = 0;
    int hashes = 0;
    int minMatches = 0;
    int keyStride = 0;
    std::vector<uint32_t> rows;     // documents x hashes
    std::vector<uint64_t> digests;  // one per document
    std::vector<uint64_t> keys;     // documents x keyStride
    std::vector<uint32_t> members;
    std::vector<uint64_t> bucketBegin;
};
void fields(auto& v, Is<CompareRequestMessage> auto& m) {
    v(m.band, m.hashes, m.minMatches, m.keyStride, m.rows, m.digests, m.keys, m.members,
      m.bucketBegin);
}
void validate(const CompareRequestMessage& m);

// Reading starts: what a rank needs to parse, normalize and sign chunks of the run's inputs.
struct BeginChunksRequest {
    static constexpr Op kOp = Op::BeginChunks;
    std::vector<InputFile> files;
    ReaderOptions reader;
    SignatureParams signature;
    int threads = 0;  // rank 0's; a rank started without its own count reads as many at once
    HashConstants constants;
};
void fields(auto& v, Is<BeginChunksRequest> auto& m) {
    v(m.files, m.reader, m.signature, m.threads, m.constants);
}

// One chunk to read; its reply comes back tagged with the slot (kChunkReplyTag + slot). Rank 0
// writes the chunk the pipeline handed it in place (ChunkRequestRef: chunks are megabytes); a
// rank reads it into a chunk of its own (ChunkRequest).
template <class Chunk>
struct ChunkRequestOf {
    static constexpr Op kOp = Op::Chunk;
    uint32_t slot = 0;
    Chunk chunk;
};
using ChunkRequest = ChunkRequestOf<LineChunk>;
using ChunkRequestRef = ChunkRequestOf<std::reference_wrapper<const LineChunk>>;
template <class T>
concept IsChunkRequest = Is<T, ChunkRequest> || Is<T, ChunkRequestRef>;
void fields(auto& v, IsChunkRequest auto& m) {
    v(m.slot, m.chunk);
}

// Reading ends (every chunk's reply is in): the rank goes back to answering requests.
struct EndChunksRequest {
    static constexpr Op kOp = Op::EndChunks;
};
void fields(auto&, Is<EndChunksRequest> auto&) {}

// ---------------------------------------------------------------------------------------------
// Replies (a rank to rank 0), after Status::Ok. A failed request is answered with
// Status::Error and the reason instead (codec: encodeFailure).

// What a rank did for a request: its busy time, the items it handled and the bytes it read.
struct WorkDone {
    double seconds = 0;
    uint64_t items = 0;
    uint64_t bytes = 0;
};
void fields(auto& v, Is<WorkDone> auto& d) {
    v(d.seconds, d.items, d.bytes);
}

// The rank's host and backend, or why it could not build one.
struct HelloReply {
    std::string host;
    bool started = false;
    std::string backend;  // its description when started, else the reason
};
void fields(auto& v, Is<HelloReply> auto& m) {
    v(m.host, m.started, m.backend);
}

struct SignaturesReply {
    WorkDone done;
    std::vector<uint32_t> rows;  // documents x hashes
};
void fields(auto& v, Is<SignaturesReply> auto& m) {
    v(m.done, m.rows);
}

struct BandKeysReply {
    WorkDone done;
    std::vector<uint64_t> keys;  // rows x bands
};
void fields(auto& v, Is<BandKeysReply> auto& m) {
    v(m.done, m.keys);
}

struct CompareReply {
    WorkDone done;
    uint64_t decided = 0;
    std::vector<ScoredPair> pairs;  // in the request's local document indices
};
void fields(auto& v, Is<CompareReply> auto& m) {
    v(m.done, m.decided, m.pairs);
}

// How many chunks the rank reads at once.
struct BeginChunksReply {
    int threads = 0;
};
void fields(auto& v, Is<BeginChunksReply> auto& m) {
    v(m.threads);
}

struct ChunkReply {
    WorkDone done;
    ChunkWork work;
};
void fields(auto& v, Is<ChunkReply> auto& m) {
    v(m.done, m.work);
}

}  // namespace neardup::mpi
