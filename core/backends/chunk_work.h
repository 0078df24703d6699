// What the reading pipeline makes of one input chunk in its parallel stage (parse, normalize,
// symbols, and signatures when they are computed there), and the step that does it. Shared by
// the pipeline and by backends that read chunks elsewhere (MpiBackend: other ranks), so that
// both give the same documents, rejections and rows.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "backend.h"
#include "jsonl_reader.h"
#include "shingles.h"

namespace neardup {

struct ChunkWork {
    ParsedChunk parsed;
    // The documents' symbol streams. A chunk read by the backend (Backend::processChunk) may
    // leave `symbols.symbols` empty: only docEnd (the symbol counts) is used after signing.
    SymbolBatch symbols;
    std::vector<uint32_t> chars;  // code points of each document's normalized text
    std::vector<uint32_t> rows;   // signatures, symbols.size() x hashes, when signed
    int64_t parseNs = 0;          // thread time spent parsing and normalizing
    int64_t signNs = 0;           // and signing
};

// Parses a chunk and builds its documents' symbol streams; one per thread.
class ChunkProcessor {
  public:
    ChunkProcessor(const std::vector<InputFile>& files, const ReaderOptions& reader,
                   const SignatureParams& signature)
        : parser_(files, reader), normalizer_(signature.normalize), shingle_(signature.shingle) {}

    // Fills work.parsed, work.symbols and work.chars (not the rows).
    void prepare(const LineChunk& chunk, ChunkWork& work) {
        parser_.parse(chunk, work.parsed);
        work.symbols.clear();
        work.chars.clear();
        for (const ParsedDocument& d : work.parsed.docs) {
            const std::vector<uint32_t>& symbols = symbolsOf(work.parsed, d, work.chars);
            work.symbols.symbols.insert(work.symbols.symbols.end(), symbols.begin(), symbols.end());
            work.symbols.docEnd.push_back(work.symbols.symbols.size());
        }
    }

    // prepare, then the rows with `signer`, timed; `signerLock`, when given, is held while
    // signing (for a backend that signs from one thread at a time). A signer that signs one
    // document on the calling thread, unlocked, signs each as it is normalized (prepareSigned).
    void process(const LineChunk& chunk, ChunkWork& work, Backend& signer,
                 const HashConstants& constants, std::mutex* signerLock = nullptr) {
        const auto t0 = std::chrono::steady_clock::now();
        if (signer.signsOneDocument() && signerLock == nullptr) {
            work.signNs = prepareSigned(chunk, work, signer, constants);
            work.parseNs = (std::chrono::steady_clock::now() - t0).count() - work.signNs;
            return;
        }
        prepare(chunk, work);
        const auto t1 = std::chrono::steady_clock::now();
        work.rows.resize(work.symbols.size() * static_cast<std::size_t>(constants.hashes));
        if (work.symbols.size() > 0) {
            std::unique_lock<std::mutex> lock;
            if (signerLock) lock = std::unique_lock<std::mutex>(*signerLock);
            signer.computeSignatures(work.symbols, constants, work.rows.data());
        }
        const auto t2 = std::chrono::steady_clock::now();
        work.parseNs = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
        work.signNs = std::chrono::duration_cast<std::chrono::nanoseconds>(t2 - t1).count();
    }

  private:
    // prepare and the rows in one pass, for a signer that signs one document on the calling
    // thread (Backend::signsOneDocument): each document is signed right after it is
    // normalized, while its symbols are in cache, and work.symbols keeps only the ends. Returns
    // the nanoseconds spent signing.
    int64_t prepareSigned(const LineChunk& chunk, ChunkWork& work, const Backend& signer,
                          const HashConstants& constants) {
        parser_.parse(chunk, work.parsed);
        work.symbols.clear();
        work.chars.clear();
        const auto h = static_cast<std::size_t>(constants.hashes);
        work.rows.resize(work.parsed.docs.size() * h);
        int64_t signNs = 0;
        uint64_t end = 0;
        for (std::size_t i = 0; i < work.parsed.docs.size(); ++i) {
            const std::vector<uint32_t>& symbols =
                symbolsOf(work.parsed, work.parsed.docs[i], work.chars);
            const auto t0 = std::chrono::steady_clock::now();
            signer.signDocument(symbols.data(), symbols.size(), constants, work.rows.data() + i * h,
                                scratch_);
            signNs += (std::chrono::steady_clock::now() - t0).count();
            end += symbols.size();
            work.symbols.docEnd.push_back(end);
        }
        return signNs;
    }

    // The document normalized into its symbol stream (its code points, or its words' hashes),
    // valid until the next call; its character count appended to `chars`.
    const std::vector<uint32_t>& symbolsOf(const ParsedChunk& parsed, const ParsedDocument& d,
                                           std::vector<uint32_t>& chars) {
        const auto& cps = normalizer_.run(parsed.text(d));
        chars.push_back(static_cast<uint32_t>(cps.size()));
        if (shingle_ == ShingleKind::Char) return cps;
        toSymbols(shingle_, cps, words_);
        return words_;
    }

    ChunkParser parser_;
    Normalizer normalizer_;
    ShingleKind shingle_;
    std::vector<uint32_t> words_;
    std::vector<uint64_t> scratch_;
};

}  // namespace neardup
