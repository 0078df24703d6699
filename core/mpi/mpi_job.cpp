// The MPI job: rank 0's MpiBackend and the other ranks' service loop.
//
// Protocol (communicator: a duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN): rank 0 sends a
// request (tag kRequest) to every other rank, always to all of them and in rank order, even
// when a rank's share is empty; each rank answers with one reply (tag kReply): a status, its
// busy time and item count, then the payload or the error text. A message is a byte count
// followed by pieces of at most 1 GiB. Requests are sent with blocking sends (the ranks poll for
// them), then rank 0 computes its own share, then it receives the replies in rank order, all of
// them even when one reports an error, so that the ranks stay in step and the final Stop
// message always finds them listening. Waits poll with short sleeps, so that idle ranks leave
// the cores to the busy ones when several share a machine.
//
// Reading (BeginChunks, an exchange like the others, whose replies give each rank's threads,
// then Chunk requests, then EndChunks): rank 0's pipeline threads queue chunks, each for a free
// slot of a rank; one communication thread on rank 0 sends them (nonblocking) and receives the
// replies, tagged kChunkReply + slot, in whatever order they come. A rank reads its chunks on
// its threads while its main thread keeps receiving requests and sending replies; EndChunks
// (sent once every reply is in) or Stop returns it to the request loop.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "chunk_work.h"
#include "mpi_job.h"
#include "pipeline.h"
#include "wire.h"
#include "work_split.h"

namespace neardup::mpi {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRequest = 11;
constexpr int kReply = 12;
constexpr std::size_t kPiece = std::size_t{1} << 30;

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
// A chunk's reply comes back with tag kChunkReply + the request's slot, so that several threads
// of rank 0 can each wait for their own.
constexpr int kChunkReply = 100;
constexpr int kMaxChunkSlots = 1024;  // threads on rank 0 wait for them (and tags < 32767)
enum class Status : uint32_t { Ok = 0, Error = 1 };

// Phases of the per-rank timings, in the order of WorkerTiming rows.
constexpr int kPhases = 3;
const char* const kPhaseNames[kPhases] = {"signatures", "buckets", "compare"};

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string mpiError(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        return "MPI error " + std::to_string(code);
    return std::string(text, static_cast<std::size_t>(length));
}

void check(int code, const char* what, int peer) {
    if (code == MPI_SUCCESS) return;
    throw std::runtime_error(std::string(what) +
                             (peer >= 0 ? " (rank " + std::to_string(peer) + ")" : "") +
                             " failed: " + mpiError(code));
}

void sendMessage(MPI_Comm comm, int dest, int tag, const std::vector<char>& bytes) {
    const uint64_t size = bytes.size();
    check(MPI_Send(&size, 1, MPI_UINT64_T, dest, tag, comm), "MPI_Send", dest);
    for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
        const std::size_t n = std::min(kPiece, bytes.size() - at);
        check(MPI_Send(bytes.data() + at, static_cast<int>(n), MPI_BYTE, dest, tag, comm),
              "MPI_Send", dest);
    }
}

// Receives a message whose byte count MPI_Iprobe found waiting.
std::vector<char> receiveWaiting(MPI_Comm comm, int source, int tag) {
    uint64_t size = 0;
    check(MPI_Recv(&size, 1, MPI_UINT64_T, source, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv",
          source);
    std::vector<char> bytes(static_cast<std::size_t>(size));
    for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
        const std::size_t n = std::min(kPiece, bytes.size() - at);
        check(MPI_Recv(bytes.data() + at, static_cast<int>(n), MPI_BYTE, source, tag, comm,
                       MPI_STATUS_IGNORE),
              "MPI_Recv", source);
    }
    return bytes;
}

// Polls until a message from `source` with `tag` is there, sleeping between polls (up to
// maxSleep), then receives it whole. Throws Cancelled when `cancel` is raised while waiting
// (rank 0 after Ctrl-C, or the launcher's SIGTERM when another rank died).
std::vector<char> receiveMessage(MPI_Comm comm, int source, int tag,
                                 std::chrono::microseconds maxSleep,
                                 const std::atomic<bool>* cancel = nullptr) {
    auto sleep = std::chrono::microseconds(10);
    for (;;) {
        int ready = 0;
        check(MPI_Iprobe(source, tag, comm, &ready, MPI_STATUS_IGNORE), "MPI_Iprobe", source);
        if (ready) break;
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        std::this_thread::sleep_for(sleep);
        sleep = std::min(sleep * 2, maxSleep);
    }
    return receiveWaiting(comm, source, tag);
}

void putConstants(WireWriter& w, const HashConstants& c) {
    w.put(c.family);
    w.put(c.sketch);
    w.put(c.ophSalt);
    w.put(c.ngram);
    w.put(c.hashes);
    w.putVector(c.rollBase);
    w.putVector(c.rollTop);
    w.putVector(c.rollMul);
    w.putVector(c.rollAdd);
    w.put(c.fpBase);
    w.put(c.fpTop);
    w.put(c.fpSalt);
    w.putVector(c.permA);
    w.putVector(c.permB);
    w.putVector(c.fpNegDrop);
}

HashConstants getConstants(WireReader& r) {
    HashConstants c;
    c.family = r.get<HashFamily>();
    c.sketch = r.get<SketchKind>();
    c.ophSalt = r.get<uint64_t>();
    c.ngram = r.get<int>();
    c.hashes = r.get<int>();
    r.getVector(c.rollBase);
    r.getVector(c.rollTop);
    r.getVector(c.rollMul);
    r.getVector(c.rollAdd);
    c.fpBase = r.get<uint64_t>();
    c.fpTop = r.get<uint64_t>();
    c.fpSalt = r.get<uint64_t>();
    r.getVector(c.permA);
    r.getVector(c.permB);
    r.getVector(c.fpNegDrop);
    return c;
}

