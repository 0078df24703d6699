// The MPI job's messages and their codec (core/mpi/mpi_codec.h), without MPI: every request and
// reply, with every field set to a value other than its default, comes back equal after a write
// and a read, with empty and with large arrays; rank 0's chunk written in place reads as a chunk
// of its own; a failure carries its reason. A buffer cut short anywhere, a count past the end,
// bytes left over, a flag that is neither 0 nor 1, an unknown or unexpected request or status,
// and fields that contradict each other are refused with WireError, never read as a value. The
// comparisons below list each type's members again, on purpose: they check the codec's lists.
#include <QTest>

#include <cstring>
#include <numeric>

#include "mpi_codec.h"

using namespace neardup;
using namespace neardup::mpi;

namespace {

// --- Samples: every member set, none to its default.

HashConstants sampleConstants() {
    HashConstants c;
    c.family = HashFamily::Rolling;
    c.sketch = SketchKind::Oph;
    c.ophSalt = 0x1234567890abcdefULL;
    c.ngram = 7;
    c.hashes = 3;
    c.rollBase = {1, 2, 3};
    c.rollTop = {4, 5, 6};
    c.rollMul = {7, 8, 9};
    c.rollAdd = {10, 11, 12};
    c.fpBase = 13;
    c.fpTop = 14;
    c.fpSalt = 15;
    c.permA = {16, 17, 18};
    c.permB = {19, 20, 21};
    c.fpNegDrop = {22, 23};
    return c;
}

InputFile sampleFile(int i) {
    InputFile f;
    f.path = "/data/part-" + std::to_string(i) + ".jsonl.zst";
    f.size = 1000 + static_cast<uint64_t>(i);
    f.mtimeNs = -5 - i;
    f.compression = InputFile::Compression::Zstd;
    f.ctimeNs = 77 + i;
    f.device = 88;
    f.inode = 99 + static_cast<uint64_t>(i);
    f.fingerprinted = true;
    f.contentBytes = 4242;
    f.fingerprint = 0xfeedULL + static_cast<uint64_t>(i);
    f.legacySum = i == 1;
    f.pin = PinTag{static_cast<uint8_t>(i), 9, 8, 7};
    f.pinKey = PinKey{static_cast<uint8_t>(i + 1), 6, 5};
    return f;
}

LineChunk sampleChunk(std::size_t dataBytes) {
    LineChunk c;
    c.file = 3;
    c.firstLine = 41;
    c.baseOffset = 9000;
    c.data.resize(dataBytes);
    for (std::size_t i = 0; i < dataBytes; ++i)
        c.data[i] = static_cast<char>('a' + i % 26);
    c.fileStart = true;
    c.failure = "damaged at byte 9000";
    c.failureReason = RejectReason::LineTooLong;
    c.dropped = 12;
    c.droppedPin.offset = 9000;
    c.droppedPin.size = 12;
    c.droppedPin.head = 5;
    c.droppedPin.tail = 7;
    c.droppedPin.blocks = {PinTag{1, 2, 3}, PinTag{4}};
    c.droppedEdges = "headstail12";
    return c;
}

BeginChunksRequest sampleBeginChunks() {
    BeginChunksRequest m;
    m.files = {sampleFile(0), sampleFile(1)};
    m.reader.textField = "meta.content";
    m.reader.idField = "uid";
    m.reader.keepField = "score";
    m.reader.chunkBytes = 12345;
    m.reader.onError = OnError::Fail;
    m.reader.maxLineBytes = 777;
    m.signature.normalize = {false, false, false, false};
    m.signature.shingle = ShingleKind::Word;
    m.signature.ngram = 3;
    m.signature.hashes = 3;
    m.signature.family = HashFamily::Rolling;
    m.signature.sketch = SketchKind::Oph;
    m.signature.seed = 99;
    m.threads = 6;
    m.constants = sampleConstants();
    return m;
}

// A chunk's work as a rank sends it: two documents with their ids in the arena.
ChunkWork sampleWork() {
    ChunkWork w;
    ParsedChunk& p = w.parsed;
    p.file = 2;
    p.arena = "doc-1doc-22";
    ParsedDocument a;
    a.line = 5;
    a.offset = 100;
    a.length = 50;
    a.idBegin = 0;
    a.idLength = 5;
    a.keepValue = 0.5;
    ParsedDocument b = a;
    b.line = 6;
    b.offset = 151;
    b.idBegin = 5;
    b.idLength = 6;
    b.keepValue = 2.5;
    p.docs = {a, b};
    p.rejections = {{RejectReason::InvalidUtf8, 2, 7, "bad byte"},
                    {RejectReason::MissingText, 2, 8, ""}};
    p.lines = 9;
    p.blankLines = 1;
    p.bytes = 400;
    w.symbols.docEnd = {10, 25};
    w.chars = {12, 30};
    w.rows = {1, 2, 3, 4, 5, 6};
    w.parseNs = 1111;
    w.signNs = 2222;
    return w;
}

CompareRequestMessage sampleCompare() {
    CompareRequestMessage m;
    m.band = 2;
    m.hashes = 2;
    m.minMatches = 1;
    m.keyStride = 2;
    m.rows = {1, 2, 3, 4, 5, 6};
    m.digests = {7, 8, 9};
    m.keys = {10, 11, 12, 13, 14, 15};
    m.members = {0, 2, 1, 2};
    m.bucketBegin = {0, 2, 4};
    return m;
}

// --- Comparisons, member by member.

void check(const HashConstants& a, const HashConstants& b) {
    QCOMPARE(a.family, b.family);
    QCOMPARE(a.sketch, b.sketch);
    QCOMPARE(a.ophSalt, b.ophSalt);
    QCOMPARE(a.ngram, b.ngram);
    QCOMPARE(a.hashes, b.hashes);
    QCOMPARE(a.rollBase, b.rollBase);
    QCOMPARE(a.rollTop, b.rollTop);
    QCOMPARE(a.rollMul, b.rollMul);
    QCOMPARE(a.rollAdd, b.rollAdd);
    QCOMPARE(a.fpBase, b.fpBase);
    QCOMPARE(a.fpTop, b.fpTop);
    QCOMPARE(a.fpSalt, b.fpSalt);
    QCOMPARE(a.permA, b.permA);
    QCOMPARE(a.permB, b.permB);
    QCOMPARE(a.fpNegDrop, b.fpNegDrop);
}

void check(const InputFile& a, const InputFile& b) {
    QCOMPARE(a.path, b.path);
    QCOMPARE(a.size, b.size);
    QCOMPARE(a.mtimeNs, b.mtimeNs);
    QCOMPARE(a.compression, b.compression);
    QCOMPARE(a.ctimeNs, b.ctimeNs);
    QCOMPARE(a.device, b.device);
    QCOMPARE(a.inode, b.inode);
    QCOMPARE(a.fingerprinted, b.fingerprinted);
    QCOMPARE(a.contentBytes, b.contentBytes);
    QCOMPARE(a.fingerprint, b.fingerprint);
    QCOMPARE(a.legacySum, b.legacySum);
    QVERIFY(a.pin == b.pin);
    QVERIFY(a.pinKey == b.pinKey);
}

void check(const LineChunk& a, const LineChunk& b) {
    QCOMPARE(a.file, b.file);
    QCOMPARE(a.firstLine, b.firstLine);
    QCOMPARE(a.baseOffset, b.baseOffset);
    QVERIFY(a.data == b.data);
    QCOMPARE(a.fileStart, b.fileStart);
    QCOMPARE(a.failure, b.failure);
    QCOMPARE(a.failureReason, b.failureReason);
    QCOMPARE(a.dropped, b.dropped);
    QCOMPARE(a.droppedPin.offset, b.droppedPin.offset);
    QCOMPARE(a.droppedPin.size, b.droppedPin.size);
    QCOMPARE(a.droppedPin.head, b.droppedPin.head);
    QCOMPARE(a.droppedPin.tail, b.droppedPin.tail);
    QVERIFY(a.droppedPin.blocks == b.droppedPin.blocks);
    QCOMPARE(a.droppedEdges, b.droppedEdges);
}

void check(const ChunkWork& a, const ChunkWork& b) {
    QCOMPARE(a.parsed.file, b.parsed.file);
    QCOMPARE(a.parsed.lines, b.parsed.lines);
    QCOMPARE(a.parsed.blankLines, b.parsed.blankLines);
    QCOMPARE(a.parsed.bytes, b.parsed.bytes);
    QCOMPARE(a.parsed.arena, b.parsed.arena);
    QCOMPARE(a.parsed.docs.size(), b.parsed.docs.size());
    for (std::size_t i = 0; i < a.parsed.docs.size(); ++i) {
        const ParsedDocument &x = a.parsed.docs[i], &y = b.parsed.docs[i];
        QCOMPARE(x.line, y.line);
        QCOMPARE(x.offset, y.offset);
        QCOMPARE(x.length, y.length);
        QCOMPARE(x.textBegin, y.textBegin);
        QCOMPARE(x.textLength, y.textLength);
        QCOMPARE(x.idBegin, y.idBegin);
        QCOMPARE(x.idLength, y.idLength);
        QCOMPARE(x.keepValue, y.keepValue);
    }
    QCOMPARE(a.parsed.rejections.size(), b.parsed.rejections.size());
    for (std::size_t i = 0; i < a.parsed.rejections.size(); ++i) {
        const Rejection &x = a.parsed.rejections[i], &y = b.parsed.rejections[i];
        QCOMPARE(x.reason, y.reason);
        QCOMPARE(x.file, y.file);
        QCOMPARE(x.line, y.line);
        QCOMPARE(x.detail, y.detail);
    }
    QCOMPARE(a.symbols.docEnd, b.symbols.docEnd);
    QVERIFY(b.symbols.symbols.empty());  // never sent
    QCOMPARE(a.chars, b.chars);
    QCOMPARE(a.rows, b.rows);
    QCOMPARE(a.parseNs, b.parseNs);
    QCOMPARE(a.signNs, b.signNs);
}

void check(const WorkDone& a, const WorkDone& b) {
    QCOMPARE(a.seconds, b.seconds);
    QCOMPARE(a.items, b.items);
    QCOMPARE(a.bytes, b.bytes);
}

template <class Request>
Request requestRoundTrip(const Request& request) {
    const std::vector<char> bytes = encodeRequest(request);
    [&] { QCOMPARE(requestOp(bytes), Request::kOp); }();
    return decodeRequest<Request>(bytes);
}

template <class Reply>
Reply replyRoundTrip(const Reply& reply) {
    const Answer<Reply> answer = decodeReply<Reply>(encodeReply(reply));
    [&] { QVERIFY(answer.ok); }();
    return answer.value;
}

// Runs f, which must throw WireError; its text then names the trouble.
template <class F>
bool refused(F f, const char* trouble = "") {
    try {
        f();
    } catch (const WireError& e) {
        const std::string what = e.what();
        return what.rfind("malformed MPI message (", 0) == 0 &&
               what.find(trouble) != std::string::npos;
    }
    return false;
}

}  // namespace

