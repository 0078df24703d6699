// The signature matrix within the memory budget (signature_memory.h).
#include "signature_memory.h"

#include <algorithm>
#include <string>

#include "memory_budget.h"
#include "run_memory.h"

namespace neardup {

bool SignatureMemory::fitsInMemory(const DocumentTable& docs, std::size_t n) const {
    const uint64_t need = documentTableBytes(docs) + kStoreCacheBytes +
                          n * (rowBytes(params_) + 9 + inMemoryBytesPerDocument(params_));
    return need <= budget_;
}

uint64_t SignatureMemory::workingBytes(const DocumentTable& docs, const SignatureMatrix& sigs,
                                       const std::vector<ScoredPair>& pairs) const {
    const uint64_t resident = documentTableBytes(docs) + capacityBytes(sigs.digests) +
                              capacityBytes(sigs.eligible) + 2 * capacityBytes(pairs) +
                              kStoreCacheBytes;
    return budget_ > resident ? budget_ - resident : 0;
}

bool SignatureMemory::reserveRows(const DocumentTable& docs, SignatureMatrix& sigs,
                                  std::size_t rows) {
    const auto h = static_cast<std::size_t>(params_.signature.hashes);
    if (rows * h <= sigs.values.capacity()) return true;
    const uint64_t capacityRows = sigs.values.capacity() / h;
    const uint64_t newRows =
        std::max<uint64_t>({rows, capacityRows + capacityRows / 2, uint64_t{4096}});
    const uint64_t newBytes = newRows * rowBytes(params_);
    const uint64_t resident =
        documentTableBytes(docs) + capacityBytes(sigs.digests) + capacityBytes(sigs.eligible);
    // While reading, the chunks in flight; later, the store's cache.
    const uint64_t growing = resident + readBuffers_ + capacityBytes(sigs.values) + newBytes;
    const uint64_t comparing =
        resident + kStoreCacheBytes + newBytes + newRows * inMemoryBytesPerDocument(params_);
    if (std::max(growing, comparing) > budget_) return false;
    sigs.values.reserve(static_cast<std::size_t>(newRows) * h);
    return true;
}

void SignatureMemory::startSpill(SignatureMatrix& sigs, std::size_t rows, RunResult& run) {
    spill_ = std::make_unique<SignatureSpill>(work_, params_.signature.hashes, params_.lsh.bands);
    run.spilled = true;
    report_.info("signatures exceed the memory budget of " + formatBytes(budget_) +
                 ": spilling signatures and band keys to " + work_.path());
    const auto h = static_cast<std::size_t>(params_.signature.hashes);
    for (std::size_t first = 0; first < rows; first += kSpillBlockRows) {
        const std::size_t count = std::min(kSpillBlockRows, rows - first);
        block_.resize(count, params_.signature.hashes);
        std::copy(sigs.values.begin() + static_cast<std::ptrdiff_t>(first * h),
                  sigs.values.begin() + static_cast<std::ptrdiff_t>((first + count) * h),
                  block_.values.begin());
        spillBlock();
    }
    std::vector<uint32_t>().swap(sigs.values);
}

void SignatureMemory::spillBlock() {
    const std::size_t n = block_.size();
    blockKeys_.resize(n * static_cast<std::size_t>(params_.lsh.bands));
    backend_.computeBandKeys(block_, params_.lsh, 0, blockKeys_.data());
    spill_->append(block_.values.data(), blockKeys_.data(), n);
}

void SignatureMemory::releaseSpill() {
    spill_.reset();
    block_ = SignatureMatrix{};
    blockKeys_ = {};
}

}  // namespace neardup
