#include "spill_compare.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <type_traits>

#include "band_entries.h"
#include "bucket_compare.h"
#include "elapsed.h"
#include "hash_math.h"
#include "memory_budget.h"
#include "spill_compare_arena.h"

namespace neardup {

namespace {

// Keys read at once from a band file while loading or partitioning its entries.
constexpr std::size_t kKeyBlock = std::size_t{1} << 16;
// Floors that keep the work going, slowly, when the budget is already spent on what must stay
// resident (the document table): entries per partition and rows per pass.
constexpr uint64_t kMinPartitionBytes = uint64_t{16} << 10;
constexpr std::size_t kMinPassRows = 2 * kCompareTile;
// More partition files than this would run into descriptor limits; partitions then exceed
// their share of the budget instead.
constexpr std::size_t kMaxPartitions = 256;
// Rows read per call to the spill file on one thread.
constexpr std::size_t kReadBlock = 512;

// Every bucket lands whole in one partition, and a hash spreads the keys of every scheme
// (sum keys cluster around r * 2^31) evenly.
std::size_t partitionOf(uint64_t key, std::size_t partitions) {
    return static_cast<std::size_t>(((hashmath::mix64(key) >> 32) * partitions) >> 32);
}

}  // namespace

SpilledComparison::SpilledComparison(Backend& backend, WorkDir& dir, const SignatureSpill& spill,
                                     const std::vector<uint64_t>& digests,
                                     const std::vector<uint8_t>& eligible, const LshParams& lsh,
                                     uint64_t modulus, int minMatches, int threads)
    : backend_(backend),
      dir_(dir),
      spill_(spill),
      digests_(digests),
      eligible_(eligible),
      lsh_(lsh),
      modulus_(modulus),
      minMatches_(minMatches),
      threads_(threads),
      arena_(std::make_unique<Arena>(threads)) {
    for (const uint8_t e : eligible)
        eligibleCount_ += e ? 1 : 0;
}

SpilledComparison::~SpilledComparison() = default;

void SpilledComparison::spillPairsTo(SpillFile& file, std::size_t bufferPairs) {
    pairFile_ = &file;
    pairBuffer_ = std::max<std::size_t>(bufferPairs, 1);
}

void SpilledComparison::flushPairs(std::vector<ScoredPair>& pairs) {
    if (pairFile_ == nullptr || pairs.empty()) return;
    pairFile_->append(pairs.data(), pairs.size() * sizeof(ScoredPair));
    pairs.clear();
}

void SpilledComparison::spillFullPairs(std::vector<ScoredPair>& pairs) {
    if (pairs.size() >= pairBuffer_) flushPairs(pairs);
}

uint64_t SpilledComparison::bytesPerPassRow() const {
    // Row and every band's keys (twice: by row and by slot), digest and flag of the small
    // matrix, its id, and the member entries of the pass: global in component order, sorted
    // with their slots, in document order, each slot's local index, local bucket members, and at
    // most one bucket start and one component start per two members.
    return spill_.rowBytes() + 16 * static_cast<uint64_t>(lsh_.bands) + 8 + 1 + 4 + 4 + 8 + 4 + 4 +
           4 + 4 + 4;
}

uint64_t SpilledComparison::run(uint64_t workingBytes, std::vector<BandStats>& stats,
                                std::vector<ScoredPair>& pairs, const Progress& progress,
                                const std::function<void()>& checkCancel) {
    decided_ = 0;
    const auto bands = static_cast<uint64_t>(lsh_.bands);
    CandidateComponents::Grouped grouped = groupBands(workingBytes, stats, progress, checkCancel);

    // Step two: whole components, as many as a pass's rows allow, read once and compared in
    // every band. The grouping's own memory comes off the pass.
    const uint64_t groupedBytes = capacityBytes(grouped.documents) + capacityBytes(grouped.begin);
    const std::size_t passRows = passRowsFor(workingBytes, groupedBytes);
    reservePass(passRows);
    minPassRows_ = minPassRows_ == 0 ? passRows : std::min(minPassRows_, passRows);
    // Progress: the rows of the components a pass holds, compared so far.
    // A component's documents ascend: it holds reference documents alone when its last does.
    auto referenceOnly = [&](std::size_t c) {
        return inReference(grouped.documents[grouped.begin[c] + grouped.size(c) - 1]);
    };
    for (std::size_t c = 0; c < grouped.components() && referenceRows_ > 0; ++c)
        if (grouped.size(c) > passRows && !referenceOnly(c)) referenceRows_ = 0;
    uint64_t passedRows = 0, rowsInPasses = 0;
    for (std::size_t c = 0; c < grouped.components(); ++c)
        if (grouped.size(c) <= passRows && !referenceOnly(c)) rowsInPasses += grouped.size(c);
    components_ = grouped.components();
    auto runPass = [&] {
        ++passes_;
        passedRows += pass_.members.size();
        comparePass(pairs);
        progress(bands + passedRows * bands / std::max<uint64_t>(rowsInPasses, 1), 2 * bands);
    };
    std::vector<uint8_t> large;  // members of the components larger than a pass
    uint64_t largeCount = 0;
    for (std::size_t c = 0; c < grouped.components(); ++c) {
        const std::size_t size = grouped.size(c);
        const uint32_t* docs = grouped.documents.data() + grouped.begin[c];
        if (referenceOnly(c)) continue;
        if (size > passRows) {
            if (large.empty()) large.assign(spill_.size(), 0);
            for (std::size_t i = 0; i < size; ++i)
                large[docs[i]] = 1;
            largeCount += size;
            continue;
        }
        if (pass_.members.size() + size > passRows) {
            checkCancel();
            runPass();
        }
        componentBegin_.push_back(static_cast<uint32_t>(pass_.members.size()));
        pass_.members.insert(pass_.members.end(), docs, docs + size);
    }
    checkCancel();
    if (!pass_.members.empty()) runPass();
    grouped = {};
    largeDocuments_ = largeCount;
    if (largeCount > 0) compareLargeComponents(large, largeCount, workingBytes, pairs, checkCancel);
    progress(2 * bands, 2 * bands);
    return decided_;
}

std::size_t SpilledComparison::passRowsFor(uint64_t workingBytes, uint64_t heldBytes) const {
    const uint64_t passBytes = workingBytes > heldBytes ? workingBytes - heldBytes : 0;
    return std::max<std::size_t>(kMinPassRows,
                                 static_cast<std::size_t>(passBytes / bytesPerPassRow()));
}

CandidateComponents::Grouped SpilledComparison::groupBands(uint64_t workingBytes,
                                                           std::vector<BandStats>& stats,
                                                           const Progress& progress,
                                                           const std::function<void()>& check) {
    // Step one: each band's entries (or one partition of them at a time) sorted into buckets;
    // every bucket is counted, and those of two or more members are joined into components.
    const auto start = SteadyClock::now();
    const uint64_t forest = spill_.size() * CandidateComponents::kBytesPerDocument;
    const uint64_t joining = workingBytes > forest ? workingBytes - forest : 0;
    CandidateComponents components(spill_.size());
    std::vector<BucketEntry> entries;
    for (int band = 0; band < lsh_.bands; ++band) {
        check();
        BandStatsBuilder builder(band);
        // The joining holds nothing but the forest beside the entries: the other half of its
        // memory is the radix passes' second buffer.
        forEachBandPart(band, eligible_, eligibleCount_, joining, true, entries, check,
                        [&](const BucketEntry* sorted, std::size_t count) {
                            forEachBucket(sorted, count,
                                          [&](const BucketEntry* members, std::size_t size) {
                                              builder.add(members->first, size);
                                              if (size >= 2) components.joinBucket(members, size);
                                          });
                        });
        stats.push_back(builder.finish());
        entries_ += eligibleCount_;
        progress(static_cast<uint64_t>(band + 1), 2 * static_cast<uint64_t>(lsh_.bands));
    }
    std::vector<BucketEntry>().swap(entries);
    CandidateComponents::Grouped grouped = components.finish(threads_);
    bucketSeconds_ += secondsSince(start);
    return grouped;
}

template <typename Sorted>
void SpilledComparison::forEachBandPart(int band, const std::vector<uint8_t>& take,
                                        uint64_t takeCount, uint64_t workingBytes,
                                        bool otherHalfFree, std::vector<BucketEntry>& entries,
                                        const std::function<void()>& checkCancel, Sorted&& sorted) {
    // Half of the working memory holds the band's entries, or one partition of them.
    const uint64_t entryBytes = takeCount * sizeof(BucketEntry);
    const uint64_t entryShare = std::max(workingBytes / 2, kMinPartitionBytes);
    std::size_t partitions = 1;
    if (entryBytes > entryShare)
        partitions = std::min<std::size_t>(
            kMaxPartitions, static_cast<std::size_t>((entryBytes + entryShare - 1) / entryShare));
    maxPartitions_ = std::max(maxPartitions_, partitions);
    // Radix passes need a second buffer as large as the entries: the other half, where it is
    // free and holds them. The entries' vector gets room for both before it is filled, so that
    // it never grows by copying (which would hold three times the entries at once).
    auto radix = [&](uint64_t count) {
        return otherHalfFree && 2 * count * sizeof(BucketEntry) <= workingBytes;
    };
    auto makeRoom = [&](uint64_t count) {
        const auto want = static_cast<std::size_t>(radix(count) ? 2 * count : count);
        if (entries.capacity() >= want) return;
        std::vector<BucketEntry>().swap(entries);
        entries.reserve(want);
    };
    auto sortEntries = [&] {
        const std::size_t n = entries.size();
        if (!radix(n)) {
            arena_->arena.execute([&] { tbb::parallel_sort(entries.begin(), entries.end()); });
            sorted(static_cast<const BucketEntry*>(entries.data()), n);
            return;
        }
        entries.resize(2 * n);
        const BucketEntry* inOrder = nullptr;
        arena_->arena.execute([&] {
            inOrder = radixSortBandEntries(entries.data(), entries.data() + n, n, loadedKeyBits_);
        });
        sorted(inOrder, n);
    };
    if (partitions == 1) {
        makeRoom(takeCount);
        loadEntries(band, take, takeCount, entries);
        sortEntries();
        return;
    }
    loadPartitions(band, take, partitions, workingBytes, checkCancel);
    for (std::size_t p = 0; p < partitions; ++p) {
        checkCancel();
        SpillFile& file = *partitions_[p];
        const uint64_t count = file.size() / sizeof(BucketEntry);
        entries.clear();
        makeRoom(count);
        entries.resize(static_cast<std::size_t>(count));
        if (!entries.empty()) file.readAt(0, entries.data(), entries.size() * sizeof(BucketEntry));
        partitions_[p].reset();  // its disk space is returned at once
        sortEntries();
    }
    partitions_.clear();
}

void SpilledComparison::loadEntries(int band, const std::vector<uint8_t>& take, uint64_t takeCount,
                                    std::vector<BucketEntry>& entries) {
    entries.clear();
    entries.reserve(static_cast<std::size_t>(takeCount));
    loadedKeyBits_ = 0;
    std::vector<uint64_t> keys(kKeyBlock);
    const std::size_t n = spill_.size();
    for (std::size_t first = 0; first < n; first += kKeyBlock) {
        const std::size_t count = std::min(kKeyBlock, n - first);
        spill_.readBandKeys(band, first, count, keys.data());
        for (std::size_t i = 0; i < count; ++i)
            if (take[first + i]) {
                const uint64_t key = modulus_ ? keys[i] % modulus_ : keys[i];
                loadedKeyBits_ |= key;
                entries.emplace_back(key, static_cast<uint32_t>(first + i));
            }
    }
}

void SpilledComparison::loadPartitions(int band, const std::vector<uint8_t>& take,
                                       std::size_t partitions, uint64_t workingBytes,
                                       const std::function<void()>& checkCancel) {
    partitions_.clear();
    for (std::size_t p = 0; p < partitions; ++p)
        partitions_.push_back(std::make_unique<SpillFile>(
            dir_, "band-" + std::to_string(band) + "-part-" + std::to_string(p) + ".bin"));
    // Write buffers share a quarter of the working memory.
    const std::size_t perBuffer = std::clamp<std::size_t>(
        static_cast<std::size_t>(workingBytes / 4 / partitions / sizeof(BucketEntry)), 256,
        std::size_t{1} << 16);
    std::vector<std::vector<BucketEntry>> buffers(partitions);
    for (auto& b : buffers)
        b.reserve(perBuffer);
    loadedKeyBits_ = 0;
    std::vector<uint64_t> keys(kKeyBlock);
    const std::size_t n = spill_.size();
    for (std::size_t first = 0; first < n; first += kKeyBlock) {
        checkCancel();
        const std::size_t count = std::min(kKeyBlock, n - first);
        spill_.readBandKeys(band, first, count, keys.data());
        for (std::size_t i = 0; i < count; ++i) {
            if (!take[first + i]) continue;
            const uint64_t key = modulus_ ? keys[i] % modulus_ : keys[i];
            loadedKeyBits_ |= key;
            const std::size_t p = partitionOf(key, partitions);
            buffers[p].emplace_back(key, static_cast<uint32_t>(first + i));
            if (buffers[p].size() == perBuffer) {
                partitions_[p]->append(buffers[p].data(), perBuffer * sizeof(BucketEntry));
                buffers[p].clear();
            }
        }
    }
    for (std::size_t p = 0; p < partitions; ++p)
        if (!buffers[p].empty())
            partitions_[p]->append(buffers[p].data(), buffers[p].size() * sizeof(BucketEntry));
}

void SpilledComparison::placeMembers(std::vector<uint32_t>& rowOfSlot) {
    // The pass's rows are read in document order (passDocs_), and each slot of pass_.members
    // needs the place of its document's row there: the members (distinct: a document has one
    // key per band, and one component) sorted with their slots, on every thread, give both.
    const std::size_t n = pass_.members.size();
    placed_.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        placed_[i] = uint64_t{pass_.members[i]} << 32 | i;
    arena_->arena.execute([&] { tbb::parallel_sort(placed_.begin(), placed_.end()); });
    passDocs_.resize(n);
    rowOfSlot.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
        passDocs_[r] = static_cast<uint32_t>(placed_[r] >> 32);
        rowOfSlot[static_cast<uint32_t>(placed_[r])] = static_cast<uint32_t>(r);
    }
}

