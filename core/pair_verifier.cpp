#include "pair_verifier.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <stdexcept>

#include "jsonl_reader.h"
#include "shingles.h"

namespace neardup {

void verifyPairs(std::vector<ScoredPair>& pairs, const std::vector<InputFile>& files,
                 const DocumentTable& docs, const RunParams& params, int threads,
                 const std::function<void()>& checkCancel) {
    if (pairs.empty()) return;
    // Documents involved, in file order, so compressed inputs are streamed forward once.
    std::vector<uint32_t> involved;
    involved.reserve(pairs.size() * 2);
    for (const ScoredPair& p : pairs) {
        involved.push_back(p.a);
        involved.push_back(p.b);
    }
    std::sort(involved.begin(), involved.end());
    involved.erase(std::unique(involved.begin(), involved.end()), involved.end());
    // Document order is file order then offset order, so `involved` is already sorted by both.
    std::vector<std::vector<uint64_t>> sets(involved.size());
    {
        RangeReader reader(files);
        ChunkParser parser(files, params.reader);
        Normalizer normalizer(params.signature.normalize);
        std::vector<uint32_t> symbols;
        LineChunk chunk;
        ParsedChunk parsed;
        for (std::size_t i = 0; i < involved.size(); ++i) {
            if (i % 1024 == 0) checkCancel();
            const uint32_t d = involved[i];
            chunk.file = docs.file[d];
            chunk.firstLine = docs.line[d];
            chunk.baseOffset = docs.offset[d];
            chunk.fileStart = false;
            chunk.data.clear();
            reader.read(docs.file[d], docs.offset[d], docs.length[d], chunk.data);
            chunk.data.push_back('\n');
            parser.parse(chunk, parsed);
            if (parsed.docs.size() != 1)
                throw std::runtime_error("cannot verify: line " + std::to_string(docs.line[d]) +
                                         " of '" + files[docs.file[d]].path +
                                         "' changed since it was read");
            toSymbols(params.signature.shingle, normalizer.run(parsed.text(parsed.docs[0])),
                      symbols);
            shingleSet(symbols.data(), symbols.size(), params.signature.ngram, sets[i]);
        }
    }
    checkCancel();
    auto indexOf = [&](uint32_t doc) {
        return static_cast<std::size_t>(
            std::lower_bound(involved.begin(), involved.end(), doc) - involved.begin());
    };
    tbb::task_arena arena(threads);
    arena.execute([&] {
        tbb::parallel_for(std::size_t{0}, pairs.size(), [&](std::size_t i) {
            ScoredPair& p = pairs[i];
            p.exact = static_cast<float>(exactJaccard(sets[indexOf(p.a)], sets[indexOf(p.b)]));
        });
    });
}

}  // namespace neardup
