#include "pair_verifier.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "arrow_ipc_file.h"
#include "clustering.h"
#include "document_fetcher.h"
#include "jsonl_reader.h"
#include "shingles.h"

namespace neardup {

double borderlineMargin(double threshold, int hashes) {
    return 3.0 * std::sqrt(threshold * (1.0 - threshold) / static_cast<double>(hashes));
}

bool isBorderline(uint32_t matches, int hashes, double threshold) {
    const double h = static_cast<double>(hashes);
    return std::abs(static_cast<double>(matches) / h - threshold) <=
           borderlineMargin(threshold, hashes) + 1e-12;
}

bool modeVerifies(const ScoredPair& p, const RunParams& params) {
    const VerifyMode mode = params.compare.verify;
    return mode == VerifyMode::Exact ||
           (mode == VerifyMode::Borderline &&
            isBorderline(p.matches, params.signature.hashes, params.compare.threshold));
}

double lowestDecisiveEstimate(const RunParams& params) {
    const double threshold = params.compare.threshold;
    switch (params.compare.verify) {
        case VerifyMode::None:
            return threshold;
        case VerifyMode::Borderline:
            return threshold - borderlineMargin(threshold, params.signature.hashes);
        case VerifyMode::Exact:
            break;
    }
    return 0.0;
}

double defaultStoreFloor(double threshold, int hashes, VerifyMode verify) {
    constexpr double kUsualFloor = 0.5;
    if (verify == VerifyMode::None || hashes < 1) return std::min(kUsualFloor, threshold);
    // Never 0 or below (validate() wants a positive floor), even for tiny thresholds.
    const double low = std::max(threshold - borderlineMargin(threshold, hashes), threshold / 2);
    return std::min(kUsualFloor, low);
}

double highestServingStoreFloor(const RunParams& params) {
    // Pairs an earlier run dropped lie below its floor; they matter only when this run would
    // have stored them (its own floor is lower) and they can change its result.
    return std::min(params.compare.threshold,
                    std::max(params.compare.storeFloor, lowestDecisiveEstimate(params)));
}

bool canChangeRun(const ScoredPair& p, const RunParams& params) {
    if (modeVerifies(p, params)) return true;
    ScoredPair estimateOnly = p;
    estimateOnly.exact = -1.0f;
    return isDuplicate(estimateOnly, params.signature.hashes, params.compare.threshold);
}

int storeMinMatches(const RunParams& params) {
    return static_cast<int>(std::ceil(params.compare.storeFloor * params.signature.hashes - 1e-9));
}

namespace {

// How many documents ahead of the one being read verification asks the system to fetch, and the
// gap under which neighbouring lines are asked for as one range.
constexpr std::size_t kReadAhead = 512;
constexpr uint64_t kMergeGap = uint64_t{128} << 10;
// Documents read per batch: the pipeline's unit of work, a few hundred kilobytes of lines.
constexpr std::size_t kVerifyBatch = 128;

// The lines are read one at a time, in file order; on a corpus larger than the page cache each
// read would wait for the disk in turn. The next documents' lines, from `from` on, are asked for
// ahead (RangeReader::willNeed), neighbours merged into one range, so the disk works on many at
// once. Returns the index after the last document asked for.
std::size_t hintAhead(RangeReader& reader, const std::vector<InputFile>& files,
                      const DocumentTable& docs, const std::vector<uint32_t>& involved,
                      std::size_t from) {
    const std::size_t to = std::min(involved.size(), from + kReadAhead);
    for (std::size_t i = from; i < to;) {
        const uint32_t d = involved[i];
        const uint32_t file = docs.file[d];
        const uint64_t start = docs.offset[d];
        uint64_t end = start + docs.length[d];
        std::size_t j = i + 1;
        for (; j < to && docs.file[involved[j]] == file && docs.offset[involved[j]] >= end &&
               docs.offset[involved[j]] - end <= kMergeGap;
             ++j)
            end = docs.offset[involved[j]] + docs.length[involved[j]];
        if (!columnar::isColumnarName(files[file].path)) reader.willNeed(file, start, end - start);
        i = j;
    }
    return to;
}

}  // namespace

std::size_t verifyPairs(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                        const DocumentTable& docs, const RunParams& params, int threads,
                        const std::function<void()>& checkCancel) {
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        ScoredPair& p = pairs[i];
        if (!modeVerifies(p, params))
            p.exact = -1.0f;
        else if (p.exact < 0.0f)
            todo.push_back(i);
    }
    if (todo.empty()) return 0;
    // Documents involved, in file order, so compressed inputs are streamed forward once.
    std::vector<uint32_t> involved;
    involved.reserve(todo.size() * 2);
    for (const std::size_t i : todo) {
        involved.push_back(pairs[i].a);
        involved.push_back(pairs[i].b);
    }
    tbb::task_arena arena(threads);
    arena.execute([&] { tbb::parallel_sort(involved.begin(), involved.end()); });
    involved.erase(std::unique(involved.begin(), involved.end()), involved.end());
    // Document order is file order then offset order, so `involved` is already sorted by both
    // and compressed inputs are streamed forward once: lines are read in that order, a batch at
    // a time (the pipeline's serial stage), while the batches read before are parsed,
    // normalized and shingled on the other threads. Parquet rows come back as their text (a
    // row group decoded once for all its rows).
    struct Worker {
        Worker(const std::vector<InputFile>& f, const RunParams& p)
            : parser(f, p.reader), normalizer(p.signature.normalize) {}
        ChunkParser parser;
        Normalizer normalizer;
        LineChunk chunk;
        ParsedChunk parsed;
        std::vector<uint32_t> symbols;
    };
    struct Batch {
        std::size_t first = 0;
        std::vector<std::string> lines;
        std::vector<uint8_t> isText;
    };
    tbb::enumerable_thread_specific<Worker> workers([&] { return Worker(files, params); });
    std::vector<std::vector<uint64_t>> sets(involved.size());
    RangeReader reader(files);
    std::unique_ptr<DocumentFetcher> rows;
    std::size_t hinted = 0, next = 0;
    auto readBatch = [&](tbb::flow_control& control) -> std::shared_ptr<Batch> {
        if (next == involved.size()) {
            control.stop();
            return nullptr;
        }
        checkCancel();
        auto batch = std::make_shared<Batch>();
        batch->first = next;
        const std::size_t count = std::min(kVerifyBatch, involved.size() - next);
        batch->lines.resize(count);
        batch->isText.assign(count, 0);
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t i = next + k;
            if (hinted < involved.size() && hinted - i < kReadAhead / 2)
                hinted = hintAhead(reader, files, docs, involved, hinted);
            const uint32_t d = involved[i];
            if (columnar::isColumnarName(files[docs.file[d]].path)) {
                if (!rows) rows = std::make_unique<DocumentFetcher>(files, params.reader);
                FetchedDocument row = rows->fetch(docs, d);
                if (!row.ok)
                    throw std::runtime_error("cannot verify: row " + std::to_string(docs.line[d]) +
                                             " of '" + files[docs.file[d]].path +
                                             "': " + row.error);
                batch->lines[k] = std::move(row.text);
                batch->isText[k] = 1;
                continue;
            }
            reader.read(docs.file[d], docs.offset[d], docs.length[d], batch->lines[k]);
        }
        next += count;
        return batch;
    };
    auto shingleDocument = [&](Worker& w, uint32_t d, std::string& line, bool isText,
                               std::vector<uint64_t>& set) {
        if (isText) {
            toSymbols(params.signature.shingle, w.normalizer.run(line), w.symbols);
            shingleSet(w.symbols.data(), w.symbols.size(), params.signature.ngram, set);
            return;
        }
        w.chunk.file = docs.file[d];
        w.chunk.firstLine = docs.line[d];
        w.chunk.baseOffset = docs.offset[d];
        w.chunk.fileStart = false;
        w.chunk.data.assign(line);
        w.chunk.data.push_back('\n');
        w.parser.parse(w.chunk, w.parsed);
        if (w.parsed.docs.size() != 1)
            throw std::runtime_error("cannot verify: line " + std::to_string(docs.line[d]) +
                                     " of '" + files[docs.file[d]].path +
                                     "' changed since it was read");
        toSymbols(params.signature.shingle, w.normalizer.run(w.parsed.text(w.parsed.docs[0])),
                  w.symbols);
        shingleSet(w.symbols.data(), w.symbols.size(), params.signature.ngram, set);
    };
    arena.execute([&] {
        tbb::parallel_pipeline(
            static_cast<std::size_t>(2 * threads + 1),
            tbb::make_filter<void, std::shared_ptr<Batch>>(tbb::filter_mode::serial_in_order,
                                                           readBatch) &
                tbb::make_filter<std::shared_ptr<Batch>, void>(
                    tbb::filter_mode::parallel, [&](const std::shared_ptr<Batch>& batch) {
                        Worker& w = workers.local();
                        for (std::size_t k = 0; k < batch->lines.size(); ++k) {
                            const std::size_t i = batch->first + k;
                            shingleDocument(w, involved[i], batch->lines[k], batch->isText[k] != 0,
                                            sets[i]);
                        }
                    }));
    });
    checkCancel();
    auto indexOf = [&](uint32_t doc) {
        return static_cast<std::size_t>(std::lower_bound(involved.begin(), involved.end(), doc) -
                                        involved.begin());
    };
    arena.execute([&] {
        tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t i) {
            ScoredPair& p = pairs[todo[i]];
            p.exact = static_cast<float>(exactJaccard(sets[indexOf(p.a)], sets[indexOf(p.b)]));
        });
    });
    return todo.size();
}

}  // namespace neardup
