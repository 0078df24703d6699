// Rank 0's backend (MpiBackend): spreads every backend call over all ranks and gathers the
// results in order, so that outputs are identical to a single-process run by construction.
// Reading chunks on the other ranks is in mpi_rank0_chunks.cpp.
//
// Protocol (mpi_messages.h, over the transport's communicator): rank 0 sends a request (tag
// kRequestTag) to every other rank, always to all of them and in rank order, even when a rank's
// share is empty; each rank answers with one reply (tag kReplyTag): Ok with its busy time, item
// count and results, or Error with the reason. Requests are sent with blocking sends (the ranks
// poll for them), then rank 0 computes its own share, then it receives the replies in rank
// order, all of them even when one reports an error, so that the ranks stay in step and the
// final Stop message always finds them listening.
//
// Reading (BeginChunks, an exchange like the others, whose replies give each rank's threads,
// then Chunk requests, then EndChunks): rank 0's pipeline threads queue chunks, each for a free
// slot of a rank; one communication thread on rank 0 sends them (nonblocking) and receives the
// replies, tagged kChunkReplyTag + slot, in whatever order they come. A rank reads its chunks
// on its threads while its main thread keeps receiving requests and sending replies; EndChunks
// (sent once every reply is in) or Stop returns it to the request loop.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "mpi_rank0_state.h"
#include "work_split.h"

namespace neardup::mpi {

namespace {

// A rank's result array, checked against the share it was sent.
template <class T>
void copyShare(const std::vector<T>& got, std::size_t expected, T* out) {
    if (got.size() != expected) throw WireError("array size");
    std::copy(got.begin(), got.end(), out);
}

}  // namespace

MpiBackend::MpiBackend(Job& job, std::unique_ptr<Backend> local, const std::atomic<bool>* cancel)
    : state_(std::make_unique<State>(job.impl(), std::move(local), cancel)) {
    State& s = *state_;
    const auto n = static_cast<std::size_t>(s.size());
    s.hosts.assign(n, std::string());
    s.backends.assign(n, std::string());
    s.hosts[0] = job.host();
    s.backends[0] = s.local->description();
    s.pending.resize(n * kPhases);
    for (std::size_t r = 0; r < n; ++r)
        for (int p = 0; p < kPhases; ++p) {
            WorkerTiming& t = s.pending[r * kPhases + static_cast<std::size_t>(p)];
            t.worker = static_cast<int>(r);
            t.phase = kPhaseNames[p];
        }
    s.total = s.pending;
    // Hello: each rank's host and backend, or why it has none. The first error is kept and
    // thrown by the first backend call.
    const std::vector<char> hello = encodeRequest(HelloRequest{});
    for (int r = 1; r < s.size(); ++r)
        s.transport.send(r, kRequestTag, hello);
    for (int r = 1; r < s.size(); ++r) {
        const std::vector<char> bytes =
            s.transport.receive(r, kReplyTag, std::chrono::microseconds(500), s.cancel);
        const Answer<HelloReply> answer = decodeReply<HelloReply>(bytes);
        if (!answer.ok) throw std::runtime_error(answer.failure);
        const HelloReply& reply = answer.value;
        s.hosts[static_cast<std::size_t>(r)] = reply.host;
        if (!reply.started) {
            s.backends[static_cast<std::size_t>(r)] = "no backend";
            if (s.startError.empty()) s.startError = s.failureOf(r, reply.backend);
        } else {
            s.backends[static_cast<std::size_t>(r)] = reply.backend;
        }
    }
    for (std::size_t r = 0; r < n; ++r)
        for (int p = 0; p < kPhases; ++p) {
            s.pending[r * kPhases + static_cast<std::size_t>(p)].label =
                s.label(static_cast<int>(r));
            s.total[r * kPhases + static_cast<std::size_t>(p)].label = s.label(static_cast<int>(r));
        }
    const std::set<std::string> hostSet(s.hosts.begin(), s.hosts.end());
    const std::set<std::string> backendSet(s.backends.begin(), s.backends.end());
    s.description = "mpi (" + std::to_string(s.size()) + (s.size() == 1 ? " rank" : " ranks") +
                    " on " + std::to_string(hostSet.size()) +
                    (hostSet.size() == 1 ? " host" : " hosts") + "): ";
    if (backendSet.size() == 1) {
        s.description += (s.size() > 1 ? "each " : "") + s.backends[0];
    } else {
        for (std::size_t r = 0; r < n; ++r)
            s.description += (r ? "; " : "") + std::to_string(r) + ": " + s.backends[r];
    }
}

MpiBackend::~MpiBackend() {
    finishChunks();  // stops the communication thread, if reading was cut short
}

std::string MpiBackend::description() const {
    return state_->description;
}

void MpiBackend::computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                                   uint32_t* out) {
    State& s = *state_;
    s.throwIfNotStarted();
    const std::size_t n = batch.size();
    const auto h = static_cast<std::size_t>(c.hashes);
    const std::vector<std::size_t> bounds = splitByPrefix(batch.docEnd.data(), n, s.size());
    auto build = [&](int r) {
        const std::size_t lo = bounds[static_cast<std::size_t>(r)];
        const std::size_t hi = bounds[static_cast<std::size_t>(r) + 1];
        const uint64_t base = lo < hi ? batch.docBegin(lo) : 0;
        const uint64_t end = lo < hi ? batch.docEnd[hi - 1] : 0;
        SignaturesRequest request;
        request.constants = c;
        request.batch.symbols.assign(batch.symbols.begin() + static_cast<std::ptrdiff_t>(base),
                                     batch.symbols.begin() + static_cast<std::ptrdiff_t>(end));
        request.batch.docEnd.reserve(hi - lo);
        for (std::size_t i = lo; i < hi; ++i)
            request.batch.docEnd.push_back(batch.docEnd[i] - base);
        return encodeRequest(request);
    };
    auto local = [&] {
        const std::size_t count = bounds[1];
        const auto t0 = SteadyClock::now();
        uint64_t symbols = 0;
        if (count == n) {
            s.local->computeSignatures(batch, c, out);
            symbols = batch.symbols.size();
        } else if (count > 0) {
            SymbolBatch mine;
            symbols = batch.docEnd[count - 1];
            mine.symbols.assign(batch.symbols.begin(),
                                batch.symbols.begin() + static_cast<std::ptrdiff_t>(symbols));
            mine.docEnd.assign(batch.docEnd.begin(),
                               batch.docEnd.begin() + static_cast<std::ptrdiff_t>(count));
            s.local->computeSignatures(mine, c, out);
        }
        s.account(0, 0, secondsSince(t0), count, 4 * symbols);
    };
    auto take = [&](int r, const SignaturesReply& reply) {
        const std::size_t lo = bounds[static_cast<std::size_t>(r)];
        const std::size_t hi = bounds[static_cast<std::size_t>(r) + 1];
        copyShare(reply.rows, (hi - lo) * h, out + lo * h);
    };
    s.exchange<SignaturesReply>(0, build, local, take);
}