class TestMpiCodec : public QObject {
    Q_OBJECT

  private slots:
    void memberCountCountsAggregates() {
        QCOMPARE(memberCount<WorkDone>(), std::size_t{3});
        QCOMPARE(memberCount<HelloReply>(), std::size_t{3});
        QCOMPARE(memberCount<CompareRequestMessage>(), std::size_t{9});
        QCOMPARE(memberCount<NormalizeOptions>(), std::size_t{4});
        QCOMPARE(memberCount<SignatureParams>(), std::size_t{7});  // a nested struct counts once
    }

    void requestsRoundTrip() {
        requestRoundTrip(HelloRequest{});
        requestRoundTrip(StopRequest{});
        requestRoundTrip(EndChunksRequest{});

        SignaturesRequest sig;
        sig.constants = sampleConstants();
        sig.batch.symbols = {5, 6, 7, 8, 9};
        sig.batch.docEnd = {2, 2, 5};
        const SignaturesRequest sigBack = requestRoundTrip(sig);
        check(sigBack.constants, sig.constants);
        QCOMPARE(sigBack.batch.symbols, sig.batch.symbols);
        QCOMPARE(sigBack.batch.docEnd, sig.batch.docEnd);

        BandKeysRequest keys;
        keys.lsh = {4, 2, BandKeyScheme::Sum, BucketMode::Fixed, 1u << 20};
        keys.modulus = 1000003;
        keys.hashes = 8;
        keys.values.resize(24);
        std::iota(keys.values.begin(), keys.values.end(), 100u);
        const BandKeysRequest keysBack = requestRoundTrip(keys);
        QCOMPARE(keysBack.lsh.bands, 4);
        QCOMPARE(keysBack.lsh.rows, 2);
        QCOMPARE(keysBack.lsh.scheme, BandKeyScheme::Sum);
        QCOMPARE(keysBack.lsh.bucketMode, BucketMode::Fixed);
        QCOMPARE(keysBack.lsh.buckets, uint64_t{1} << 20);
        QCOMPARE(keysBack.modulus, keys.modulus);
        QCOMPARE(keysBack.hashes, keys.hashes);
        QCOMPARE(keysBack.values, keys.values);

        const CompareRequestMessage cmp = sampleCompare();
        const CompareRequestMessage cmpBack = requestRoundTrip(cmp);
        QCOMPARE(cmpBack.band, cmp.band);
        QCOMPARE(cmpBack.hashes, cmp.hashes);
        QCOMPARE(cmpBack.minMatches, cmp.minMatches);
        QCOMPARE(cmpBack.keyStride, cmp.keyStride);
        QCOMPARE(cmpBack.rows, cmp.rows);
        QCOMPARE(cmpBack.digests, cmp.digests);
        QCOMPARE(cmpBack.keys, cmp.keys);
        QCOMPARE(cmpBack.members, cmp.members);
        QCOMPARE(cmpBack.bucketBegin, cmp.bucketBegin);

        const BeginChunksRequest begin = sampleBeginChunks();
        const BeginChunksRequest beginBack = requestRoundTrip(begin);
        QCOMPARE(beginBack.files.size(), std::size_t{2});
        for (std::size_t i = 0; i < 2; ++i)
            check(beginBack.files[i], begin.files[i]);
        QCOMPARE(beginBack.reader.textField, begin.reader.textField);
        QCOMPARE(beginBack.reader.idField, begin.reader.idField);
        QCOMPARE(beginBack.reader.keepField, begin.reader.keepField);
        QCOMPARE(beginBack.reader.chunkBytes, begin.reader.chunkBytes);
        QCOMPARE(beginBack.reader.onError, begin.reader.onError);
        QCOMPARE(beginBack.reader.maxLineBytes, begin.reader.maxLineBytes);
        const SignatureParams &s = beginBack.signature, &t = begin.signature;
        QCOMPARE(s.normalize.nfc, false);
        QCOMPARE(s.normalize.lowercase, false);
        QCOMPARE(s.normalize.collapseWhitespace, false);
        QCOMPARE(s.normalize.trim, false);
        QCOMPARE(s.shingle, t.shingle);
        QCOMPARE(s.ngram, t.ngram);
        QCOMPARE(s.hashes, t.hashes);
        QCOMPARE(s.family, t.family);
        QCOMPARE(s.sketch, t.sketch);
        QCOMPARE(s.seed, t.seed);
        QCOMPARE(beginBack.threads, begin.threads);
        check(beginBack.constants, begin.constants);
    }

