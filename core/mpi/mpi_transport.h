// Moving framed byte messages between the ranks of an MPI job: the only code that calls MPI
// (mpi_transport.cpp; this header is free of mpi.h). It owns the MPI library's lifetime and the
// job's communicator, turns every failed MPI call into TransportError, and frames a message as
// a byte count followed by pieces of at most 1 GiB (MPI counts are ints). Waits poll with
// sleeps that grow up to a bound, so that idle ranks leave the cores to the busy ones when
// several share a machine.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace neardup::mpi {

// Tags of the job's messages. A chunk's reply comes back with kChunkReplyTag + the request's
// slot, so that several threads of rank 0 can each wait for their own; kMaxChunkSlots keeps the
// tags below 32767, the least upper bound MPI guarantees.
constexpr int kRequestTag = 11;
constexpr int kReplyTag = 12;
constexpr int kChunkReplyTag = 100;
constexpr int kMaxChunkSlots = 1024;

// An MPI call failed: "MPI_Send (rank 2) failed: <MPI's error string>".
class TransportError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The MPI library, initialized for the lifetime of this object with MPI_THREAD_SERIALIZED, and
// the job's communicator: a duplicate of MPI_COMM_WORLD whose errors are returned, not fatal.
class Transport {
  public:
    // Throws std::runtime_error when MPI is already initialized or fails to start.
    static std::unique_ptr<Transport> start();
    // Frees the communicator and finalizes MPI.
    ~Transport();
    Transport(const Transport&) = delete;
    Transport& operator=(const Transport&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    int localRank() const { return localRank_; }  // rank among the ranks on this host
    const std::string& host() const { return host_; }

    // Ends every rank of the job, this one included (MPI_Abort), with `code` as the exit code the
    // launcher reports.
    void abort(int code);

    // Sends a whole message, blocking until its buffers may be reused.
    void send(int dest, int tag, const std::vector<char>& bytes);
    // Whether a message from `source` with `tag` is waiting.
    bool waiting(int source, int tag);
    // Where a message from any rank with any tag that is waiting comes from.
    struct Envelope {
        int source = 0;
        int tag = 0;
    };
    std::optional<Envelope> anyWaiting();
    // Receives a message that waiting() or anyWaiting() found.
    std::vector<char> receiveWaiting(int source, int tag);
    // Polls until a message from `source` with `tag` is there, sleeping between polls (up to
    // maxSleep), then receives it whole. Throws Cancelled when `cancel` is raised while
    // waiting (rank 0 after Ctrl-C, or the launcher's SIGTERM when another rank died).
    std::vector<char> receive(int source, int tag, std::chrono::microseconds maxSleep,
                              const std::atomic<bool>* cancel = nullptr);

  private:
    friend class OutgoingMessage;
    struct Handle;  // the communicator (mpi_transport.cpp)
    Transport();
    std::unique_ptr<Handle> handle_;
    int rank_ = 0, size_ = 1, localRank_ = 0;
    std::string host_;
};

// A message on its way out with nonblocking sends; its buffers live until done() says every
// send completed, or forever once abandoned.
class OutgoingMessage {
  public:
    OutgoingMessage(Transport& transport, int dest, int tag, std::vector<char> bytes);
    ~OutgoingMessage();
    OutgoingMessage(const OutgoingMessage&) = delete;
    OutgoingMessage& operator=(const OutgoingMessage&) = delete;

    bool done();
    // The ranks are out of step (cancelled, or MPI failed) and MPI may still read the buffers:
    // they are left allocated.
    void abandon();

  private:
    struct Sends;
    std::unique_ptr<Sends> sends_;
    int dest_;
};

// The MPI library's name and version ("Open MPI v4.1.4"); empty when MPI does not say.
std::string libraryVersion();

}  // namespace neardup::mpi