void SpilledComparison::comparePass(std::vector<ScoredPair>& pairs) {
    if (pass_.members.empty()) return;
    const auto start = SteadyClock::now();
    // Slot i of pass_.members (component order) finds its row at localOf_[i]. Inside a
    // component the documents ascend, so local indices do too: buckets built from them list
    // members in document order, as in memory.
    placeMembers(localOf_);
    const std::size_t n = pass_.members.size();
    const auto bands = static_cast<std::size_t>(lsh_.bands);
    load(passDocs_.data(), n, lsh_.bands, loaded_);
    componentBegin_.push_back(static_cast<uint32_t>(n));
    // Every band's keys again, band-major in slot order: each band's grouping below then reads
    // its keys in sequence instead of one cache miss per member and band in the row-major keys.
    slotKeys_.resize(n * bands);
    for (std::size_t i = 0; i < n; ++i) {
        const uint64_t* row = loaded_.keys.data() + std::size_t{localOf_[i]} * bands;
        for (std::size_t t = 0; t < bands; ++t)
            slotKeys_[t * n + i] = row[t];
    }
    const CompareRequest req{&loaded_.sigs, loaded_.keys.data(), lsh_.bands, minMatches_};
    std::vector<BucketEntry>& local = componentEntries_;
    for (int band = 0; band < lsh_.bands; ++band) {
        // A component's buckets in this band: its members grouped by this band's key. Most
        // components are two or three documents, so this costs a few comparisons each. Inside a
        // component local rows ascend with the slots, so members come in document order.
        const uint64_t* key = slotKeys_.data() + static_cast<std::size_t>(band) * n;
        localBatch_.band = band;
        localBatch_.members.clear();
        localBatch_.bucketBegin.assign(1, 0);
        for (std::size_t c = 0; c + 1 < componentBegin_.size(); ++c) {
            const uint32_t first = componentBegin_[c], end = componentBegin_[c + 1];
            if (end - first == 2) {
                if (key[first] == key[first + 1]) {
                    localBatch_.members.push_back(localOf_[first]);
                    localBatch_.members.push_back(localOf_[first + 1]);
                    localBatch_.bucketBegin.push_back(localBatch_.members.size());
                }
                continue;
            }
            local.clear();
            for (uint32_t i = first; i < end; ++i)
                local.emplace_back(key[i], localOf_[i]);
            std::sort(local.begin(), local.end());
            forEachBucket(local.data(), local.size(),
                          [&](const BucketEntry* members, std::size_t size) {
                              if (size < 2) return;
                              for (std::size_t m = 0; m < size; ++m)
                                  localBatch_.members.push_back(members[m].second);
                              localBatch_.bucketBegin.push_back(localBatch_.members.size());
                          });
        }
        if (localBatch_.members.empty()) continue;
        localPairs_.clear();
        decided_ += backend_.compareBuckets(localBatch_, req, localPairs_);
        if (referenceRows_ > 0) decided_ -= referenceDecided(req);
        for (const ScoredPair& p : localPairs_)
            if (!inReference(passDocs_[p.a]) || !inReference(passDocs_[p.b]))
                pairs.push_back({passDocs_[p.a], passDocs_[p.b], p.matches, p.exact});
        spillFullPairs(pairs);
    }
    pass_.members.clear();
    componentBegin_.clear();
    compareSeconds_ += secondsSince(start);
}