    // Rank 0 writes the pipeline's chunk in place; the rank reads a chunk of its own.
    void chunkWrittenInPlaceReadsAsItsOwn() {
        const LineChunk chunk = sampleChunk(1000);
        const std::vector<char> bytes = encodeRequest(ChunkRequestRef{17, std::cref(chunk)});
        QCOMPARE(requestOp(bytes), Op::Chunk);
        const ChunkRequest back = decodeRequest<ChunkRequest>(bytes);
        QCOMPARE(back.slot, 17u);
        check(back.chunk, chunk);
        ChunkRequest owned{17, chunk};
        QVERIFY(encodeRequest(owned) == bytes);
    }

    void repliesRoundTrip() {
        const HelloReply hello{"node07", true, "cpu (4 threads)"};
        const HelloReply helloBack = replyRoundTrip(hello);
        QCOMPARE(helloBack.host, hello.host);
        QCOMPARE(helloBack.started, true);
        QCOMPARE(helloBack.backend, hello.backend);
        QCOMPARE(replyRoundTrip(HelloReply{"n", false, "why"}).started, false);

        const WorkDone done{1.25, 7, 4096};
        const SignaturesReply sig = replyRoundTrip(SignaturesReply{done, {1, 2, 3}});
        check(sig.done, done);
        QCOMPARE(sig.rows, (std::vector<uint32_t>{1, 2, 3}));
        const BandKeysReply keys = replyRoundTrip(BandKeysReply{done, {9, 8}});
        check(keys.done, done);
        QCOMPARE(keys.keys, (std::vector<uint64_t>{9, 8}));
        const CompareReply cmp =
            replyRoundTrip(CompareReply{done, 42, {{0, 1, 100, 0.5f}, {2, 3, 90, -1.0f}}});
        check(cmp.done, done);
        QCOMPARE(cmp.decided, uint64_t{42});
        QCOMPARE(cmp.pairs.size(), std::size_t{2});
        QCOMPARE(cmp.pairs[1].a, 2u);
        QCOMPARE(cmp.pairs[1].b, 3u);
        QCOMPARE(cmp.pairs[1].matches, 90u);
        QCOMPARE(cmp.pairs[0].exact, 0.5f);
        QCOMPARE(replyRoundTrip(BeginChunksReply{5}).threads, 5);

        const ChunkWork work = sampleWork();
        const ChunkReply chunk = replyRoundTrip(ChunkReply{done, work});
        check(chunk.done, done);
        check(chunk.work, work);
    }