void putLsh(WireWriter& w, const LshParams& lsh) {
    w.put(lsh.bands);
    w.put(lsh.rows);
    w.put(lsh.scheme);
}

LshParams getLsh(WireReader& r) {
    LshParams lsh;
    lsh.bands = r.get<int>();
    lsh.rows = r.get<int>();
    lsh.scheme = r.get<BandKeyScheme>();
    return lsh;
}

// What ranks reading chunks need to know of the run (Op::BeginChunks).
void putSetup(WireWriter& w, const ChunkSetup& setup, const HashConstants& c) {
    w.put<uint64_t>(setup.files->size());
    for (const InputFile& f : *setup.files) {
        w.putString(f.path);
        w.put(f.size);
        w.put(f.mtimeNs);
        w.put(f.compression);
    }
    w.putString(setup.reader.textField);
    w.putString(setup.reader.idField);
    w.putString(setup.reader.keepField);
    w.put<uint64_t>(setup.reader.chunkBytes);
    w.put(setup.reader.onError);
    static_assert(std::is_trivially_copyable_v<SignatureParams>);
    w.put(setup.signature);
    w.put(setup.threads);
    putConstants(w, c);
}

struct ReceivedSetup {
    std::vector<InputFile> files;
    ChunkSetup setup;
    HashConstants constants;
};

ReceivedSetup getSetup(WireReader& r) {
    ReceivedSetup got;
    const auto n = r.get<uint64_t>();
    for (uint64_t i = 0; i < n; ++i) {
        InputFile f;
        f.path = r.getString();
        f.size = r.get<uint64_t>();
        f.mtimeNs = r.get<int64_t>();
        f.compression = r.get<InputFile::Compression>();
        got.files.push_back(std::move(f));
    }
    got.setup.reader.textField = r.getString();
    got.setup.reader.idField = r.getString();
    got.setup.reader.keepField = r.getString();
    got.setup.reader.chunkBytes = static_cast<std::size_t>(r.get<uint64_t>());
    got.setup.reader.onError = r.get<OnError>();
    got.setup.signature = r.get<SignatureParams>();
    got.setup.threads = r.get<int>();
    got.constants = getConstants(r);
    return got;
}

void putChunk(WireWriter& w, const LineChunk& chunk) {
    w.put(chunk.file);
    w.put(chunk.firstLine);
    w.put(chunk.baseOffset);
    w.put(chunk.fileStart);
    w.put(chunk.failureReason);
    w.put(chunk.dropped);
    w.putString(chunk.failure);
    w.putString(chunk.data);
}

void getChunk(WireReader& r, LineChunk& chunk) {
    chunk.file = r.get<uint32_t>();
    chunk.firstLine = r.get<uint64_t>();
    chunk.baseOffset = r.get<uint64_t>();
    chunk.fileStart = r.get<bool>();
    chunk.failureReason = r.get<RejectReason>();
    chunk.dropped = r.get<uint64_t>();
    chunk.failure = r.getString();
    chunk.data = r.getString();
}

// What rank 0's serial stage needs of a chunk read elsewhere: the documents (their ids, not
// their text), rejections, line counts, per-document code points and symbol counts, and rows.
void putChunkWork(WireWriter& w, ChunkWork& work) {
    ParsedChunk& p = work.parsed;
    w.put(p.file);
    w.put(p.lines);
    w.put(p.blankLines);
    w.put(p.bytes);
    std::string ids;
    for (ParsedDocument& d : p.docs) {
        const std::string_view id = p.id(d);
        d.idBegin = static_cast<uint32_t>(ids.size());
        ids.append(id);
        d.textBegin = 0;
        d.textLength = 0;
    }
    static_assert(std::is_trivially_copyable_v<ParsedDocument>);
    w.putVector(p.docs);
    w.putString(ids);
    w.put<uint64_t>(p.rejections.size());
    for (const Rejection& r : p.rejections) {
        w.put(r.reason);
        w.put(r.file);
        w.put(r.line);
        w.putString(r.detail);
    }
    w.putVector(work.chars);
    w.putVector(work.symbols.docEnd);
    w.putVector(work.rows);
    w.put(work.parseNs);
    w.put(work.signNs);
}

void getChunkWork(WireReader& r, ChunkWork& work) {
    ParsedChunk& p = work.parsed;
    p.file = r.get<uint32_t>();
    p.lines = r.get<uint64_t>();
    p.blankLines = r.get<uint64_t>();
    p.bytes = r.get<uint64_t>();
    r.getVector(p.docs);
    p.arena = r.getString();
    for (const ParsedDocument& d : p.docs)
        if (uint64_t{d.idBegin} + d.idLength > p.arena.size())
            throw std::runtime_error("malformed MPI message (document id)");
    const auto n = r.get<uint64_t>();
    p.rejections.clear();
    for (uint64_t i = 0; i < n; ++i) {
        Rejection rej;
        rej.reason = r.get<RejectReason>();
        rej.file = r.get<uint32_t>();
        rej.line = r.get<uint64_t>();
        rej.detail = r.getString();
        p.rejections.push_back(std::move(rej));
    }
    r.getVector(work.chars);
    work.symbols.symbols.clear();
    r.getVector(work.symbols.docEnd);
    r.getVector(work.rows);
    work.parseNs = r.get<int64_t>();
    work.signNs = r.get<int64_t>();
    if (work.chars.size() != p.docs.size() || work.symbols.docEnd.size() != p.docs.size())
        throw std::runtime_error("malformed MPI message (chunk documents)");
}

