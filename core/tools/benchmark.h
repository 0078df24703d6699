// The benchmark suite behind `neardup bench`: generated corpora of given sizes, the whole
// pipeline per size and thread count, per-phase throughput, peak memory and the machine, plus
// single-thread kernel throughput (normalize, signatures at each SIMD level, one-permutation).
//
// Each measurement runs in a child process (fork) so that its peak RSS is its own and one
// case's heap never pollutes the next; the parent only orchestrates. Corpora are generated once
// into the work directory and reused by later benchmarks with the same size, kind and seed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "params.h"

namespace neardup {

// A kind of generated corpus: web-like pages (about 2.6 KB, the papers' RealNews-like setting)
// or long documents.
struct BenchmarkCorpusKind {
    std::string name;  // "web", "long"
    double meanChars = 2600;
};
std::optional<BenchmarkCorpusKind> benchmarkCorpusKind(const std::string& name);

struct BenchmarkOptions {
    std::vector<uint64_t> sizes{uint64_t{10} << 20};  // target corpus bytes
    std::vector<BenchmarkCorpusKind> corpora{{"web", 2600}};
    std::vector<int> threads{0};  // one case per entry; 0 = all hardware threads
    // What each run uses (threads are overridden per case). Each run starts through the run
    // service (run_service.h) with the backend such a run chooses, at the case's thread count
    // and one worker; a device backend needs the front end to have installed it.
    RunParams params;
    std::string workDir;  // corpora (kept) and projects (removed); required
    int repeat = 1;       // runs per case; the one with the median wall time is reported
    bool kernels = true;  // also measure the single-thread kernels
    // Also read the first corpus from JSON Lines and from a Parquet copy of it (when Parquet is
    // compiled in): whole runs on the first thread count, compared by their read phase
    // (format_benchmark.h).
    bool formats = false;
    uint64_t seed = 1;  // generator seed
};

struct BenchmarkPhase {
    std::string name;
    double seconds = 0;
    uint64_t items = 0;
    uint64_t bytes = 0;
    double mbPerSecond = 0;     // bytes / seconds (read and signatures)
    double itemsPerSecond = 0;  // documents, bucket entries or pairs per second
};

struct BenchmarkCase {
    std::string corpus;  // kind name
    std::string path;    // corpus file
    uint64_t targetBytes = 0, bytes = 0, documents = 0;
    double meanChars = 0;
    int threads = 0;         // resolved
    double wallSeconds = 0;  // Pipeline::run, read to export, project writes included
    double endToEndMBps = 0, documentsPerSecond = 0;
    uint64_t candidatePairs = 0, duplicatePairs = 0, removed = 0;
    double comparisonsPerSecond = 0;  // candidate pairs / compare phase seconds
    uint64_t peakRssBytes = 0;        // of the child process that ran the case
    double userSeconds = 0, systemSeconds = 0;
    // Input bytes per CPU second of the whole run (user + system, all threads): on a shared
    // machine this is what 1 thread would reach alone, whatever the neighbours do.
    double cpuMBps = 0;
    // (user + system) / wall: how many cores the run kept busy on average.
    double coresBusy = 0;
    // The run's threads sampled every 5 ms (thread_sampler.h): the share of samples in which at
    // most one wanted a core, and Amdahl's projection from it at 16 cores.
    uint64_t threadSamples = 0;
    double serialShare = 0;
    double projected16 = 0;
    // Where the serial samples fell: per phase (the last one started when sampled; "setup" before
    // the first), its serial samples as a share of all the run's samples. In phase order.
    std::vector<std::pair<std::string, double>> serialByPhase;
    uint64_t memoryBudget = 0;  // the run's --memory-budget (0: none)
    uint64_t spillBytes = 0;    // written to spill files when it ran out of core
    std::vector<BenchmarkPhase> phases;
    std::vector<double> repeatWallSeconds;  // every run, in order
};

// One input format of the same documents (format_benchmark.h): the read phase of the median
// run (by read time) of `repeat` whole runs.
struct BenchmarkFormatCase {
    std::string format;  // "jsonl", "parquet"
    std::string path;
    uint64_t fileBytes = 0, textBytes = 0, documents = 0;
    int threads = 0;
    double readSeconds = 0, textMBps = 0, documentsPerSecond = 0;
    double wallSeconds = 0;     // the whole run
    uint64_t peakRssBytes = 0;  // of the child process that ran it
    std::vector<double> repeatReadSeconds;
};

struct BenchmarkKernel {
    std::string name;  // "normalize", "signatures classic (avx512)", "signatures oph", ...
    uint64_t bytes = 0;
    double cpuSeconds = 0;  // thread CPU time, median of the repetitions
    double mbPerSecond = 0;
};

struct BenchmarkMachine {
    std::string cpu;
    int logicalCores = 0;
    uint64_t memoryBytes = 0;
    std::string simd;  // detected level
    std::string os;
    std::string compiler;
};

struct BenchmarkReport {
    std::string version, startedAt;
    BenchmarkMachine machine;
    std::string parametersJson;
    std::vector<BenchmarkKernel> kernels;
    std::vector<BenchmarkCase> cases;
    std::vector<BenchmarkFormatCase> formats;
};

BenchmarkMachine describeMachine();

// Progress lines for a front end ("generating web 100M ...").
using BenchmarkLog = std::function<void(const std::string&)>;

// Runs everything; throws std::runtime_error when a child fails (with its message).
BenchmarkReport runBenchmark(const BenchmarkOptions& options, const BenchmarkLog& log = {});

std::string toJson(const BenchmarkReport& report);
// Markdown tables (machine, kernels, cases), as pasted into docs/performance.md.
std::string toTable(const BenchmarkReport& report);

// A corpus size: "10M", "1G", "500K", "123" (bytes; binary multiples, parseByteSize's syntax),
// more than 0 and at most kMaxCorpusSize; nullopt otherwise.
inline constexpr uint64_t kMaxCorpusSize = uint64_t{1} << 50;
std::optional<uint64_t> parseCorpusSize(const std::string& s);
std::string formatByteSize(uint64_t bytes);

}  // namespace neardup