    void failureCarriesItsReason() {
        const Answer<CompareReply> a = decodeReply<CompareReply>(encodeFailure("out of memory"));
        QVERIFY(!a.ok);
        QCOMPARE(a.failure, std::string("out of memory"));
        QVERIFY(!decodeReply<HelloReply>(encodeFailure("")).ok);
    }

    void emptyArraysRoundTrip() {
        SignaturesRequest sig;
        sig.constants = sampleConstants();
        const SignaturesRequest back = requestRoundTrip(sig);
        QVERIFY(back.batch.symbols.empty() && back.batch.docEnd.empty());

        CompareRequestMessage cmp;  // a rank's share with no buckets
        cmp.hashes = 4;
        cmp.bucketBegin = {0};
        const CompareRequestMessage cmpBack = requestRoundTrip(cmp);
        QVERIFY(cmpBack.rows.empty() && cmpBack.members.empty());
        QCOMPARE(cmpBack.bucketBegin, std::vector<uint64_t>{0});

        BeginChunksRequest begin;
        begin.constants.hashes = 1;
        QVERIFY(requestRoundTrip(begin).files.empty());
        QCOMPARE(requestRoundTrip(begin).reader.textField, std::string("text"));

        ChunkWork empty;
        const ChunkReply chunk = replyRoundTrip(ChunkReply{{}, empty});
        QVERIFY(chunk.work.parsed.docs.empty() && chunk.work.parsed.arena.empty());
        QVERIFY(replyRoundTrip(CompareReply{}).pairs.empty());
        const ChunkRequest c = decodeRequest<ChunkRequest>(encodeRequest(ChunkRequest{}));
        QVERIFY(c.chunk.data.empty());
    }

