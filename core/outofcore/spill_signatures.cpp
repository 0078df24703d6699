#include "spill_signatures.h"

#include <algorithm>
#include <limits>
#include <string>

namespace neardup {

SignatureSpill::SignatureSpill(WorkDir& dir, int hashes, int bands, uint64_t rowsAt)
    : hashes_(hashes), bands_(bands), rowsAt_(rowsAt) {
    rows_ = std::make_unique<SpillFile>(dir, "signatures.bin", SpillFile::Kind::Keepable);
    if (rowsAt > 0) {
        const std::vector<char> room(static_cast<std::size_t>(rowsAt), '\0');
        rows_->append(room.data(), room.size());
    }
    for (int t = 0; t < bands; ++t)
        bandKeys_.push_back(std::make_unique<SpillFile>(dir, "keys-" + std::to_string(t) + ".bin"));
}

SignatureSpill::SignatureSpill(WorkDir& dir, int hashes, int bands, UniqueFd rows, uint64_t rowsAt)
    : hashes_(hashes),
      bands_(bands),
      rowsAt_(0),
      givenRows_(std::move(rows)),
      givenAt_(rowsAt),
      givenCount_(std::numeric_limits<uint64_t>::max()) {
    for (int t = 0; t < bands; ++t)
        bandKeys_.push_back(std::make_unique<SpillFile>(dir, "keys-" + std::to_string(t) + ".bin"));
}

SignatureSpill::SignatureSpill(WorkDir& dir, int hashes, int bands, uint64_t rowsAt, UniqueFd given,
                               uint64_t givenAt, std::size_t givenCount)
    : SignatureSpill(dir, hashes, bands, rowsAt) {
    givenRows_ = std::move(given);
    givenAt_ = givenAt;
    givenCount_ = givenCount;
    rows_->appendHole(givenCount_ * rowBytes());
}

SignatureSpill::SignatureSpill(WorkDir& dir, int hashes, int bands, UniqueFd given,
                               uint64_t givenAt, std::size_t givenCount, UniqueFd rows,
                               uint64_t rowsAt)
    : SignatureSpill(dir, hashes, bands, std::move(given), givenAt) {
    givenCount_ = givenCount;
    restRows_ = std::move(rows);
    rowsAt_ = rowsAt;
}

SignatureSpill::~SignatureSpill() = default;

void SignatureSpill::append(const uint32_t* rows, const uint64_t* rawKeys, std::size_t count) {
    if (count == 0) return;
    rows_->append(rows, count * static_cast<std::size_t>(rowBytes()));
    appendKeys(rawKeys, count);
}

void SignatureSpill::appendKeys(const uint64_t* rawKeys, std::size_t count) {
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
    rowsRead_.fetch_add(count, std::memory_order_relaxed);
    const uint64_t bytes = rowBytes();
    const auto h = static_cast<std::size_t>(hashes_);
    // The documents of a comparison pass are often dense (most of a band's buckets' members):
    // one read per run of consecutive rows would be a system call for every few rows. Rows a
    // short gap apart are read as one span, the rows between them read too and dropped: copying
    // a few KiB from the page cache costs less than another call. Spans stay below kSpanBytes.
    constexpr uint64_t kGapBytes = uint64_t{8} << 10;
    constexpr uint64_t kSpanBytes = uint64_t{1} << 20;
    const uint64_t maxGap = std::max<uint64_t>(1, kGapBytes / bytes);
    const uint64_t maxRows = std::max<uint64_t>(1, kSpanBytes / bytes);
    thread_local std::vector<uint32_t> span;
    for (std::size_t i = 0; i < count;) {
        std::size_t j = i + 1;
        while (j < count && docs[j] - docs[j - 1] <= maxGap && docs[j] - docs[i] < maxRows)
            ++j;
        const uint64_t rows = uint64_t{docs[j - 1]} - docs[i] + 1;
        if (rows == j - i) {  // consecutive: straight into place
            readRowSpan(docs[i], rows, out + i * h);
        } else {
            span.resize(static_cast<std::size_t>(rows) * h);
            readRowSpan(docs[i], rows, span.data());
            for (std::size_t k = i; k < j; ++k)
                std::copy_n(span.data() + (docs[k] - docs[i]) * h, h, out + k * h);
        }
        i = j;
    }
}

void SignatureSpill::readRange(uint64_t first, std::size_t count, uint32_t* out) const {
    readRowSpan(first, count, out);
}

void SignatureSpill::readRowSpan(uint64_t first, uint64_t count, uint32_t* out) const {
    const uint64_t bytes = rowBytes();
    if (first < givenCount_) {
        const uint64_t given = std::min(count, givenCount_ - first);
        readExactlyAt(givenRows_.get(), givenAt_ + first * bytes, out,
                      static_cast<std::size_t>(given * bytes), "the project's signature cache");
        first += given;
        count -= given;
        out += given * static_cast<uint64_t>(hashes_);
    }
    if (count == 0) return;
    if (restRows_.valid())
        readExactlyAt(restRows_.get(), rowsAt_ + first * bytes, out,
                      static_cast<std::size_t>(count * bytes), "the project's signature cache");
    else
        rows_->readAt(rowsAt_ + first * bytes, out, static_cast<std::size_t>(count * bytes));
}

void SignatureSpill::fillGivenRows(std::size_t blockRows, const std::function<void()>& between) {
    if (!rows_) return;  // every row lies where it was given
    const uint64_t bytes = rowBytes();
    std::vector<uint32_t> block;
    for (uint64_t first = 0; first < givenCount_; first += blockRows) {
        between();
        const uint64_t count = std::min<uint64_t>(blockRows, givenCount_ - first);
        block.resize(static_cast<std::size_t>(count) * static_cast<std::size_t>(hashes_));
        readExactlyAt(givenRows_.get(), givenAt_ + first * bytes, block.data(),
                      static_cast<std::size_t>(count * bytes), "the project's signature cache");
        rows_->writeAt(rowsAt_ + first * bytes, block.data(),
                       static_cast<std::size_t>(count * bytes));
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
