// `neardup bench`: the benchmark suite (generated corpora, whole runs, kernels) as a table and
// JSON. See docs/performance.md for how the published numbers were taken.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "atomic_file.h"
#include "backend_factory.h"
#include "benchmark.h"
#include "byte_size.h"
#include "clustering_benchmark.h"
#include "commands.h"
#include "output_options.h"
#include "project_store.h"

namespace neardup::cli {

namespace {

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ',');)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

// Where the corpora are generated and kept: --work-dir, or $TMPDIR/neardup-bench.
std::string benchWorkDir(const std::string& given) {
    return given.empty() ? (std::filesystem::temp_directory_path() / "neardup-bench").string()
                         : given;
}

}  // namespace

Command addBenchCommand(CLI::App& app) {
    struct Options {
        std::string sizes = "10M,100M", corpora = "web", threads = "0";
        std::string sketch, hash = "permute", verify = "borderline", backend = "cpu";
        std::string workDir, json, memoryBudget;
        int repeat = 1;
        uint32_t clustering = 0;
        std::string clusteringFrom;
        bool noKernels = false, formats = false, quiet = false;
        uint64_t seed = 1;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd =
        app.add_subcommand("bench",
                           "Benchmark: generate corpora of given sizes, run the pipeline on each, "
                           "report per-phase throughput, peak memory and the machine");
    cmd->add_option("--sizes", opt->sizes,
                    "Corpus sizes, comma-separated (K, M, G: binary multiples)")
        ->capture_default_str();
    cmd->add_option("--corpora", opt->corpora,
                    "Corpus kinds: web (~2.6 KB documents), long (~25 KB documents)")
        ->capture_default_str();
    cmd->add_option("-j,--threads", opt->threads,
                    "Thread counts to run each corpus with, comma-separated (0 = all cores)")
        ->capture_default_str();
    cmd->add_option("--repeat", opt->repeat, "Runs per case; the median by wall time is reported")
        ->capture_default_str()
        ->check(CLI::Range(1, 99));
    cmd->add_option("--sketch", opt->sketch,
                    "oph or classic (default: as neardup run, oph unless --hash rolling)")
        ->check(CLI::IsMember({"classic", "oph"}));
    cmd->add_option("--hash", opt->hash, "permute or rolling")
        ->check(CLI::IsMember({"permute", "rolling"}))
        ->capture_default_str();
    cmd->add_option("--verify", opt->verify, "none, borderline or exact")
        ->check(CLI::IsMember({"none", "borderline", "exact"}))
        ->capture_default_str();
    cmd->add_option("--backend", opt->backend, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    cmd->add_option("--seed", opt->seed, "Generator seed")->capture_default_str();
    cmd->add_option("--memory-budget", opt->memoryBudget,
                    "Each run's --memory-budget (e.g. 512M): runs past it spill, and the table "
                    "shows their spill and peak memory beside the budget");
    cmd->add_option("--work-dir", opt->workDir,
                    "Where corpora are generated (and kept for the next benchmark); default: "
                    "$TMPDIR/neardup-bench");
    cmd->add_option("--json", opt->json, "Also write the report as JSON");
    cmd->add_flag("--no-kernels", opt->noKernels, "Skip the single-thread kernel measurements");
    cmd->add_flag("--formats", opt->formats,
                  "Also read the first corpus from JSONL and from a Parquet copy of it (whole "
                  "runs on the first thread count, --repeat times each): MB/s of text and "
                  "documents/s of the read phase, peak memory (needs Parquet compiled in)");
    cmd->add_flag("-q,--quiet", opt->quiet, "No progress on stderr");
    cmd->add_option("--clustering", opt->clustering,
                    "Instead of the corpora: time union-find and both removal rules on synthetic "
                    "duplicate pairs over this many documents (stars, chains, cliques; keep "
                    "first and longest; with and without exact copies), --repeat times each")
        ->check(CLI::Range(100u, 1u << 30));
    cmd->add_option("--clustering-from", opt->clusteringFrom,
                    "Instead of the corpora: time union-find and both removal rules on the "
                    "duplicate pairs and documents of a project's latest successful run, "
                    "--repeat times each")
        ->check(CLI::ExistingFile)
        ->excludes("--clustering");
    return [opt]() -> int {
        // The report's file is checked like every output before any benchmarking: never
        // onto a project (--clustering-from's included), an input, or into the work folder whose
        // corpora the next benchmark reuses.
        if (!opt->json.empty()) {
            ProtectedFiles guarded;
            guardFoldersGiven(guarded, {benchWorkDir(opt->workDir)},
                              "the benchmark's work folder (--work-dir)");
            if (!outputsAllowed("bench", {{"--json", opt->json}}, {}, guarded)) return kExitError;
        }
        if (!opt->clusteringFrom.empty()) {
            const ProjectStore store(opt->clusteringFrom, ProjectStore::Mode::ReadOnly);
            const std::optional<int64_t> latest = store.latestRun("ok");
            if (!latest) {
                fmt::print(stderr, "neardup bench: {} holds no successful run\n",
                           opt->clusteringFrom);
                return kExitError;
            }
            const RunResult run = store.loadRun(*latest);
            DocumentTable docs;
            store.loadDataset(run.datasetId, &docs);
            std::fputs(clusteringBenchmarkTable(
                           runClusteringBenchmarkOn(run.pairs, docs, run.params.signature.hashes,
                                                    run.params.compare.threshold, opt->repeat))
                           .c_str(),
                       stdout);
            return kExitOk;
        }
        if (opt->clustering > 0) {
            std::fputs(clusteringBenchmarkTable(
                           runClusteringBenchmark(opt->clustering, opt->repeat, opt->seed))
                           .c_str(),
                       stdout);
            return kExitOk;
        }
        BenchmarkOptions o;
        o.sizes.clear();
        for (const std::string& s : split(opt->sizes)) {
            const auto size = parseCorpusSize(s);
            if (!size) {
                fmt::print(stderr, "neardup bench: bad size '{}' (e.g. 10M, 1G)\n", s);
                return kExitUsage;
            }
            o.sizes.push_back(*size);
        }
        o.corpora.clear();
        for (const std::string& s : split(opt->corpora)) {
            const auto kind = benchmarkCorpusKind(s);
            if (!kind) {
                fmt::print(stderr, "neardup bench: unknown corpus kind '{}' (web, long)\n", s);
                return kExitUsage;
            }
            o.corpora.push_back(*kind);
        }
        o.threads.clear();
        for (const std::string& s : split(opt->threads)) {
            if (s.find_first_not_of("0123456789") != std::string::npos || s.size() > 4) {
                fmt::print(stderr, "neardup bench: bad thread count '{}'\n", s);
                return kExitUsage;
            }
            o.threads.push_back(std::stoi(s));
        }
        if (o.sizes.empty() || o.corpora.empty() || o.threads.empty()) {
            fmt::print(stderr,
                       "neardup bench: --sizes, --corpora and --threads must not be empty\n");
            return kExitUsage;
        }
        o.params.signature.family = *parseHashFamily(opt->hash);
        o.params.signature.sketch = opt->sketch.empty() ? defaultSketch(o.params.signature.family)
                                                        : *parseSketchKind(opt->sketch);
        o.params.compare.verify = *parseVerifyMode(opt->verify);
        o.params.backend = opt->backend;
        if (!opt->memoryBudget.empty()) {
            const auto budget = parseByteSize(opt->memoryBudget);
            if (!budget || *budget == 0) {
                fmt::print(stderr, "neardup bench: --memory-budget must be a size such as 512M\n");
                return kExitUsage;
            }
            o.params.memoryBudget = *budget;
        }
        if (const std::string problem = validate(o.params); !problem.empty()) {
            fmt::print(stderr, "neardup bench: {}\n", problem);
            return kExitUsage;
        }
        o.repeat = opt->repeat;
        o.kernels = !opt->noKernels;
        o.formats = opt->formats;
        o.seed = opt->seed;
        o.workDir = benchWorkDir(opt->workDir);
        const bool quiet = opt->quiet;
        const BenchmarkReport report = runBenchmark(o, [quiet](const std::string& line) {
            if (!quiet) fmt::print(stderr, "bench: {}\n", line);
        });
        std::fputs(toTable(report).c_str(), stdout);
        if (!opt->json.empty()) {
            AtomicFile out(opt->json);
            out.write(toJson(report) + "\n");
            out.commit();
        }
        return kExitOk;
    };
}

}  // namespace neardup::cli
