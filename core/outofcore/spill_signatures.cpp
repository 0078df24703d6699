#include "spill_signatures.h"

#include <string>

namespace neardup {

SignatureSpill::SignatureSpill(WorkDir& dir, int hashes, int bands)
    : hashes_(hashes), bands_(bands) {
    rows_ = std::make_unique<SpillFile>(dir, "signatures.bin");
    for (int t = 0; t < bands; ++t)
        bandKeys_.push_back(std::make_unique<SpillFile>(dir, "keys-" + std::to_string(t) + ".bin"));
}

SignatureSpill::~SignatureSpill() = default;

void SignatureSpill::append(const uint32_t* rows, const uint64_t* rawKeys, std::size_t count) {
    if (count == 0) return;
    rows_->append(rows, count * static_cast<std::size_t>(rowBytes()));
    const auto b = static_cast<std::size_t>(bands_);
    column_.resize(count);
    for (std::size_t t = 0; t < b; ++t) {
        for (std::size_t i = 0; i < count; ++i)
            column_[i] = rawKeys[i * b + t];
        bandKeys_[t]->append(column_.data(), count * sizeof(uint64_t));
    }
    size_ += count;
}

void SignatureSpill::readRows(const uint32_t* docs, std::size_t count, uint32_t* out) const {
    const uint64_t bytes = rowBytes();
    const auto h = static_cast<std::size_t>(hashes_);
    for (std::size_t i = 0; i < count;) {
        std::size_t j = i + 1;
        while (j < count && docs[j] == docs[j - 1] + 1)
            ++j;
        rows_->readAt(docs[i] * bytes, out + i * h, static_cast<std::size_t>((j - i) * bytes));
        i = j;
    }
}

void SignatureSpill::dropBandKeys() {
    bandKeys_.clear();
    column_ = {};
}

void SignatureSpill::readBandKeys(int band, uint64_t first, std::size_t count,
                                  uint64_t* out) const {
    bandKeys_[static_cast<std::size_t>(band)]->readAt(first * sizeof(uint64_t), out,
                                                      count * sizeof(uint64_t));
}

}  // namespace neardup
