// The signature matrix within the memory budget (signature_memory.h).
#include "signature_memory.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <future>
#include <string>

#include "elapsed.h"
#include "memory_budget.h"
#include "run_memory.h"
#include "signature_file.h"

namespace neardup {

uint64_t SignatureMemory::floorBytes(const DocumentTable& docs) const {
    return documentFloorBytes(docs.size(), docs.idArena.size());
}

void SignatureMemory::checkFloor(const DocumentTable& docs, double readShare) const {
    const uint64_t floor = floorBytes(docs);
    if (floor <= budget_) return;
    if (readShare > 0 && readShare < 1) {
        const double whole = 1.0 / readShare;
        throw MemoryBudgetError(budget_,
                                static_cast<uint64_t>(static_cast<double>(docs.size()) * whole),
                                true, static_cast<uint64_t>(static_cast<double>(floor) * whole));
    }
    throw MemoryBudgetError(budget_, docs.size(), false, floor);
}

void SignatureMemory::growDocuments(DocumentTable& docs, SignatureMatrix& sigs, std::size_t more,
                                    std::size_t idBytes) {
    const std::size_t rows = docs.size() + more;
    if (rows > docs.file.capacity()) {
        const std::size_t capacity = docs.file.capacity();
        const std::size_t grown = std::max({rows, capacity + capacity / 4, std::size_t{1024}});
        docs.reserve(grown);
        sigs.digests.reserve(grown);
        sigs.eligible.reserve(grown);
    }
    const std::size_t ids = docs.idArena.size() + idBytes;
    if (ids > docs.idArena.capacity()) {
        const std::size_t capacity = docs.idArena.capacity();
        docs.idArena.reserve(std::max({ids, capacity + capacity / 4, std::size_t{4096}}));
    }
}

uint64_t SignatureMemory::storeCacheBytes() const {
    return neardup::storeCacheBytes(budget_);
}

bool SignatureMemory::fitsInMemory(const DocumentTable& docs, std::size_t n) const {
    const uint64_t need = documentTableBytes(docs) + storeCacheBytes() +
                          n * (rowBytes(params_) + 9 + inMemoryBytesPerDocument(params_));
    return need <= budget_;
}

uint64_t SignatureMemory::workingBytes(const DocumentTable& docs, const SignatureMatrix& sigs,
                                       const std::vector<ScoredPair>& pairs) const {
    const uint64_t resident = documentTableBytes(docs) + capacityBytes(sigs.digests) +
                              capacityBytes(sigs.eligible) + 2 * capacityBytes(pairs) +
                              storeCacheBytes();
    return budget_ > resident ? budget_ - resident : 0;
}

bool SignatureMemory::reserveRows(const DocumentTable& docs, SignatureMatrix& sigs,
                                  std::size_t rows, std::size_t expectedRows) {
    const auto h = static_cast<std::size_t>(params_.signature.hashes);
    if (rows * h <= sigs.values.capacity()) return true;
    const uint64_t resident =
        documentTableBytes(docs) + capacityBytes(sigs.digests) + capacityBytes(sigs.eligible);
    auto fits = [&](uint64_t newRows) {
        const uint64_t newBytes = newRows * rowBytes(params_);
        // While reading, the chunks in flight; later, the store's cache.
        const uint64_t growing = resident + readBuffers_ + capacityBytes(sigs.values) + newBytes;
        const uint64_t comparing =
            resident + storeCacheBytes() + newBytes + newRows * inMemoryBytesPerDocument(params_);
        return std::max(growing, comparing) <= budget_;
    };
    const uint64_t capacityRows = sigs.values.capacity() / h;
    const uint64_t grown =
        std::max<uint64_t>({rows, capacityRows + capacityRows / 2, uint64_t{4096}});
    // Growing to the expected rows at once spares the in-order stage the copies of every step
    // (and the page faults of every new copy).
    uint64_t newRows = grown;
    if (expectedRows > grown && fits(expectedRows))
        newRows = expectedRows;
    else if (!fits(grown))
        return false;
    sigs.values.reserve(static_cast<std::size_t>(newRows) * h);
    adviseHugePages(sigs.values.data(), sigs.values.capacity() * sizeof(uint32_t));
    return true;
}

void SignatureMemory::startSpill(SignatureMatrix& sigs, std::size_t rows, RunResult& run) {
    spill_ = std::make_unique<SignatureSpill>(work_, params_.signature.hashes, params_.lsh.bands,
                                              spillRowsAt_);
    run.spilled = true;
    report_.info("signatures exceed the memory budget of " + formatBytes(budget_) +
                 ": spilling signatures and band keys to " + work_.path());
    // The rows held so far are keyed where they lie, a large block at a time: the keys are
    // computed on every thread and each block goes to the files in one write, so this one-time
    // move of up to the whole budget does not run on one thread while the others wait.
    const auto h = static_cast<std::size_t>(params_.signature.hashes);
    const auto bands = static_cast<std::size_t>(params_.lsh.bands);
    std::vector<uint64_t> keys;
    for (std::size_t first = 0; first < rows; first += kStartSpillBlockRows) {
        const std::size_t count = std::min(kStartSpillBlockRows, rows - first);
        keys.resize(count * bands);
        backend_.computeBandKeyRange(sigs, first, count, params_.lsh, 0, keys.data());
        spill_->append(sigs.values.data() + first * h, keys.data(), count);
    }
    std::vector<uint32_t>().swap(sigs.values);
}

void SignatureMemory::spillCachedRows(sigfile::OpenedRows rows, std::size_t documents,
                                      RunResult& run) {
    const int hashes = params_.signature.hashes, bands = params_.lsh.bands;
    spill_ = rows.sharedRows > 0
                 ? std::make_unique<SignatureSpill>(
                       work_, hashes, bands, std::move(rows.baseFd), rows.baseValuesAt,
                       static_cast<std::size_t>(rows.sharedRows), std::move(rows.fd), rows.valuesAt)
                 : std::make_unique<SignatureSpill>(work_, hashes, bands, std::move(rows.fd),
                                                    rows.valuesAt);
    run.spilled = true;
    report_.info("the project's signatures for this dataset exceed the memory budget of " +
                 formatBytes(budget_) + ": streaming them from its cache, band keys to " +
                 work_.path());
    keyCachedRows(documents);
}

void SignatureMemory::spillCachedPrefix(UniqueFd rows, uint64_t rowsAt, std::size_t documents,
                                        RunResult& run) {
    spill_ = std::make_unique<SignatureSpill>(work_, params_.signature.hashes, params_.lsh.bands,
                                              spillRowsAt_, std::move(rows), rowsAt, documents);
    run.spilled = true;
    report_.info("the reference's signatures exceed the memory budget of " + formatBytes(budget_) +
                 ": streaming them from its cache, the inputs' rows and " + "every band key to " +
                 work_.path());
    keyCachedRows(documents);
}

void SignatureMemory::keyCachedRows(std::size_t documents) {
    const auto start = SteadyClock::now();
    const int hashes = params_.signature.hashes;
    const auto bands = static_cast<std::size_t>(params_.lsh.bands);
    // Blocks as large as the cache's own writes (4 MiB at H = 128): one read call each. The next
    // block is read while the backend computes this one's keys, so that copying a gigabyte from
    // the page cache does not wait for the keys, nor the keys for it.
    const std::size_t blockRows = sigfile::kRowBlock;
    SignatureMatrix next;
    auto readBlock = [this, hashes, blockRows, documents](std::size_t first, SignatureMatrix& m) {
        // Sized, not zeroed (SignatureMatrix::resize fills): every value is read over.
        const std::size_t count = std::min(blockRows, documents - first);
        m.hashes = hashes;
        m.values.resize(count * static_cast<std::size_t>(hashes));
        m.digests.resize(count);
        m.eligible.resize(count);
        spill_->readRange(first, count, m.values.data());
    };
    std::future<void> reading;
    if (documents > 0) readBlock(0, block_);
    for (std::size_t first = 0; first < documents; first += blockRows) {
        report_.checkCancel();
        const std::size_t following = first + blockRows;
        if (following < documents)
            reading = std::async(std::launch::async, readBlock, following, std::ref(next));
        const std::size_t count = block_.size();
        blockKeys_.resize(count * bands);
        try {
            backend_.computeBandKeys(block_, params_.lsh, 0, blockKeys_.data());
            spill_->appendKeys(blockKeys_.data(), count);
        } catch (...) {
            if (reading.valid()) reading.wait();
            throw;
        }
        if (reading.valid()) {
            reading.get();
            std::swap(block_, next);
        }
    }
    block_ = SignatureMatrix{};
    blockKeys_ = {};
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f s", secondsSince(start));
    report_.info("streamed " + std::to_string(documents) + " cached signatures into " +
                 std::to_string(bands) + " bands' keys in " + seconds);
}

void SignatureMemory::spillBlock() {
    const std::size_t n = block_.size();
    blockKeys_.resize(n * static_cast<std::size_t>(params_.lsh.bands));
    backend_.computeBandKeys(block_, params_.lsh, 0, blockKeys_.data());
    spill_->append(block_.values.data(), blockKeys_.data(), n);
}

void SignatureMemory::releaseSpilledKeys() {
    if (spill_) spill_->dropBandKeys();
    block_ = SignatureMatrix{};
    blockKeys_ = {};
}

void SignatureMemory::releaseSpill() {
    spill_.reset();
    block_ = SignatureMatrix{};
    blockKeys_ = {};
}

}  // namespace neardup