uint64_t SpilledComparison::referenceDecided(const CompareRequest& req) {
    BucketBatch& batch = referenceBatch_;
    batch.band = localBatch_.band;
    batch.members.clear();
    batch.bucketBegin.assign(1, 0);
    for (std::size_t j = 0; j < localBatch_.buckets(); ++j) {
        for (uint64_t m = localBatch_.bucketBegin[j]; m < localBatch_.bucketBegin[j + 1]; ++m)
            if (inReference(passDocs_[localBatch_.members[m]]))
                batch.members.push_back(localBatch_.members[m]);
        if (batch.members.size() - batch.bucketBegin.back() >= 2)
            batch.bucketBegin.push_back(batch.members.size());
        else
            batch.members.resize(batch.bucketBegin.back());
    }
    if (batch.members.empty()) return 0;
    referencePairs_.clear();
    return backend_.compareBuckets(batch, req, referencePairs_);
}

void SpilledComparison::compareLargeComponents(const std::vector<uint8_t>& large,
                                               uint64_t largeCount, uint64_t workingBytes,
                                               std::vector<ScoredPair>& pairs,
                                               const std::function<void()>& checkCancel) {
    // Step three, for the components no pass holds (a bucket of thousands of copies, a long
    // chain): their buckets band by band, C buckets per pass (SEDD app. C), and a bucket larger
    // than a pass tile by tile. Every bucket of their members lies whole among them.
    const uint64_t held = std::min(largeCount * sizeof(BucketEntry), workingBytes / 2);
    const std::size_t passRows = passRowsFor(workingBytes, held);
    reservePass(passRows);
    minPassRows_ = std::min(minPassRows_, passRows);
    std::vector<BucketEntry> entries;
    for (int band = 0; band < lsh_.bands; ++band) {
        checkCancel();
        // The other half of the memory is the pass's rows.
        forEachBandPart(band, large, largeCount, workingBytes, false, entries, checkCancel,
                        [&](const BucketEntry* sorted, std::size_t count) {
                            processEntries(band, sorted, count, passRows, pairs, checkCancel);
                        });
    }
}

