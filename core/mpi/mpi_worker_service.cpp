// Every rank but 0 (serveBackendRequests): builds its local backend, then answers rank 0's
// requests with it until rank 0 stops the job. Between BeginChunks and EndChunks it reads input
// chunks on its threads (ChunkService) while its main thread keeps receiving requests and
// sending replies, so that every MPI call of the rank is made from one thread.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "chunk_work.h"
#include "mpi_codec.h"
#include "mpi_job.h"
#include "mpi_job_state.h"

namespace neardup::mpi {

namespace {

// Test hook: NEARDUP_MPI_TEST_FAIL=RANK:PHASE:HOW makes rank RANK (not 0) fail its first
// request of PHASE (signatures, buckets or compare), or fail to build its backend (start):
// HOW = throw (an error reported to rank 0) or kill (SIGKILL, as the kernel's OOM killer
// would).
struct FailureHook {
    bool armed = false;
    Op op = Op::Stop;
    bool kill = false;

    static FailureHook fromEnvironment(int rank) {
        FailureHook hook;
        const char* v = std::getenv("NEARDUP_MPI_TEST_FAIL");
        if (!v) return hook;
        const std::string s(v);
        const auto a = s.find(':'), b = s.rfind(':');
        if (a == std::string::npos || b == a) return hook;
        if (std::atoi(s.substr(0, a).c_str()) != rank) return hook;
        const std::string phase = s.substr(a + 1, b - a - 1), how = s.substr(b + 1);
        hook.op = phase == "start"        ? Op::Hello
                  : phase == "signatures" ? Op::Signatures
                  : phase == "buckets"    ? Op::BandKeys
                  : phase == "compare"    ? Op::Compare
                                          : Op::Stop;
        hook.kill = how == "kill";
        hook.armed = hook.op != Op::Stop;
        return hook;
    }
    void fire(Op current) {
        // Reading chunks is the signatures phase when ranks read them.
        if (current == Op::Chunk) current = Op::Signatures;
        if (!armed || current != op) return;
        armed = false;
        if (kill) ::kill(::getpid(), SIGKILL);
        throw std::runtime_error("injected failure (NEARDUP_MPI_TEST_FAIL)");
    }
};

// The signature rows a request sent, as the local backend takes them: every row eligible (rank
// 0 sends only the rows to work on).
SignatureMatrix receivedRows(int hashes, std::vector<uint32_t> values,
                             std::vector<uint64_t> digests) {
    SignatureMatrix sigs;
    sigs.hashes = hashes;
    sigs.values = std::move(values);
    sigs.digests = std::move(digests);
    sigs.eligible.assign(sigs.digests.size(), 1);
    return sigs;
}

// Answers one request of the backend calls with the local backend.
std::vector<char> execute(Op op, const std::vector<char>& bytes, Backend& local) {
    const auto t0 = SteadyClock::now();
    switch (op) {
        case Op::Signatures: {
            const auto request = decodeRequest<SignaturesRequest>(bytes);
            const SymbolBatch& batch = request.batch;
            SignaturesReply reply;
            reply.rows.resize(batch.size() * static_cast<std::size_t>(request.constants.hashes));
            if (batch.size() > 0)
                local.computeSignatures(batch, request.constants, reply.rows.data());
            reply.done = {secondsSince(t0), batch.size(), 4 * batch.symbols.size()};
            return encodeReply(reply);
        }
        case Op::BandKeys: {
            auto request = decodeRequest<BandKeysRequest>(bytes);
            const std::size_t n = request.values.size() / std::size_t(request.hashes);
            const SignatureMatrix sigs = receivedRows(request.hashes, std::move(request.values),
                                                      std::vector<uint64_t>(n, 0));
            BandKeysReply reply;
            reply.keys.resize(n * static_cast<std::size_t>(request.lsh.bands));
            if (n > 0) local.computeBandKeys(sigs, request.lsh, request.modulus, reply.keys.data());
            reply.done = {secondsSince(t0), n, 0};
            return encodeReply(reply);
        }
        case Op::Compare: {
            auto request = decodeRequest<CompareRequestMessage>(bytes);
            BucketBatch batch;
            batch.band = request.band;
            batch.members = std::move(request.members);
            batch.bucketBegin = std::move(request.bucketBegin);
            const SignatureMatrix sigs =
                receivedRows(request.hashes, std::move(request.rows), std::move(request.digests));
            const CompareRequest compare{&sigs,
                                         request.keyStride > 0 ? request.keys.data() : nullptr,
                                         request.keyStride, request.minMatches};
            CompareReply reply;
            reply.decided =
                batch.buckets() > 0 ? local.compareBuckets(batch, compare, reply.pairs) : 0;
            reply.done = {secondsSince(t0), reply.decided, 0};
            return encodeReply(reply);
        }
        default:
            throw std::runtime_error("unknown request " +
                                     std::to_string(static_cast<uint32_t>(op)));
    }
}

}  // namespace

// Reads chunks between BeginChunks and EndChunks: the main thread receives requests and sends
// replies (every MPI call of this rank), `threads` threads parse, normalize and sign. Not a
// tbb::task_group: this is no fork/join. Chunks arrive one by one while the threads work, the
// main thread must keep polling MPI the whole time (a task_group's wait() would hold it), and
// each thread keeps its ChunkProcessor (buffers, normalizer) from one chunk to the next.
class ChunkService {
  public:
    ChunkService(Transport& transport, BeginChunksRequest setup, Backend& local, FailureHook& hook,
                 int threads)
        : transport_(transport), setup_(std::move(setup)), local_(local), hook_(hook) {
        threads_ = threads > 0 ? threads : std::max(1, setup_.threads);
    }
    ~ChunkService() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            closing_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : pool_)
            t.join();
    }
    ChunkService(const ChunkService&) = delete;
    ChunkService& operator=(const ChunkService&) = delete;

    int threads() const { return threads_; }

    // Until EndChunks (false) or Stop (true) has come and every chunk's reply has gone.
    bool serve() {
        for (int i = 0; i < threads_; ++i)
            pool_.emplace_back([this] { work(); });
        bool ending = false, stop = false;
        std::size_t inFlight = 0;
        std::vector<std::unique_ptr<OutgoingMessage>> sending;
        auto sleep = std::chrono::microseconds(10);
        for (;;) {
            bool busy = false;
            if (!ending && transport_.waiting(0, kRequestTag)) {
                busy = true;
                const std::vector<char> bytes = transport_.receiveWaiting(0, kRequestTag);
                const Op op = requestOp(bytes);
                if (op == Op::Chunk) {
                    ++inFlight;
                    receiveChunk(bytes);
                } else {
                    ending = true;  // EndChunks, or Stop
                    stop = op == Op::Stop;
                }
            }
            std::vector<Done> finished;
            {
                const std::lock_guard<std::mutex> lock(mutex_);
                finished.swap(done_);
            }
            for (Done& d : finished) {
                busy = true;
                --inFlight;
                sending.push_back(std::make_unique<OutgoingMessage>(
                    transport_, 0, kChunkReplyTag + static_cast<int>(d.slot), std::move(d.bytes)));
            }
            std::erase_if(sending, [](const auto& out) { return out->done(); });
            if (ending && inFlight == 0 && sending.empty()) return stop;
            if (busy) {
                sleep = std::chrono::microseconds(10);
            } else {
                std::this_thread::sleep_for(sleep);
                sleep = std::min(sleep * 2, std::chrono::microseconds(1000));
            }
        }
    }

  private:
    struct Done {
        uint32_t slot = 0;
        std::vector<char> bytes;
    };

    // Queues a chunk for the threads, or answers its slot with the failure. A request that
    // cannot be read has no slot to answer: its WireError ends the service, as MPI errors do.
    void receiveChunk(const std::vector<char>& bytes) {
        ChunkRequest task = decodeRequest<ChunkRequest>(bytes);
        try {
            hook_.fire(Op::Chunk);
            {
                const std::lock_guard<std::mutex> lock(mutex_);
                tasks_.push_back(std::move(task));
            }
            wake_.notify_one();
        } catch (const std::exception& e) {
            const std::lock_guard<std::mutex> lock(mutex_);
            done_.push_back({task.slot, encodeFailure(e.what())});
        }
    }

    void work() {
        ChunkProcessor processor(setup_.files, setup_.reader, setup_.signature);
        ChunkReply reply;
        for (;;) {
            ChunkRequest task;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return closing_ || !tasks_.empty(); });
                if (tasks_.empty()) return;
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            std::vector<char> bytes;
            try {
                const auto t0 = SteadyClock::now();
                processor.process(task.chunk, reply.work, local_, setup_.constants,
                                  local_.signsConcurrently() ? nullptr : &localMutex_);
                reply.done = {secondsSince(t0), reply.work.parsed.docs.size(),
                              task.chunk.data.size()};
                keepIdsOnly(reply.work.parsed);
                bytes = encodeReply(reply);
            } catch (const std::exception& e) {
                bytes = encodeFailure(e.what());
            }
            const std::lock_guard<std::mutex> lock(mutex_);
            done_.push_back({task.slot, std::move(bytes)});
        }
    }

    Transport& transport_;
    const BeginChunksRequest setup_;
    Backend& local_;
    FailureHook& hook_;
    int threads_ = 1;
    std::vector<std::thread> pool_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<ChunkRequest> tasks_;
    std::vector<Done> done_;
    bool closing_ = false;
    std::mutex localMutex_;
};