void MpiBackend::computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh,
                                 uint64_t modulus, uint64_t* keys) {
    State& s = *state_;
    s.throwIfNotStarted();
    if (s.chunkMode) {  // a spill block while chunks are read: rank 0 computes its keys
        const auto t0 = SteadyClock::now();
        std::unique_lock<std::mutex> lock(s.localMutex, std::defer_lock);
        if (!s.local->signsConcurrently()) lock.lock();
        s.local->computeBandKeys(signatures, lsh, modulus, keys);
        s.account(0, 1, secondsSince(t0), signatures.size(), 0);
        return;
    }
    const std::size_t n = signatures.size();
    const auto h = static_cast<std::size_t>(signatures.hashes);
    const auto bands = static_cast<std::size_t>(lsh.bands);
    const std::vector<std::size_t> bounds = splitEvenly(n, s.size());
    auto build = [&](int r) {
        const std::size_t lo = bounds[static_cast<std::size_t>(r)];
        const std::size_t hi = bounds[static_cast<std::size_t>(r) + 1];
        BandKeysRequest request;
        request.lsh = lsh;
        request.modulus = modulus;
        request.hashes = signatures.hashes;
        request.values.assign(signatures.values.begin() + static_cast<std::ptrdiff_t>(lo * h),
                              signatures.values.begin() + static_cast<std::ptrdiff_t>(hi * h));
        return encodeRequest(request);
    };
    auto local = [&] {
        const std::size_t count = bounds[1];
        const auto t0 = SteadyClock::now();
        if (count == n)
            s.local->computeBandKeys(signatures, lsh, modulus, keys);
        else if (count > 0)
            s.local->computeBandKeyRange(signatures, 0, count, lsh, modulus, keys);
        s.account(0, 1, secondsSince(t0), count, 0);
    };
    auto take = [&](int r, const BandKeysReply& reply) {
        const std::size_t lo = bounds[static_cast<std::size_t>(r)];
        const std::size_t hi = bounds[static_cast<std::size_t>(r) + 1];
        copyShare(reply.keys, (hi - lo) * bands, keys + lo * bands);
    };
    s.exchange<BandKeysReply>(1, build, local, take);
}