void SpilledComparison::processEntries(int band, const BucketEntry* entries, std::size_t count,
                                       std::size_t passRows, std::vector<ScoredPair>& pairs,
                                       const std::function<void()>& checkCancel) {
    const auto start = SteadyClock::now();
    const double compareBefore = compareSeconds_;
    pass_.band = band;
    pass_.members.clear();
    pass_.bucketBegin.clear();
    std::vector<uint32_t> large;
    forEachBucket(entries, count, [&](const BucketEntry* members, std::size_t size) {
        if (size < 2) return;
        if (size > passRows) {
            large.clear();
            for (std::size_t m = 0; m < size; ++m)
                large.push_back(members[m].second);
            checkCancel();
            compareLarge(large.data(), size, band, passRows, pairs, checkCancel);
            return;
        }
        if (pass_.members.size() + size > passRows) {
            checkCancel();
            flushPass(band, pairs);
        }
        if (pass_.bucketBegin.empty()) pass_.bucketBegin.push_back(0);
        for (std::size_t m = 0; m < size; ++m)
            pass_.members.push_back(members[m].second);
        pass_.bucketBegin.push_back(pass_.members.size());
    });
    checkCancel();
    flushPass(band, pairs);
    // Time outside the passes (grouping the entries) counts as bucketing.
    bucketSeconds_ += secondsSince(start) - (compareSeconds_ - compareBefore);
}