    void largeArraysRoundTrip() {
        SignaturesRequest sig;
        sig.constants = sampleConstants();
        sig.batch.symbols.resize(3'000'000);
        std::iota(sig.batch.symbols.begin(), sig.batch.symbols.end(), 1u);
        for (uint64_t end = 1000; end <= sig.batch.symbols.size(); end += 1000)
            sig.batch.docEnd.push_back(end);
        const SignaturesRequest back = requestRoundTrip(sig);
        QVERIFY(back.batch.symbols == sig.batch.symbols);
        QVERIFY(back.batch.docEnd == sig.batch.docEnd);

        const LineChunk chunk = sampleChunk(std::size_t{9} << 20);
        const ChunkRequest c =
            decodeRequest<ChunkRequest>(encodeRequest(ChunkRequestRef{3, std::cref(chunk)}));
        check(c.chunk, chunk);

        CompareReply pairs;
        for (uint32_t i = 0; i < 500'000; ++i)
            pairs.pairs.push_back({i, i + 1, i % 128, -1.0f});
        const CompareReply pairsBack = replyRoundTrip(pairs);
        QCOMPARE(pairsBack.pairs.size(), pairs.pairs.size());
        QVERIFY(std::memcmp(pairsBack.pairs.data(), pairs.pairs.data(),
                            pairs.pairs.size() * sizeof(ScoredPair)) == 0);
    }

    // Every strict prefix of every message is refused.
    void truncatedBuffersAreRefused() {
        std::vector<std::vector<char>> requests = {encodeRequest(sampleBeginChunks()),
                                                   encodeRequest(sampleCompare()),
                                                   encodeRequest(ChunkRequest{2, sampleChunk(40)})};
        for (std::size_t n = 0; n < requests[0].size(); ++n)
            QVERIFY(refused(
                [&] { decodeRequest<BeginChunksRequest>(std::span(requests[0].data(), n)); }));
        for (std::size_t n = 0; n < requests[1].size(); ++n)
            QVERIFY(refused(
                [&] { decodeRequest<CompareRequestMessage>(std::span(requests[1].data(), n)); }));
        for (std::size_t n = 0; n < requests[2].size(); ++n)
            QVERIFY(
                refused([&] { decodeRequest<ChunkRequest>(std::span(requests[2].data(), n)); }));
        const std::vector<char> reply = encodeReply(ChunkReply{{1, 2, 3}, sampleWork()});
        for (std::size_t n = 0; n < reply.size(); ++n)
            QVERIFY(refused([&] { decodeReply<ChunkReply>(std::span(reply.data(), n)); }));
        const std::vector<char> failure = encodeFailure("reason");
        for (std::size_t n = 0; n < failure.size(); ++n)
            QVERIFY(refused([&] { decodeReply<SignaturesReply>(std::span(failure.data(), n)); }));
        QVERIFY(refused([] { requestOp({}); }, "truncated"));
    }

    void corruptBuffersAreRefused() {
        // A count far past the end of the buffer: the first array of BandKeysRequest.values.
        BandKeysRequest keys;
        keys.hashes = 2;
        keys.values = {1, 2};
        std::vector<char> bytes = encodeRequest(keys);
        const uint64_t huge = uint64_t{1} << 60;
        std::memcpy(bytes.data() + bytes.size() - 2 * sizeof(uint32_t) - sizeof huge, &huge,
                    sizeof huge);
        QVERIFY(refused([&] { decodeRequest<BandKeysRequest>(bytes); }, "array past its end"));

        // Bytes left over.
        bytes = encodeRequest(keys);
        bytes.push_back(0);
        QVERIFY(refused([&] { decodeRequest<BandKeysRequest>(bytes); }, "bytes after its end"));

        // A flag that is neither 0 nor 1 (HelloReply.started follows Status and the host).
        bytes = encodeReply(HelloReply{"h", true, "cpu"});
        bytes[sizeof(Status) + sizeof(uint64_t) + 1] = 2;
        QVERIFY(refused([&] { decodeReply<HelloReply>(bytes); }, "neither 0 nor 1"));

        // An unknown request, another request than expected, an unknown status.
        bytes = encodeRequest(HelloRequest{});
        const uint32_t unknown = 99;
        std::memcpy(bytes.data(), &unknown, sizeof unknown);
        QVERIFY(refused([&] { requestOp(bytes); }, "unknown request 99"));
        QVERIFY(refused([&] { decodeRequest<HelloRequest>(bytes); }, "another request"));
        QVERIFY(refused([&] { decodeRequest<StopRequest>(encodeRequest(HelloRequest{})); },
                        "another request"));
        bytes = encodeReply(BeginChunksReply{1});
        std::memcpy(bytes.data(), &unknown, sizeof unknown);
        QVERIFY(refused([&] { decodeReply<BeginChunksReply>(bytes); }, "unknown status"));
    }

    // Fields that contradict each other would make a rank read past an array.
    void inconsistentMessagesAreRefused() {
        ChunkWork work = sampleWork();
        work.parsed.docs[1].idLength = 100;  // past the arena
        QVERIFY(refused(
            [&] {
                decodeReply<ChunkReply>(encodeReply(ChunkReply{{}, work}));
            },
            "document id"));
        work = sampleWork();
        work.chars.pop_back();
        QVERIFY(refused(
            [&] {
                decodeReply<ChunkReply>(encodeReply(ChunkReply{{}, work}));
            },
            "chunk documents"));

        SignaturesRequest sig;
        sig.constants = sampleConstants();
        sig.batch.symbols = {1, 2, 3};
        sig.batch.docEnd = {2, 4};  // past the symbols
        QVERIFY(refused([&] { decodeRequest<SignaturesRequest>(encodeRequest(sig)); },
                        "document ends"));
        sig.batch.docEnd = {3, 2};  // not in order
        QVERIFY(refused([&] { decodeRequest<SignaturesRequest>(encodeRequest(sig)); },
                        "document ends"));

        BandKeysRequest keys;
        keys.hashes = 4;
        keys.values = {1, 2, 3};  // not whole rows
        QVERIFY(refused([&] { decodeRequest<BandKeysRequest>(encodeRequest(keys)); },
                        "signature rows"));

        CompareRequestMessage cmp = sampleCompare();
        cmp.members[3] = 3;  // no such document
        QVERIFY(refused([&] { decodeRequest<CompareRequestMessage>(encodeRequest(cmp)); },
                        "bucket member"));
        cmp = sampleCompare();
        cmp.bucketBegin = {0, 2, 3};  // does not end at the members' end
        QVERIFY(refused([&] { decodeRequest<CompareRequestMessage>(encodeRequest(cmp)); },
                        "bucket bounds"));
        cmp = sampleCompare();
        cmp.keys.pop_back();
        QVERIFY(refused([&] { decodeRequest<CompareRequestMessage>(encodeRequest(cmp)); },
                        "document matrix"));
    }

    // A rank sends its documents' ids in place of their text.
    void chunkWorkKeepsIdsOnly() {
        ParsedChunk p;
        p.arena = "first textID-Asecond textID-BB";
        ParsedDocument a, b;
        a.textBegin = 0;
        a.textLength = 10;
        a.idBegin = 10;
        a.idLength = 4;
        b.textBegin = 14;
        b.textLength = 11;
        b.idBegin = 25;
        b.idLength = 5;
        p.docs = {a, b};
        keepIdsOnly(p);
        QCOMPARE(p.arena, std::string("ID-AID-BB"));
        QCOMPARE(std::string(p.id(p.docs[0])), std::string("ID-A"));
        QCOMPARE(std::string(p.id(p.docs[1])), std::string("ID-BB"));
        QCOMPARE(p.docs[1].textLength, 0u);
    }
};

QTEST_GUILESS_MAIN(TestMpiCodec)
#include "test_mpi_codec.moc"