// A message on its way out with nonblocking sends (a byte count, then pieces of at most 1 GiB);
// its buffers live until every send completed.
struct Outgoing {
    uint64_t size = 0;
    std::vector<char> bytes;
    std::vector<MPI_Request> requests;

    void start(MPI_Comm comm, int dest, int tag) {
        size = bytes.size();
        requests.emplace_back();
        check(MPI_Isend(&size, 1, MPI_UINT64_T, dest, tag, comm, &requests.back()), "MPI_Isend",
              dest);
        for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
            const std::size_t n = std::min(kPiece, bytes.size() - at);
            requests.emplace_back();
            check(MPI_Isend(bytes.data() + at, static_cast<int>(n), MPI_BYTE, dest, tag, comm,
                            &requests.back()),
                  "MPI_Isend", dest);
        }
    }
    bool done(int peer) {
        int flag = 0;
        check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag,
                          MPI_STATUSES_IGNORE),
              "MPI_Testall", peer);
        return flag != 0;
    }
};

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

}  // namespace

// ---------------------------------------------------------------------------------------------
// Job

struct Job::Impl {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0, size = 1, localRank = 0;
    std::string host;
    bool stopped = false;
    // Rank 0 stopped waiting for a rank (cancelled, or MPI failed): the ranks are out of step,
    // so the job is aborted instead of finalized.
    bool broken = false;
};

bool compiledIn() {
    return true;
}

std::string describeSupport() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    std::string text = "compiled in";
    if (MPI_Get_library_version(version, &length) == MPI_SUCCESS) {
        std::string v(version, static_cast<std::size_t>(length));
        v = v.substr(0, v.find_first_of("\n,"));
        text += " (" + v + ")";
    }
    return text;
}

Job::Job(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<Job> Job::start() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) throw std::runtime_error("MPI is already initialized");
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        throw std::runtime_error("MPI_Init_thread failed");
    auto impl = std::make_unique<Impl>();
    try {
        if (provided < MPI_THREAD_SERIALIZED)
            throw std::runtime_error("the MPI library does not support MPI_THREAD_SERIALIZED");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        check(MPI_Comm_dup(MPI_COMM_WORLD, &impl->comm), "MPI_Comm_dup", -1);
        MPI_Comm_set_errhandler(impl->comm, MPI_ERRORS_RETURN);
        MPI_Comm_rank(impl->comm, &impl->rank);
        MPI_Comm_size(impl->comm, &impl->size);
        MPI_Comm local = MPI_COMM_NULL;
        check(MPI_Comm_split_type(impl->comm, MPI_COMM_TYPE_SHARED, impl->rank, MPI_INFO_NULL,
                                  &local),
              "MPI_Comm_split_type", -1);
        MPI_Comm_rank(local, &impl->localRank);
        MPI_Comm_free(&local);
        char name[MPI_MAX_PROCESSOR_NAME];
        int length = 0;
        MPI_Get_processor_name(name, &length);
        impl->host.assign(name, static_cast<std::size_t>(length));
    } catch (...) {
        if (impl->comm != MPI_COMM_NULL) MPI_Comm_free(&impl->comm);
        MPI_Finalize();
        throw;
    }
    return std::unique_ptr<Job>(new Job(std::move(impl)));
}

Job::~Job() {
    try {
        if (!impl_->broken) stopWorkers();
    } catch (...) {
        impl_->broken = true;  // a rank is gone
    }
    if (impl_->broken) MPI_Abort(MPI_COMM_WORLD, 1);  // ends every rank, this one too
    MPI_Comm_free(&impl_->comm);
    MPI_Finalize();
}

int Job::rank() const {
    return impl_->rank;
}
int Job::size() const {
    return impl_->size;
}
int Job::localRank() const {
    return impl_->localRank;
}
const std::string& Job::host() const {
    return impl_->host;
}

void Job::stopWorkers() {
    if (impl_->rank != 0 || impl_->stopped) return;
    impl_->stopped = true;
    WireWriter w;
    w.put(Op::Stop);
    for (int r = 1; r < impl_->size; ++r)
        sendMessage(impl_->comm, r, kRequest, w.bytes());
}

// ---------------------------------------------------------------------------------------------
// Rank 0

struct MpiBackend::State {
    Job::Impl& job;
    std::unique_ptr<Backend> local;
    const std::atomic<bool>* cancel;
    std::vector<std::string> hosts, backends;
    std::string startError;  // thrown by the first call when a rank could not start
    std::string description;
    // Indexed [rank * kPhases + phase]: since the last takeWorkerTimings, and since the start.
    std::vector<WorkerTiming> pending, total;
    mutable std::mutex accountMutex;  // chunks are accounted from several threads

    // Reading chunks (startChunks .. finishChunks). The pipeline's threads queue their chunks
    // for other ranks in `outbox` and wait for their slot's reply; one communication thread
    // makes every MPI call meanwhile (nonblocking sends, replies matched by tag).
    std::atomic<bool> chunkMode{false};
    HashConstants constants;
    std::vector<InputFile> files;
    ChunkSetup setup;
    std::thread comm;
    std::mutex commMutex;
    std::condition_variable replyReady;
    std::deque<std::pair<int, std::vector<char>>> outbox;  // slot, request
    std::vector<std::vector<char>> replies;                // by slot
    std::vector<uint8_t> replied;                          // by slot
    bool commStop = false;
    std::exception_ptr commFailure;  // the communication thread stopped: MPI failed, or cancel
    std::mutex slotMutex;
    std::condition_variable slotFreed;
    std::deque<int> freeSlots;  // remote slots, interleaved over the ranks
    std::vector<int> slotRank;
    int localFree = 0;          // chunks rank 0 may still read itself at once
    std::string chunkError;     // the first rank that failed a chunk, thrown by later calls
    std::mutex processorMutex;  // rank 0's chunk processors, one per thread reading
    std::vector<std::unique_ptr<ChunkProcessor>> processors;
    std::mutex localMutex;  // the local backend, when it signs from one thread at a time