void SpilledComparison::reservePass(std::size_t rows) {
    // Full size once per band: a buffer growing from pass to pass would hold its old and its
    // new copy at once, up to twice its share of the budget.
    if (rows == reservedRows_) return;
    auto fit = [](auto& v, std::size_t n) {
        std::remove_reference_t<decltype(v)>().swap(v);
        v.reserve(n);
    };
    const auto h = static_cast<std::size_t>(spill_.hashes());
    const auto b = static_cast<std::size_t>(lsh_.bands);
    fit(pass_.members, rows);
    fit(pass_.bucketBegin, rows / 2 + 2);
    fit(passDocs_, rows);
    fit(placed_, rows);
    fit(loaded_.ids, rows);
    fit(loaded_.sigs.values, rows * h);
    fit(loaded_.sigs.digests, rows);
    fit(loaded_.sigs.eligible, rows);
    fit(loaded_.keys, rows * b);
    fit(localBatch_.members, rows);
    fit(localBatch_.bucketBegin, rows / 2 + 2);
    fit(localOf_, rows);
    fit(slotKeys_, rows * b);
    fit(componentBegin_, rows / 2 + 2);
    reservedRows_ = rows;
}

void SpilledComparison::load(const uint32_t* docs, std::size_t count, int keyBands, Loaded& out) {
    const auto h = static_cast<std::size_t>(spill_.hashes());
    out.ids.assign(docs, docs + count);
    out.sigs.hashes = spill_.hashes();
    out.sigs.values.resize(count * h);
    out.sigs.digests.resize(count);
    out.sigs.eligible.assign(count, 1);
    for (std::size_t i = 0; i < count; ++i)
        out.sigs.digests[i] = digests_[docs[i]];
    arena_->arena.execute([&] {
        tbb::parallel_for(std::size_t{0}, (count + kReadBlock - 1) / kReadBlock,
                          [&](std::size_t block) {
                              const std::size_t first = block * kReadBlock;
                              spill_.readRows(docs + first, std::min(kReadBlock, count - first),
                                              out.sigs.values.data() + first * h);
                          });
    });
    // Keys of bands [0, keyBands): every band's for a pass compared in all bands, the earlier
    // bands' only for a pass of one band, which needs them for the first-collision rule alone (a
    // key depends on its band's values alone, so these are the first keys of every band's).
    out.keys.resize(count * static_cast<std::size_t>(keyBands));
    if (keyBands > 0 && count > 0) {
        LshParams earlier = lsh_;
        earlier.bands = keyBands;
        backend_.computeBandKeys(out.sigs, earlier, modulus_, out.keys.data());
    }
}

void SpilledComparison::flushPass(int band, std::vector<ScoredPair>& pairs) {
    if (pass_.members.empty()) return;
    const auto start = SteadyClock::now();
    placeMembers(localBatch_.members);  // the buckets' slots, now rows of the pass
    const std::size_t n = pass_.members.size();
    load(passDocs_.data(), n, band, loaded_);
    localBatch_.band = band;
    localBatch_.bucketBegin = pass_.bucketBegin;
    // The loaded key rows hold the earlier bands' keys: `band` of them (load()).
    const CompareRequest req{&loaded_.sigs, loaded_.keys.data(), band, minMatches_};
    localPairs_.clear();
    decided_ += backend_.compareBuckets(localBatch_, req, localPairs_);
    for (const ScoredPair& p : localPairs_)
        pairs.push_back({passDocs_[p.a], passDocs_[p.b], p.matches, p.exact});
    spillFullPairs(pairs);
    pass_.members.clear();
    pass_.bucketBegin.clear();
    compareSeconds_ += secondsSince(start);
}

}  // namespace neardup
