// Rank 0 reading input chunks on the other ranks (MpiBackend::startChunks .. finishChunks):
// each chunk goes to a free slot of a rank (its threads plus one each) or, when none is free,
// is read on rank 0 itself; one communication thread makes every MPI call meanwhile, so that
// the pipeline's threads only queue requests and wait for their slot's reply.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "mpi_rank0_state.h"

namespace neardup::mpi {

void MpiBackend::State::communicate() {
    std::vector<std::unique_ptr<OutgoingMessage>> sending;
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
                const int rank = slotRank[static_cast<std::size_t>(slot)];
                sending.push_back(std::make_unique<OutgoingMessage>(transport, rank, kRequestTag,
                                                                    std::move(bytes)));
                ++awaited;
            }
            while (const auto from = transport.anyWaiting()) {
                busy = true;
                const int slot = from->tag - kChunkReplyTag;
                if (slot < 0 || slot >= static_cast<int>(slotRank.size()) ||
                    slotRank[static_cast<std::size_t>(slot)] != from->source)
                    throw std::runtime_error("unexpected MPI message from rank " +
                                             std::to_string(from->source) + " while reading");
                std::vector<char> bytes = transport.receiveWaiting(from->source, from->tag);
                {
                    const std::lock_guard<std::mutex> lock(commMutex);
                    replies[static_cast<std::size_t>(slot)] = std::move(bytes);
                    replied[static_cast<std::size_t>(slot)] = 1;
                }
                replyReady.notify_all();
                if (awaited > 0) --awaited;
            }
            std::erase_if(sending, [](const auto& out) { return out->done(); });
            if (stop && sending.empty() && awaited == 0) return;
            if (awaited > 0 && cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
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
            out->abandon();
        const std::lock_guard<std::mutex> lock(commMutex);
        commFailure = std::current_exception();
        job.broken = true;
        replyReady.notify_all();
    }
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
    auto build = [&](int) {
        return encodeRequest(BeginChunksRequest{s.files, s.setup.reader, s.setup.signature,
                                                s.setup.threads, s.constants});
    };
    auto take = [&](int r, const BeginChunksReply& reply) {
        threadsOf[static_cast<std::size_t>(r)] = std::max(1, reply.threads);
    };
    s.exchange<BeginChunksReply>(
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
    s.communication = std::thread([&s] { s.communicate(); });
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
        const auto t0 = SteadyClock::now();
        processor->process(chunk, work, *s.local, s.constants,
                           s.local->signsConcurrently() ? nullptr : &s.localMutex);
        s.account(0, 0, secondsSince(t0), work.parsed.docs.size(), chunk.data.size());
        const std::lock_guard<std::mutex> lock(s.processorMutex);
        s.processors.push_back(std::move(processor));
        return;
    }

    const int rank = s.slotRank[static_cast<std::size_t>(slot)];
    std::vector<char> bytes;
    {
        std::vector<char> request =
            encodeRequest(ChunkRequestRef{static_cast<uint32_t>(slot), std::cref(chunk)});
        std::unique_lock<std::mutex> lock(s.commMutex);
        if (s.commFailure) std::rethrow_exception(s.commFailure);
        s.outbox.emplace_back(slot, std::move(request));
        const auto at = static_cast<std::size_t>(slot);
        s.replyReady.wait(lock, [&] { return s.replied[at] != 0 || s.commFailure; });
        if (!s.replied[at]) std::rethrow_exception(s.commFailure);
        s.replied[at] = 0;
        bytes.swap(s.replies[at]);
    }
    Answer<ChunkReply> answer = decodeReply<ChunkReply>(bytes);
    if (!answer.ok) {
        const std::string reason = s.failureOf(rank, answer.failure);
        {
            const std::lock_guard<std::mutex> lock(s.slotMutex);
            if (s.chunkError.empty()) s.chunkError = reason;
        }
        s.slotFreed.notify_all();
        throw std::runtime_error(reason);
    }
    s.account(rank, 0, answer.value.done);
    work = std::move(answer.value.work);
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
    if (s.communication.joinable()) s.communication.join();
    {
        const std::lock_guard<std::mutex> lock(s.processorMutex);
        s.processors.clear();
    }
    if (s.job.broken) return;
    try {
        const std::vector<char> end = encodeRequest(EndChunksRequest{});
        for (int r = 1; r < s.size(); ++r)
            s.transport.send(r, kRequestTag, end);
    } catch (...) {
        s.job.broken = true;
    }
}

}  // namespace neardup::mpi