    State(Job::Impl& j, std::unique_ptr<Backend> l, const std::atomic<bool>* c)
        : job(j), local(std::move(l)), cancel(c) {}

    int size() const { return job.size; }
    std::string label(int rank) const {
        return "rank " + std::to_string(rank) + " on " + hosts[static_cast<std::size_t>(rank)] +
               " (" + backends[static_cast<std::size_t>(rank)] + ")";
    }
    void account(int rank, int phase, double seconds, uint64_t items, uint64_t bytes) {
        const std::lock_guard<std::mutex> lock(accountMutex);
        for (auto* table : {&pending, &total}) {
            WorkerTiming& t = (*table)[static_cast<std::size_t>(rank * kPhases + phase)];
            t.seconds += seconds;
            t.items += items;
            t.bytes += bytes;
        }
    }
    // The communication thread: sends queued chunks, receives replies, until finishChunks.
    void communicate() {
        std::vector<std::unique_ptr<Outgoing>> sending;
        std::size_t awaited = 0;  // chunks sent whose reply has not come
        auto sleep = std::chrono::microseconds(10);
        try {
            for (;;) {
                bool busy = false, stop = false;
                std::deque<std::pair<int, std::vector<char>>> queued;
                {
                    const std::lock_guard<std::mutex> lock(commMutex);
                    queued.swap(outbox);
                    stop = commStop;
                }
                for (auto& [slot, bytes] : queued) {
                    busy = true;
                    auto out = std::make_unique<Outgoing>();
                    out->bytes = std::move(bytes);
                    const int rank = slotRank[static_cast<std::size_t>(slot)];
                    sending.push_back(std::move(out));
                    sending.back()->start(job.comm, rank, kRequest);
                    ++awaited;
                }
                for (;;) {
                    int ready = 0;
                    MPI_Status st;
                    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, job.comm, &ready, &st),
                          "MPI_Iprobe", -1);
                    if (!ready) break;
                    busy = true;
                    const int slot = st.MPI_TAG - kChunkReply;
                    if (slot < 0 || slot >= static_cast<int>(slotRank.size()) ||
                        slotRank[static_cast<std::size_t>(slot)] != st.MPI_SOURCE)
                        throw std::runtime_error("unexpected MPI message from rank " +
                                                 std::to_string(st.MPI_SOURCE) + " while reading");
                    std::vector<char> bytes = receiveWaiting(job.comm, st.MPI_SOURCE, st.MPI_TAG);
                    {
                        const std::lock_guard<std::mutex> lock(commMutex);
                        replies[static_cast<std::size_t>(slot)] = std::move(bytes);
                        replied[static_cast<std::size_t>(slot)] = 1;
                    }
                    replyReady.notify_all();
                    if (awaited > 0) --awaited;
                }
                for (std::size_t i = 0; i < sending.size();) {
                    if (sending[i]->done(-1)) {
                        sending[i] = std::move(sending.back());
                        sending.pop_back();
                    } else {
                        ++i;
                    }
                }
                if (stop && sending.empty() && awaited == 0) return;
                if (awaited > 0 && cancel && cancel->load(std::memory_order_relaxed))
                    throw Cancelled();
                if (busy) {
                    sleep = std::chrono::microseconds(10);
                } else {
                    std::this_thread::sleep_for(sleep);
                    sleep = std::min(sleep * 2, std::chrono::microseconds(200));
                }
            }
        } catch (...) {
            // Cancelled, or MPI failed: the ranks are out of step, the job is aborted once the
            // run is recorded. Send buffers stay, as MPI may still read them.
            for (auto& out : sending)
                (void)out.release();
            const std::lock_guard<std::mutex> lock(commMutex);
            commFailure = std::current_exception();
            job.broken = true;
            replyReady.notify_all();
        }
    }

    void throwIfNotStarted() const {
        if (!startError.empty()) throw std::runtime_error(startError);
    }

    // Sends each rank r >= 1 the request build(r, writer), runs local() for rank 0's share,
    // then hands every reply's payload to take(r, reader), in rank order. Throws the first
    // error (rank 0's own first, else the lowest failing rank's) once all have answered.
    template <class Build, class Local, class Take>
    void exchange(int phase, Build build, Local localShare, Take take) {
        int sent = 1;
        std::exception_ptr failure;
        try {
            for (int r = 1; r < size(); ++r) {
                WireWriter w;
                build(r, w);
                sendMessage(job.comm, r, kRequest, w.bytes());
                ++sent;
            }
            localShare();
        } catch (...) {
            failure = std::current_exception();
        }
        std::string workerError;
        for (int r = 1; r < sent; ++r) {
            std::vector<char> bytes;
            try {
                bytes = receiveMessage(job.comm, r, kReply, std::chrono::microseconds(500), cancel);
            } catch (...) {
                // Cancelled, or MPI failed: rank 0 stops waiting, and the job is aborted once
                // the pipeline has recorded how the run ended.
                failure = std::current_exception();
                job.broken = true;
                break;
            }
            WireReader in(bytes);
            const auto status = in.get<Status>();
            if (status == Status::Error) {
                const std::string reason = in.getString();
                if (workerError.empty())
                    workerError = "rank " + std::to_string(r) + " (" +
                                  hosts[static_cast<std::size_t>(r)] + "): " + reason;
                continue;
            }
            const auto seconds = in.get<double>();
            const auto items = in.get<uint64_t>();
            const auto byteCount = in.get<uint64_t>();
            account(r, phase, seconds, items, byteCount);
            if (!failure && workerError.empty()) {
                try {
                    take(r, in);
                } catch (...) {
                    failure = std::current_exception();
                }
            }
        }
        if (failure) std::rethrow_exception(failure);
        if (!workerError.empty()) throw std::runtime_error(workerError);
    }
};

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
    for (int r = 1; r < s.size(); ++r) {
        WireWriter w;
        w.put(Op::Hello);
        sendMessage(s.job.comm, r, kRequest, w.bytes());
    }
    for (int r = 1; r < s.size(); ++r) {
        const std::vector<char> bytes =
            receiveMessage(s.job.comm, r, kReply, std::chrono::microseconds(500), s.cancel);
        WireReader in(bytes);
        const auto status = in.get<Status>();
        const std::string host = in.getString();
        const std::string text = in.getString();
        s.hosts[static_cast<std::size_t>(r)] = host;
        if (status == Status::Error) {
            s.backends[static_cast<std::size_t>(r)] = "no backend";
            if (s.startError.empty())
                s.startError = "rank " + std::to_string(r) + " (" + host + "): " + text;
        } else {
            s.backends[static_cast<std::size_t>(r)] = text;
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
    auto build = [&](int r, WireWriter& w) {
        const std::size_t lo = bounds[static_cast<std::size_t>(r)];
        const std::size_t hi = bounds[static_cast<std::size_t>(r) + 1];
        const uint64_t base = lo < hi ? batch.docBegin(lo) : 0;
        const uint64_t end = lo < hi ? batch.docEnd[hi - 1] : 0;
        w.put(Op::Signatures);
        putConstants(w, c);
        w.putArray(batch.symbols.data() + base, static_cast<std::size_t>(end - base));
        w.put<uint64_t>(hi - lo);
        for (std::size_t i = lo; i < hi; ++i) {
            const uint64_t e = batch.docEnd[i] - base;
            w.putRaw(&e, sizeof e);
        }
    };
    auto local = [&] {
        const std::size_t count = bounds[1];
        const auto t0 = Clock::now();
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
    auto take = [&](int r, WireReader& in) {
        const std::size_t lo = bounds[static_cast<std::size_t>(r)];
        const std::size_t hi = bounds[static_cast<std::size_t>(r) + 1];
        in.getInto(out + lo * h, (hi - lo) * h);
    };
    s.exchange(0, build, local, take);
}

void MpiBackend::computeBandKeys(const SignatureMatrix& signatures, const LshParams& lsh,
                                 uint64_t modulus, uint64_t* keys) {
    State& s = *state_;
    s.throwIfNotStarted();
    if (s.chunkMode) {  // a spill block while chunks are read: rank 0 computes its keys
        const auto t0 = Clock::now();
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
    auto build = [&](int r, WireWriter& w) {
        const std::size_t lo = bounds[static_cast<std::size_t>(r)];
        const std::size_t hi = bounds[static_cast<std::size_t>(r) + 1];
        w.put(Op::BandKeys);
        putLsh(w, lsh);
        w.put(modulus);
        w.put(signatures.hashes);
        w.putArray(signatures.values.data() + lo * h, (hi - lo) * h);
    };
    auto local = [&] {
        const std::size_t count = bounds[1];
        const auto t0 = Clock::now();
        if (count == n)
            s.local->computeBandKeys(signatures, lsh, modulus, keys);
        else if (count > 0)
            s.local->computeBandKeyRange(signatures, 0, count, lsh, modulus, keys);
        s.account(0, 1, secondsSince(t0), count, 0);
    };
    auto take = [&](int r, WireReader& in) {
        const std::size_t lo = bounds[static_cast<std::size_t>(r)];
        const std::size_t hi = bounds[static_cast<std::size_t>(r) + 1];
        in.getInto(keys + lo * bands, (hi - lo) * bands);
    };
    s.exchange(1, build, local, take);
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
    auto build = [&](int r, WireWriter& w) {
        const std::size_t jb = bounds[static_cast<std::size_t>(r)];
        const std::size_t je = bounds[static_cast<std::size_t>(r) + 1];
        const uint64_t mb = count ? buckets.bucketBegin[jb] : 0;
        const uint64_t me = count ? buckets.bucketBegin[je] : 0;
        std::vector<uint32_t>& docs = docsOf[static_cast<std::size_t>(r)];
        docs.assign(buckets.members.begin() + static_cast<std::ptrdiff_t>(mb),
                    buckets.members.begin() + static_cast<std::ptrdiff_t>(me));
        std::sort(docs.begin(), docs.end());
        docs.erase(std::unique(docs.begin(), docs.end()), docs.end());
        w.put(Op::Compare);
        w.put(buckets.band);
        w.put(sigs.hashes);
        w.put(req.minMatches);
        w.put(keyStride);
        w.put<uint64_t>(docs.size() * h);
        for (const uint32_t d : docs)
            w.putRaw(sigs.row(d), h * sizeof(uint32_t));
        w.put<uint64_t>(docs.size());
        for (const uint32_t d : docs)
            w.putRaw(&sigs.digests[d], sizeof(uint64_t));
        const auto stride = static_cast<std::size_t>(keyStride);
        w.put<uint64_t>(docs.size() * stride);
        for (const uint32_t d : docs)
            w.putRaw(req.keys + std::size_t(d) * std::size_t(req.bands), stride * sizeof(uint64_t));
        w.put<uint64_t>(me - mb);
        for (uint64_t i = mb; i < me; ++i) {
            const auto local = static_cast<uint32_t>(
                std::lower_bound(docs.begin(), docs.end(), buckets.members[i]) - docs.begin());
            w.putRaw(&local, sizeof local);
        }
        w.put<uint64_t>(je - jb + 1);
        for (std::size_t j = jb; j <= je; ++j) {
            const uint64_t b = count ? buckets.bucketBegin[j] - mb : 0;
            w.putRaw(&b, sizeof b);
        }
    };
    auto local = [&] {
        const std::size_t mine = bounds[1];
        const auto t0 = Clock::now();
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
    auto take = [&](int r, WireReader& in) {
        decided += in.get<uint64_t>();
        std::vector<ScoredPair> pairs;
        in.getVector(pairs);
        const std::vector<uint32_t>& docs = docsOf[static_cast<std::size_t>(r)];
        out.reserve(out.size() + pairs.size());
        for (const ScoredPair& p : pairs) {
            if (p.a >= docs.size() || p.b >= docs.size())
                throw std::runtime_error("rank " + std::to_string(r) +
                                         " returned a pair outside its documents");
            out.push_back({docs[p.a], docs[p.b], p.matches, p.exact});
        }
    };
    s.exchange(2, build, local, take);
    return decided;
}

std::size_t MpiBackend::startChunks(const ChunkSetup& setup) {
    State& s = *state_;
    const char* env = std::getenv("NEARDUP_MPI_CHUNKS");
    if (s.size() < 2 || (env && std::string(env) == "0")) return 0;
    s.throwIfNotStarted();
    s.files = *setup.files;
    s.setup = setup;
    s.setup.files = &s.files;
    s.constants = HashConstants::derive(setup.signature);
    std::vector<int> threadsOf(static_cast<std::size_t>(s.size()), 0);
    auto build = [&](int, WireWriter& w) {
        w.put(Op::BeginChunks);
        putSetup(w, s.setup, s.constants);
    };
    auto take = [&](int r, WireReader& in) {
        threadsOf[static_cast<std::size_t>(r)] = std::max(1, in.get<int>());
    };
    s.exchange(
        0, build, [] {}, take);
    // Each rank gets its threads plus one slots (a chunk queued behind those being read), up to
    // the tags MPI guarantees; rank 0 reads a chunk itself when every slot is taken.
    s.freeSlots.clear();
    s.slotRank.clear();
    int most = 0;
    for (int r = 1; r < s.size(); ++r)
        most = std::max(most, threadsOf[static_cast<std::size_t>(r)] + 1);
    for (int depth = 0; depth < most; ++depth)
        for (int r = 1; r < s.size(); ++r) {
            if (depth > threadsOf[static_cast<std::size_t>(r)]) continue;
            if (static_cast<int>(s.slotRank.size()) >= kMaxChunkSlots) break;
            s.freeSlots.push_back(static_cast<int>(s.slotRank.size()));
            s.slotRank.push_back(r);
        }
    s.localFree = std::max(1, setup.threads);
    s.chunkError.clear();
    s.replies.assign(s.slotRank.size(), {});
    s.replied.assign(s.slotRank.size(), 0);
    s.outbox.clear();
    s.commStop = false;
    s.commFailure = nullptr;
    s.chunkMode = true;
    s.comm = std::thread([&s] { s.communicate(); });
    return s.slotRank.size();
}

void MpiBackend::processChunk(const LineChunk& chunk, ChunkWork& work) {
    State& s = *state_;
    int slot = -1;
    {
        std::unique_lock<std::mutex> lock(s.slotMutex);
        s.slotFreed.wait(
            lock, [&] { return !s.freeSlots.empty() || s.localFree > 0 || !s.chunkError.empty(); });
        if (!s.chunkError.empty()) throw std::runtime_error(s.chunkError);
        if (!s.freeSlots.empty()) {
            slot = s.freeSlots.front();
            s.freeSlots.pop_front();
        } else {
            --s.localFree;
        }
    }
    struct Release {
        State& s;
        int slot;
        ~Release() {
            {
                const std::lock_guard<std::mutex> lock(s.slotMutex);
                if (slot >= 0)
                    s.freeSlots.push_back(slot);
                else
                    ++s.localFree;
            }
            s.slotFreed.notify_one();
        }
    } release{s, slot};

    if (slot < 0) {  // rank 0 reads this one itself
        std::unique_ptr<ChunkProcessor> processor;
        {
            const std::lock_guard<std::mutex> lock(s.processorMutex);
            if (!s.processors.empty()) {
                processor = std::move(s.processors.back());
                s.processors.pop_back();
            }
        }
        if (!processor)
            processor =
                std::make_unique<ChunkProcessor>(s.files, s.setup.reader, s.setup.signature);
        const auto t0 = Clock::now();
        processor->process(chunk, work, *s.local, s.constants,
                           s.local->signsConcurrently() ? nullptr : &s.localMutex);
        s.account(0, 0, secondsSince(t0), work.parsed.docs.size(), chunk.data.size());
        const std::lock_guard<std::mutex> lock(s.processorMutex);
        s.processors.push_back(std::move(processor));
        return;
    }

    const int rank = s.slotRank[static_cast<std::size_t>(slot)];
    std::vector<char> reply;
    {
        WireWriter w;
        w.put(Op::Chunk);
        w.put(static_cast<uint32_t>(slot));
        putChunk(w, chunk);
        std::unique_lock<std::mutex> lock(s.commMutex);
        if (s.commFailure) std::rethrow_exception(s.commFailure);
        s.outbox.emplace_back(slot, std::move(w.bytes()));
        const auto at = static_cast<std::size_t>(slot);
        s.replyReady.wait(lock, [&] { return s.replied[at] != 0 || s.commFailure; });
        if (!s.replied[at]) std::rethrow_exception(s.commFailure);
        s.replied[at] = 0;
        reply.swap(s.replies[at]);
    }
    WireReader in(reply);
    if (in.get<Status>() == Status::Error) {
        const std::string reason = "rank " + std::to_string(rank) + " (" +
                                   s.hosts[static_cast<std::size_t>(rank)] + "): " + in.getString();
        {
            const std::lock_guard<std::mutex> lock(s.slotMutex);
            if (s.chunkError.empty()) s.chunkError = reason;
        }
        s.slotFreed.notify_all();
        throw std::runtime_error(reason);
    }
    const auto seconds = in.get<double>();
    const auto items = in.get<uint64_t>();
    const auto byteCount = in.get<uint64_t>();
    s.account(rank, 0, seconds, items, byteCount);
    getChunkWork(in, work);
    const std::size_t hashes = static_cast<std::size_t>(s.constants.hashes);
    if (work.rows.size() != work.parsed.docs.size() * hashes)
        throw std::runtime_error("rank " + std::to_string(rank) +
                                 " returned a chunk with the wrong number of signatures");
}

void MpiBackend::finishChunks() {
    State& s = *state_;
    if (!s.chunkMode.exchange(false)) return;
    {
        const std::lock_guard<std::mutex> lock(s.commMutex);
        s.commStop = true;
    }
    if (s.comm.joinable()) s.comm.join();
    {
        const std::lock_guard<std::mutex> lock(s.processorMutex);
        s.processors.clear();
    }
    if (s.job.broken) return;
    try {
        WireWriter w;
        w.put(Op::EndChunks);
        for (int r = 1; r < s.size(); ++r)
            sendMessage(s.job.comm, r, kRequest, w.bytes());
    } catch (...) {
        s.job.broken = true;
    }
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

// ---------------------------------------------------------------------------------------------
// The other ranks

namespace {

// Executes one request with the local backend, writing the reply's payload after its status,
// busy time, item count and byte count.
void execute(Op op, WireReader& in, Backend& local, WireWriter& reply) {
    const auto t0 = Clock::now();
    WireWriter payload;
    uint64_t items = 0, bytes = 0;
    switch (op) {
        case Op::Signatures: {
            const HashConstants c = getConstants(in);
            SymbolBatch batch;
            in.getVector(batch.symbols);
            in.getVector(batch.docEnd);
            std::vector<uint32_t> rows(batch.size() * static_cast<std::size_t>(c.hashes));
            if (batch.size() > 0) local.computeSignatures(batch, c, rows.data());
            payload.putVector(rows);
            items = batch.size();
            bytes = 4 * batch.symbols.size();
            break;
        }
        case Op::BandKeys: {
            const LshParams lsh = getLsh(in);
            const auto modulus = in.get<uint64_t>();
            SignatureMatrix sigs;
            sigs.hashes = in.get<int>();
            in.getVector(sigs.values);
            const std::size_t n =
                sigs.hashes > 0 ? sigs.values.size() / std::size_t(sigs.hashes) : 0;
            sigs.digests.assign(n, 0);
            sigs.eligible.assign(n, 1);
            std::vector<uint64_t> keys(n * static_cast<std::size_t>(lsh.bands));
            if (n > 0) local.computeBandKeys(sigs, lsh, modulus, keys.data());
            payload.putVector(keys);
            items = n;
            break;
        }
        case Op::Compare: {
            BucketBatch batch;
            batch.band = in.get<int>();
            SignatureMatrix sigs;
            sigs.hashes = in.get<int>();
            const int minMatches = in.get<int>();
            const int keyStride = in.get<int>();
            in.getVector(sigs.values);
            in.getVector(sigs.digests);
            sigs.eligible.assign(sigs.digests.size(), 1);
            std::vector<uint64_t> keys;
            in.getVector(keys);
            in.getVector(batch.members);
            in.getVector(batch.bucketBegin);
            const CompareRequest req{&sigs, keyStride > 0 ? keys.data() : nullptr, keyStride,
                                     minMatches};
            std::vector<ScoredPair> pairs;
            const uint64_t decided =
                batch.buckets() > 0 ? local.compareBuckets(batch, req, pairs) : 0;
            payload.put(decided);
            payload.putVector(pairs);
            items = decided;
            break;
        }
        default:
            throw std::runtime_error("unknown request " +
                                     std::to_string(static_cast<uint32_t>(op)));
    }
    reply.put(Status::Ok);
    reply.put(secondsSince(t0));
    reply.put(items);
    reply.put(bytes);
    reply.putRaw(payload.bytes().data(), payload.bytes().size());
}

}  // namespace

// Reads chunks between BeginChunks and EndChunks: the main thread receives requests and sends
// replies (every MPI call of this rank), `threads` threads parse, normalize and sign. Returns
// true when rank 0 stopped the job meanwhile.
class ChunkService {
  public:
    ChunkService(Job::Impl& job, WireReader& in, Backend& local, FailureHook& hook, int threads)
        : job_(job), got_(getSetup(in)), local_(local), hook_(hook) {
        got_.setup.files = &got_.files;
        threads_ = threads > 0 ? threads : std::max(1, got_.setup.threads);
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

    bool serve() {
        for (int i = 0; i < threads_; ++i)
            pool_.emplace_back([this] { work(); });
        bool ending = false, stop = false;
        std::size_t inFlight = 0;
        std::vector<std::unique_ptr<Outgoing>> sending;
        auto sleep = std::chrono::microseconds(10);
        for (;;) {
            bool busy = false;
            int ready = 0;
            if (!ending)
                check(MPI_Iprobe(0, kRequest, job_.comm, &ready, MPI_STATUS_IGNORE), "MPI_Iprobe",
                      0);
            if (ready) {
                busy = true;
                const std::vector<char> bytes = receiveWaiting(job_.comm, 0, kRequest);
                WireReader in(bytes);
                const auto op = in.get<Op>();
                if (op == Op::Chunk) {
                    Task task;
                    task.slot = in.get<uint32_t>();
                    ++inFlight;
                    try {
                        hook_.fire(op);
                        getChunk(in, task.chunk);
                        {
                            const std::lock_guard<std::mutex> lock(mutex_);
                            tasks_.push_back(std::move(task));
                        }
                        wake_.notify_one();
                    } catch (const std::exception& e) {
                        WireWriter reply;
                        reply.put(Status::Error);
                        reply.putString(e.what());
                        const std::lock_guard<std::mutex> lock(mutex_);
                        done_.push_back({task.slot, std::move(reply.bytes())});
                    }
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
                auto out = std::make_unique<Outgoing>();
                out->bytes = std::move(d.bytes);
                out->start(job_.comm, 0, kChunkReply + static_cast<int>(d.slot));
                sending.push_back(std::move(out));
            }
            for (std::size_t i = 0; i < sending.size();) {
                if (sending[i]->done(0)) {
                    sending[i] = std::move(sending.back());
                    sending.pop_back();
                } else {
                    ++i;
                }
            }
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
    struct Task {
        uint32_t slot = 0;
        LineChunk chunk;
    };
    struct Done {
        uint32_t slot = 0;
        std::vector<char> bytes;
    };

    void work() {
        ChunkProcessor processor(got_.files, got_.setup.reader, got_.setup.signature);
        ChunkWork chunkWork;
        for (;;) {
            Task task;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return closing_ || !tasks_.empty(); });
                if (tasks_.empty()) return;
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            WireWriter reply;
            try {
                const auto t0 = Clock::now();
                processor.process(task.chunk, chunkWork, local_, got_.constants,
                                  local_.signsConcurrently() ? nullptr : &localMutex_);
                const double seconds = secondsSince(t0);
                reply.put(Status::Ok);
                reply.put(seconds);
                reply.put<uint64_t>(chunkWork.parsed.docs.size());
                reply.put<uint64_t>(task.chunk.data.size());
                putChunkWork(reply, chunkWork);
            } catch (const std::exception& e) {
                reply = WireWriter();
                reply.put(Status::Error);
                reply.putString(e.what());
            }
            const std::lock_guard<std::mutex> lock(mutex_);
            done_.push_back({task.slot, std::move(reply.bytes())});
        }
    }

    Job::Impl& job_;
    ReceivedSetup got_;
    Backend& local_;
    FailureHook& hook_;
    int threads_ = 1;
    std::vector<std::thread> pool_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Task> tasks_;
    std::vector<Done> done_;
    bool closing_ = false;
    std::mutex localMutex_;
};

int serveBackendRequests(Job& job, const LocalBackendFactory& factory, int threads) {
    Job::Impl& j = job.impl();
    std::unique_ptr<Backend> local;
    std::string description, setupError;
    FailureHook hook = FailureHook::fromEnvironment(j.rank);
    try {
        hook.fire(Op::Hello);
        local = factory(j.localRank, &description);
        description = local->description();
    } catch (const std::exception& e) {
        setupError = std::string("could not start its backend: ") + e.what();
    }
    for (;;) {
        // Idle ranks poll rarely: a few milliseconds of latency per request at most.
        const std::vector<char> bytes =
            receiveMessage(j.comm, 0, kRequest, std::chrono::microseconds(2000));
        WireReader in(bytes);
        const auto op = in.get<Op>();
        if (op == Op::Stop) return 0;
        WireWriter reply;
        if (op == Op::BeginChunks && local) {
            std::unique_ptr<ChunkService> service;
            try {
                service = std::make_unique<ChunkService>(j, in, *local, hook, threads);
                reply.put(Status::Ok);
                reply.put(0.0);
                reply.put<uint64_t>(0);
                reply.put<uint64_t>(0);
                reply.put(service->threads());
            } catch (const std::exception& e) {
                reply = WireWriter();
                reply.put(Status::Error);
                reply.putString(e.what());
            }
            sendMessage(j.comm, 0, kReply, reply.bytes());
            if (service && service->serve()) return 0;
            continue;
        }
        if (op == Op::Hello) {
            reply.put(setupError.empty() ? Status::Ok : Status::Error);
            reply.putString(j.host);
            reply.putString(setupError.empty() ? description : setupError);
        } else {
            try {
                if (!local) throw std::runtime_error(setupError);
                hook.fire(op);
                execute(op, in, *local, reply);
            } catch (const std::exception& e) {
                reply = WireWriter();
                reply.put(Status::Error);
                reply.putString(e.what());
            }
        }
        sendMessage(j.comm, 0, kReply, reply.bytes());
    }
}

}  // namespace neardup::mpi