uint64_t MpiBackend::compareBuckets(const BucketBatch& buckets, const CompareRequest& req,
                                    std::vector<ScoredPair>& out) {
    State& s = *state_;
    s.throwIfNotStarted();
    const std::size_t count = buckets.buckets();
    const auto h = static_cast<std::size_t>(req.signatures->hashes);
    std::vector<uint64_t> work(count);
    uint64_t sum = 0;
    for (std::size_t j = 0; j < count; ++j) {
        sum += bucketWork(buckets.bucketBegin[j + 1] - buckets.bucketBegin[j]);
        work[j] = sum;
    }
    const std::vector<std::size_t> bounds = splitByPrefix(work.data(), count, s.size());
    // Each rank gets its buckets' documents as a compact matrix: rows, digests and the band
    // keys of the bands before this one (for the first-collision rule), in ascending document
    // order, so that the local indices compare like the global ones and every pair comes back
    // as it would have been found here.
    std::vector<std::vector<uint32_t>> docsOf(static_cast<std::size_t>(s.size()));
    const int keyStride = buckets.band > 0 && req.keys != nullptr ? buckets.band : 0;
    const SignatureMatrix& sigs = *req.signatures;
    uint64_t decided = 0;
    auto build = [&](int r) {
        const std::size_t jb = bounds[static_cast<std::size_t>(r)];
        const std::size_t je = bounds[static_cast<std::size_t>(r) + 1];
        const uint64_t mb = count ? buckets.bucketBegin[jb] : 0;
        const uint64_t me = count ? buckets.bucketBegin[je] : 0;
        std::vector<uint32_t>& docs = docsOf[static_cast<std::size_t>(r)];
        docs.assign(buckets.members.begin() + static_cast<std::ptrdiff_t>(mb),
                    buckets.members.begin() + static_cast<std::ptrdiff_t>(me));
        std::sort(docs.begin(), docs.end());
        docs.erase(std::unique(docs.begin(), docs.end()), docs.end());
        CompareRequestMessage m;
        m.band = buckets.band;
        m.hashes = sigs.hashes;
        m.minMatches = req.minMatches;
        m.keyStride = keyStride;
        const auto stride = static_cast<std::size_t>(keyStride);
        m.rows.reserve(docs.size() * h);
        m.digests.reserve(docs.size());
        m.keys.reserve(docs.size() * stride);
        for (const uint32_t d : docs) {
            m.rows.insert(m.rows.end(), sigs.row(d), sigs.row(d) + h);
            m.digests.push_back(sigs.digests[d]);
            if (stride == 0) continue;  // req.keys may be null then
            const uint64_t* key = req.keys + std::size_t(d) * std::size_t(req.bands);
            m.keys.insert(m.keys.end(), key, key + stride);
        }
        m.members.reserve(me - mb);
        for (uint64_t i = mb; i < me; ++i)
            m.members.push_back(static_cast<uint32_t>(
                std::lower_bound(docs.begin(), docs.end(), buckets.members[i]) - docs.begin()));
        m.bucketBegin.reserve(je - jb + 1);
        for (std::size_t j = jb; j <= je; ++j)
            m.bucketBegin.push_back(count ? buckets.bucketBegin[j] - mb : 0);
        return encodeRequest(m);
    };
    auto local = [&] {
        const std::size_t mine = bounds[1];
        const auto t0 = SteadyClock::now();
        uint64_t d = 0;
        if (mine == count) {
            d = s.local->compareBuckets(buckets, req, out);
        } else if (mine > 0) {
            BucketBatch part;
            part.band = buckets.band;
            part.bucketBegin.assign(
                buckets.bucketBegin.begin(),
                buckets.bucketBegin.begin() + static_cast<std::ptrdiff_t>(mine + 1));
            part.members.assign(
                buckets.members.begin(),
                buckets.members.begin() + static_cast<std::ptrdiff_t>(buckets.bucketBegin[mine]));
            d = s.local->compareBuckets(part, req, out);
        }
        decided += d;
        s.account(0, 2, secondsSince(t0), d, 0);
    };
    auto take = [&](int r, const CompareReply& reply) {
        decided += reply.decided;
        const std::vector<uint32_t>& docs = docsOf[static_cast<std::size_t>(r)];
        out.reserve(out.size() + reply.pairs.size());
        for (const ScoredPair& p : reply.pairs) {
            if (p.a >= docs.size() || p.b >= docs.size())
                throw std::runtime_error("rank " + std::to_string(r) +
                                         " returned a pair outside its documents");
            out.push_back({docs[p.a], docs[p.b], p.matches, p.exact});
        }
    };
    s.exchange<CompareReply>(2, build, local, take);
    return decided;
}

std::vector<WorkerTiming> MpiBackend::takeWorkerTimings() {
    const std::lock_guard<std::mutex> lock(state_->accountMutex);
    std::vector<WorkerTiming> taken;
    for (WorkerTiming& t : state_->pending) {
        if (t.items == 0 && t.seconds == 0) continue;
        taken.push_back(t);
        t.seconds = 0;
        t.items = 0;
        t.bytes = 0;
    }
    return taken;
}

std::vector<RankTotals> MpiBackend::totals() const {
    const State& s = *state_;
    std::vector<RankTotals> result;
    for (int r = 0; r < s.size(); ++r) {
        const auto at = [&](int phase) -> const WorkerTiming& {
            return s.total[static_cast<std::size_t>(r * kPhases + phase)];
        };
        RankTotals t;
        t.rank = r;
        t.label = s.label(r);
        t.signatureSeconds = at(0).seconds;
        t.documents = at(0).items;
        t.bandKeySeconds = at(1).seconds;
        t.bandKeyRows = at(1).items;
        t.compareSeconds = at(2).seconds;
        t.pairsDecided = at(2).items;
        result.push_back(std::move(t));
    }
    return result;
}

}  // namespace neardup::mpi
