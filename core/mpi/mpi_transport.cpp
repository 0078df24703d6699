// The MPI calls of the job, all of them: starting and ending MPI, the communicator, framed
// blocking and nonblocking sends, probes and receives. Every other file of core/mpi speaks in
// whole byte messages through Transport.
#include "mpi_transport.h"

#include <mpi.h>

#include <algorithm>
#include <thread>

#include "cancelled.h"

namespace neardup::mpi {

namespace {

constexpr std::size_t kPiece = std::size_t{1} << 30;

std::string errorText(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        return "MPI error " + std::to_string(code);
    return std::string(text, static_cast<std::size_t>(length));
}

void check(int code, const char* what, int peer) {
    if (code == MPI_SUCCESS) return;
    throw TransportError(std::string(what) +
                         (peer >= 0 ? " (rank " + std::to_string(peer) + ")" : "") +
                         " failed: " + errorText(code));
}

// The pieces of a message of `size` bytes: at most kPiece each.
template <class Piece>
void forEachPiece(std::size_t size, Piece piece) {
    for (std::size_t at = 0; at < size; at += kPiece)
        piece(at, static_cast<int>(std::min(kPiece, size - at)));
}

}  // namespace

struct Transport::Handle {
    MPI_Comm comm = MPI_COMM_NULL;
};

Transport::Transport() : handle_(std::make_unique<Handle>()) {}

std::unique_ptr<Transport> Transport::start() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) throw std::runtime_error("MPI is already initialized");
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        throw std::runtime_error("MPI_Init_thread failed");
    std::unique_ptr<Transport> t(new Transport());
    MPI_Comm& comm = t->handle_->comm;
    try {
        if (provided < MPI_THREAD_SERIALIZED)
            throw std::runtime_error("the MPI library does not support MPI_THREAD_SERIALIZED");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup", -1);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        MPI_Comm_rank(comm, &t->rank_);
        MPI_Comm_size(comm, &t->size_);
        MPI_Comm local = MPI_COMM_NULL;
        check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, t->rank_, MPI_INFO_NULL, &local),
              "MPI_Comm_split_type", -1);
        MPI_Comm_rank(local, &t->localRank_);
        MPI_Comm_free(&local);
        char name[MPI_MAX_PROCESSOR_NAME];
        int length = 0;
        MPI_Get_processor_name(name, &length);
        t->host_.assign(name, static_cast<std::size_t>(length));
    } catch (...) {
        if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
        t->handle_.reset();  // the destructor then leaves MPI to this handler
        MPI_Finalize();
        throw;
    }
    return t;
}

Transport::~Transport() {
    if (!handle_) return;
    MPI_Comm_free(&handle_->comm);
    MPI_Finalize();
}

void Transport::abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
}

void Transport::send(int dest, int tag, const std::vector<char>& bytes) {
    const uint64_t size = bytes.size();
    check(MPI_Send(&size, 1, MPI_UINT64_T, dest, tag, handle_->comm), "MPI_Send", dest);
    forEachPiece(bytes.size(), [&](std::size_t at, int n) {
        check(MPI_Send(bytes.data() + at, n, MPI_BYTE, dest, tag, handle_->comm), "MPI_Send", dest);
    });
}

bool Transport::waiting(int source, int tag) {
    int ready = 0;
    check(MPI_Iprobe(source, tag, handle_->comm, &ready, MPI_STATUS_IGNORE), "MPI_Iprobe", source);
    return ready != 0;
}

std::optional<Transport::Envelope> Transport::anyWaiting() {
    int ready = 0;
    MPI_Status st;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, handle_->comm, &ready, &st), "MPI_Iprobe", -1);
    if (!ready) return std::nullopt;
    return Envelope{st.MPI_SOURCE, st.MPI_TAG};
}

std::vector<char> Transport::receiveWaiting(int source, int tag) {
    uint64_t size = 0;
    check(MPI_Recv(&size, 1, MPI_UINT64_T, source, tag, handle_->comm, MPI_STATUS_IGNORE),
          "MPI_Recv", source);
    std::vector<char> bytes(static_cast<std::size_t>(size));
    forEachPiece(bytes.size(), [&](std::size_t at, int n) {
        check(
            MPI_Recv(bytes.data() + at, n, MPI_BYTE, source, tag, handle_->comm, MPI_STATUS_IGNORE),
            "MPI_Recv", source);
    });
    return bytes;
}

std::vector<char> Transport::receive(int source, int tag, std::chrono::microseconds maxSleep,
                                     const std::atomic<bool>* cancel) {
    auto sleep = std::chrono::microseconds(10);
    while (!waiting(source, tag)) {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        std::this_thread::sleep_for(sleep);
        sleep = std::min(sleep * 2, maxSleep);
    }
    return receiveWaiting(source, tag);
}

// The byte count and the message, and the requests of their sends.
struct OutgoingMessage::Sends {
    uint64_t size = 0;
    std::vector<char> bytes;
    std::vector<MPI_Request> requests;
};

OutgoingMessage::OutgoingMessage(Transport& transport, int dest, int tag, std::vector<char> bytes)
    : sends_(std::make_unique<Sends>()), dest_(dest) {
    Sends& s = *sends_;
    s.bytes = std::move(bytes);
    s.size = s.bytes.size();
    const MPI_Comm comm = transport.handle_->comm;
    try {
        s.requests.emplace_back();
        check(MPI_Isend(&s.size, 1, MPI_UINT64_T, dest, tag, comm, &s.requests.back()), "MPI_Isend",
              dest);
        forEachPiece(s.bytes.size(), [&](std::size_t at, int n) {
            s.requests.emplace_back();
            check(MPI_Isend(s.bytes.data() + at, n, MPI_BYTE, dest, tag, comm, &s.requests.back()),
                  "MPI_Isend", dest);
        });
    } catch (...) {
        abandon();  // sends already started may still read the buffers
        throw;
    }
}

OutgoingMessage::~OutgoingMessage() = default;

bool OutgoingMessage::done() {
    int flag = 0;
    check(MPI_Testall(static_cast<int>(sends_->requests.size()), sends_->requests.data(), &flag,
                      MPI_STATUSES_IGNORE),
          "MPI_Testall", dest_);
    return flag != 0;
}

void OutgoingMessage::abandon() {
    (void)sends_.release();  // leaked on purpose: MPI may still read it
}

std::string libraryVersion() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    if (MPI_Get_library_version(version, &length) != MPI_SUCCESS) return {};
    const std::string v(version, static_cast<std::size_t>(length));
    return v.substr(0, v.find_first_of("\n,"));
}

}  // namespace neardup::mpi
