// `neardup gen`, `neardup eval` and `neardup truth`: measuring accuracy.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "atomic_file.h"
#include "commands.h"
#include "corpus_generator.h"
#include "evaluation.h"
#include "jsonl_reader.h"
#include "output_check.h"
#include "output_options.h"

namespace neardup::cli {

namespace {

void writeFile(const std::string& path, const std::string& content) {
    AtomicFile out(path);
    out.write(content);
    out.commit();
}

}  // namespace

Command addGenCommand(CLI::App& app) {
    struct Options {
        GeneratorOptions gen;
        std::string out, truth;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "gen", "Generate a synthetic corpus with planted near-duplicates and exact ground truth");
    cmd->add_option("--docs", opt->gen.documents, "Number of documents")->capture_default_str();
    cmd->add_option("--out", opt->out, "Corpus JSONL to write")->required();
    cmd->add_option("--truth", opt->truth, "Ground truth JSON to write")->required();
    cmd->add_option("--seed", opt->gen.seed, "Random seed")->capture_default_str();
    cmd->add_option("--mean-chars", opt->gen.meanChars, "Mean document length in bytes")
        ->capture_default_str();
    cmd->add_option("--duplicate-fraction", opt->gen.duplicateFraction,
                    "Share of documents that are planted variants")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 0.9));
    return [opt]() -> int {
        if (!outputsAllowed("gen", {{"--out", opt->out}, {"--truth", opt->truth}}))
            return kExitError;
        // Streamed to a temporary next to the target, renamed when complete.
        GroundTruth truth;
        AtomicFileStream corpus(opt->out);
        generateCorpus(opt->gen, corpus, truth);
        corpus.commit();
        std::ostringstream t;
        writeTruth(truth, t);
        writeFile(opt->truth, t.str());
        fmt::print("wrote {} documents to {} and {} truth pairs (exact Jaccard >= {:.2f}) to {}\n",
                   truth.documents, opt->out, truth.pairs.size(), truth.floor, opt->truth);
        return kExitOk;
    };
}

Command addEvalCommand(CLI::App& app) {
    struct Options {
        std::string truth, clusters, json;
        double threshold = 0.8;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "eval", "Score clusters (--out-clusters of a run) against exact ground truth");
    cmd->add_option("--truth", opt->truth, "Ground truth JSON (from gen or truth)")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--clusters", opt->clusters, "Clusters JSONL (from run --out-clusters)")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("-t,--threshold", opt->threshold,
                    "Exact Jaccard threshold defining true duplicates")
        ->capture_default_str();
    cmd->add_option("--json", opt->json, "Also write the scores as JSON");
    return [opt]() -> int {
        if (!outputsAllowed("eval", {{"--json", opt->json}},
                            {InputFile{.path = opt->truth}, InputFile{.path = opt->clusters}}))
            return kExitError;
        const GroundTruth truth = readTruth(opt->truth);
        if (opt->threshold < truth.floor) {
            fmt::print(stderr,
                       "neardup eval: the truth lists pairs down to {:.2f} only; use --threshold "
                       ">= {:.2f}\n",
                       truth.floor, truth.floor);
            return kExitUsage;
        }
        const EvalResult r = evaluate(truth, readClusters(opt->clusters), opt->threshold);
        fmt::print(
            "documents with a near-duplicate (exact Jaccard >= {:.2f}): truth {}, found {}, common "
            "{}\n",
            r.threshold, r.truthDocuments, r.predictedDocuments, r.commonDocuments);
        fmt::print("duplicate-document-set Jaccard {:.4f}  precision {:.4f}  recall {:.4f}\n",
                   r.documentJaccard, r.documentPrecision, r.documentRecall);
        fmt::print("pairs: truth {}, found {}, common {}  precision {:.4f}  recall {:.4f}\n",
                   r.truthPairs, r.predictedPairs, r.commonPairs, r.pairPrecision, r.pairRecall);
        if (!opt->json.empty()) writeFile(opt->json, toJson(r) + "\n");
        return kExitOk;
    };
}

Command addTruthCommand(CLI::App& app) {
    struct Options {
        std::vector<std::string> inputs;
        std::string out, textField = "text", idField = "id", shingle = "char";
        int ngram = 5, threads = 0;
        double floor = 0.5;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "truth",
        "Compute exact ground truth for any corpus (exact similarity join over shingle sets)");
    cmd->add_option("inputs", opt->inputs, "JSONL files or directories")->required();
    cmd->add_option("--out", opt->out, "Ground truth JSON to write")->required();
    cmd->add_option("--text-field", opt->textField, "Field holding the text")
        ->capture_default_str();
    cmd->add_option("--id-field", opt->idField, "Field holding the id")->capture_default_str();
    cmd->add_option("--shingle", opt->shingle, "char or word")
        ->check(CLI::IsMember({"char", "word"}))
        ->capture_default_str();
    cmd->add_option("-k,--ngram", opt->ngram, "Shingle size")->capture_default_str();
    cmd->add_option("--floor", opt->floor, "List every pair with exact Jaccard at or above this")
        ->capture_default_str()
        ->check(CLI::Range(0.05, 1.0));
    cmd->add_option("-j,--threads", opt->threads, "Threads (0 = all cores)")->capture_default_str();
    return [opt]() -> int {
        ReaderOptions reader;
        reader.textField = opt->textField;
        reader.idField = opt->idField;
        const std::vector<InputFile> files = expandInputs(opt->inputs);
        ProtectedFiles guarded;
        guardFoldersGiven(guarded, opt->inputs, "an input");
        if (!outputsAllowed("truth", {{"--out", opt->out}}, files, guarded)) return kExitError;
        LineChunkSource source(files, reader.chunkBytes);
        ChunkParser parser(files, reader);
        LineChunk chunk;
        ParsedChunk parsed;
        std::vector<std::string> ids, texts;
        while (source.next(chunk)) {
            parser.parse(chunk, parsed);
            for (const ParsedDocument& d : parsed.docs) {
                ids.emplace_back(parsed.id(d));
                texts.emplace_back(parsed.text(d));
            }
        }
        GroundTruth truth;
        truth.documents = ids.size();
        truth.shingle = *parseShingleKind(opt->shingle);
        truth.ngram = opt->ngram;
        truth.floor = opt->floor;
        exactJoin(ids, texts, truth, opt->threads);
        std::ostringstream out;
        writeTruth(truth, out);
        writeFile(opt->out, out.str());
        fmt::print("{} documents, {} pairs with exact Jaccard >= {:.2f} written to {}\n",
                   ids.size(), truth.pairs.size(), truth.floor, opt->out);
        return kExitOk;
    };
}

}  // namespace neardup::cli