int serveBackendRequests(Job& job, const LocalBackendFactory& factory, int threads) {
    Job::Impl& j = job.impl();
    Transport& transport = *j.transport;
    std::unique_ptr<Backend> local;
    std::string description, setupError;
    FailureHook hook = FailureHook::fromEnvironment(j.rank());
    try {
        hook.fire(Op::Hello);
        local = factory(job.localRank(), &description);
        description = local->description();
    } catch (const std::exception& e) {
        setupError = std::string("could not start its backend: ") + e.what();
    }
    for (;;) {
        // Idle ranks poll rarely: a few milliseconds of latency per request at most.
        const std::vector<char> bytes =
            transport.receive(0, kRequestTag, std::chrono::microseconds(2000));
        Op op{};
        try {
            op = requestOp(bytes);
        } catch (const WireError& e) {  // answered all the same, so that rank 0 stays in step
            transport.send(0, kReplyTag, encodeFailure(e.what()));
            continue;
        }
        if (op == Op::Stop) return 0;
        std::vector<char> reply;
        if (op == Op::BeginChunks && local) {
            std::unique_ptr<ChunkService> service;
            try {
                service = std::make_unique<ChunkService>(
                    transport, decodeRequest<BeginChunksRequest>(bytes), *local, hook, threads);
                reply = encodeReply(BeginChunksReply{service->threads()});
            } catch (const std::exception& e) {
                reply = encodeFailure(e.what());
            }
            transport.send(0, kReplyTag, reply);
            if (service && service->serve()) return 0;
            continue;
        }
        if (op == Op::Hello) {
            reply = encodeReply(HelloReply{job.host(), setupError.empty(),
                                           setupError.empty() ? description : setupError});
        } else {
            try {
                if (!local) throw std::runtime_error(setupError);
                hook.fire(op);
                reply = execute(op, bytes, *local);
            } catch (const std::exception& e) {
                reply = encodeFailure(e.what());
            }
        }
        transport.send(0, kReplyTag, reply);
    }
}

}  // namespace neardup::mpi
