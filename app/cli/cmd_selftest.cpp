// `neardup selftest`: runs the whole pipeline on a generated corpus with the CPU backend and with
// the chosen backend, and compares everything they produce: signatures (every row), band keys,
// pairs with their match counts, clusters and the kept/removed sets. Prints per-phase timings of
// both and the first differences. Exit 0 when identical, 1 when different or when the backend
// cannot be used (no GPU: nothing was tested, which must not read as a pass).
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "backend_factory.h"
#include "commands.h"
#include "corpus_generator.h"
#include "pipeline.h"
#include "project_store.h"
#include "run_service.h"
#include "signatures.h"
#include "thread_count.h"

namespace neardup::cli {

namespace {

struct SelftestOptions {
    std::string backend = "cuda";
    uint64_t docs = 2000;
    int threads = 0;
    int workers = 1;
    uint64_t seed = 1;
    bool stress = false;
};

// A temporary directory removed when the test ends.
struct TempDir {
    std::filesystem::path path;
    TempDir() {
        path = std::filesystem::temp_directory_path() /
               ("neardup-selftest-" + std::to_string(::getpid()));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

struct Outcome {
    RunResult run;
    SignatureMatrix signatures;
    std::vector<uint64_t> keys;
};

// One run through the run service, as `neardup run` starts it, on a project of its own (no run
// takes another's cached signatures or pairs) with the backend `choice` describes; plus the run's
// signatures and their band keys as `keys`, a backend of the same options, computes them.
Outcome runOnce(const std::string& project, const std::string& corpus, const RunParams& params,
                const BackendOptions& choice, Backend& keys) {
    Outcome o;
    RunRequest request;
    request.project = project;
    request.inputs = {corpus};
    request.params = params;
    RunHooks hooks;
    hooks.adjustBackend = [&choice](BackendOptions& b) { b = choice; };
    o.run = executeRun(request, hooks);
    const ProjectStore store(project, ProjectStore::Mode::ReadOnly);
    if (!store.loadSignatures(o.run.datasetId, signatureCacheKey(params.signature, params.reader),
                              o.signatures))
        throw std::runtime_error("the run's signatures are not in its project");
    o.keys.assign(o.signatures.size() * static_cast<std::size_t>(params.lsh.bands), 0);
    keys.computeBandKeys(o.signatures, params.lsh, o.run.resolvedBuckets, o.keys.data());
    return o;
}

const PhaseTiming* findPhase(const RunResult& r, const std::string& name) {
    for (const PhaseTiming& p : r.phases)
        if (p.name == name) return &p;
    return nullptr;
}

std::string rate(const PhaseTiming* p) {
    if (!p) return "-";
    if (p->seconds <= 0) return fmt::format("{:8.3f} s", p->seconds);
    const double perSecond = static_cast<double>(p->items) / p->seconds;
    if (p->bytes > 0)
        return fmt::format("{:8.3f} s {:8.1f} MB/s {:10.0f} docs/s", p->seconds,
                           static_cast<double>(p->bytes) / 1e6 / p->seconds, perSecond);
    return fmt::format("{:8.3f} s {:10.0f} items/s", p->seconds, perSecond);
}

void printTimings(const Outcome& ref, const Outcome& cand) {
    fmt::print("  {:<11} {:<46} {}\n", "phase", "reference", "candidate");
    std::vector<std::string> names;
    for (const PhaseTiming& p : ref.run.phases)
        if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
    for (const std::string& name : names)
        fmt::print("  {:<11} {:<46} {}\n", name, rate(findPhase(ref.run, name)),
                   rate(findPhase(cand.run, name)));
}

constexpr int kShown = 5;  // differences listed per check

// Each check prints one line ("identical" or how many differ) and the first differences.
bool checkSignatures(const Outcome& ref, const Outcome& cand) {
    const SignatureMatrix& a = ref.signatures;
    const SignatureMatrix& b = cand.signatures;
    if (a.size() != b.size() || a.hashes != b.hashes) {
        fmt::print("  signatures: DIFFERENT shapes: {} x {} vs {} x {}\n", a.size(), a.hashes,
                   b.size(), b.hashes);
        return false;
    }
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!std::equal(a.row(i), a.row(i) + a.hashes, b.row(i))) rows.push_back(i);
    if (rows.empty()) {
        fmt::print("  signatures: identical ({} rows x {})\n", a.size(), a.hashes);
        return true;
    }
    fmt::print("  signatures: DIFFERENT in {} of {} rows\n", rows.size(), a.size());
    for (std::size_t k = 0; k < rows.size() && k < kShown; ++k) {
        const std::size_t i = rows[k];
        int pos = 0;
        while (a.row(i)[pos] == b.row(i)[pos])
            ++pos;
        fmt::print("    doc {}, position {}: reference {}, candidate {}\n", i, pos, a.row(i)[pos],
                   b.row(i)[pos]);
    }
    return false;
}

bool checkKeys(const Outcome& ref, const Outcome& cand, int bands) {
    if (ref.keys.size() != cand.keys.size()) {
        fmt::print("  band keys: DIFFERENT sizes: {} vs {}\n", ref.keys.size(), cand.keys.size());
        return false;
    }
    std::size_t differ = 0;
    const auto b = static_cast<std::size_t>(bands);
    for (std::size_t i = 0; i < ref.keys.size(); ++i) {
        if (ref.keys[i] == cand.keys[i]) continue;
        if (differ++ < kShown)
            fmt::print("    doc {}, band {}: reference {}, candidate {}\n", i / b, i % b,
                       ref.keys[i], cand.keys[i]);
    }
    if (differ == 0)
        fmt::print("  band keys: identical ({} docs x {} bands)\n", ref.keys.size() / b, bands);
    else
        fmt::print("  band keys: DIFFERENT: {} of {} keys\n", differ, ref.keys.size());
    return differ == 0;
}

bool checkPairs(const Outcome& ref, const Outcome& cand) {
    const auto& a = ref.run.pairs;
    const auto& b = cand.run.pairs;
    auto same = [](const ScoredPair& x, const ScoredPair& y) {
        return x.a == y.a && x.b == y.b && x.matches == y.matches;
    };
    std::size_t i = 0, j = 0, differ = 0;
    // Both lists are sorted by (a, b): walk them together.
    while (i < a.size() || j < b.size()) {
        if (i < a.size() && j < b.size() && same(a[i], b[j])) {
            ++i, ++j;
            continue;
        }
        const bool fromRef = j >= b.size() || (i < a.size() && a[i] < b[j]);
        const bool both = i < a.size() && j < b.size() && !(a[i] < b[j]) && !(b[j] < a[i]);
        if (differ++ < kShown) {
            if (both)
                fmt::print("    pair ({}, {}): reference {} matches, candidate {}\n", a[i].a,
                           a[i].b, a[i].matches, b[j].matches);
            else if (fromRef)
                fmt::print("    pair ({}, {}, {} matches) only in the reference\n", a[i].a, a[i].b,
                           a[i].matches);
            else
                fmt::print("    pair ({}, {}, {} matches) only in the candidate\n", b[j].a, b[j].b,
                           b[j].matches);
        }
        if (both)
            ++i, ++j;
        else if (fromRef)
            ++i;
        else
            ++j;
    }
    const uint64_t ca = ref.run.counts.candidatePairs, cb = cand.run.counts.candidatePairs;
    if (differ == 0 && ca == cb) {
        fmt::print("  pairs: identical ({} pairs stored, {} decided)\n", a.size(), ca);
        return true;
    }
    if (differ)
        fmt::print("  pairs: DIFFERENT: {} differences ({} vs {} pairs)\n", differ, a.size(),
                   b.size());
    if (ca != cb) fmt::print("  pairs decided: DIFFERENT: reference {}, candidate {}\n", ca, cb);
    return false;
}

bool checkClusters(const Outcome& ref, const Outcome& cand) {
    const RunResult& a = ref.run;
    const RunResult& b = cand.run;
    bool ok = true;
    if (a.clusterOf.size() != b.clusterOf.size()) {
        fmt::print("  clusters: DIFFERENT document counts: {} vs {}\n", a.clusterOf.size(),
                   b.clusterOf.size());
        return false;
    }
    std::size_t differ = 0, removedDiffer = 0, removed = 0;
    for (std::size_t d = 0; d < a.clusterOf.size(); ++d) {
        const bool sameCluster =
            a.clusterOf[d] == b.clusterOf[d] &&
            (a.clusterOf[d] == RunResult::kNoCluster ||
             a.representative[a.clusterOf[d]] == b.representative[b.clusterOf[d]]);
        if (!sameCluster && differ++ < kShown)
            fmt::print("    doc {}: reference cluster {}, candidate cluster {}\n", d,
                       a.clusterOf[d], b.clusterOf[d]);
        removed += a.removed(d);
        if (a.removed(d) != b.removed(d) && removedDiffer++ < kShown)
            fmt::print("    doc {}: {} by the reference, {} by the candidate\n", d,
                       a.removed(d) ? "removed" : "kept", b.removed(d) ? "removed" : "kept");
        else if (a.removed(d) && a.removedFor[d] != b.removedFor[d] && removedDiffer++ < kShown)
            fmt::print("    doc {}: removed for {} by the reference, for {} by the candidate\n", d,
                       a.removedFor[d], b.removedFor[d]);
    }
    if (differ == 0 && a.representative.size() == b.representative.size()) {
        fmt::print("  clusters: identical ({} clusters)\n", a.counts.clusters);
    } else {
        fmt::print("  clusters: DIFFERENT for {} documents ({} vs {} clusters)\n", differ,
                   a.counts.clusters, b.counts.clusters);
        ok = false;
    }
    if (removedDiffer == 0) {
        fmt::print("  kept/removed: identical ({} kept, {} removed)\n",
                   a.clusterOf.size() - removed, removed);
    } else {
        fmt::print("  kept/removed: DIFFERENT for {} documents\n", removedDiffer);
        ok = false;
    }
    return ok;
}

int runSelftest(const SelftestOptions& opt) {
    // The candidate first: without it nothing can be tested.
    const int refThreads = resolveThreads(opt.threads);
    const int candThreads = opt.backend == "cpu" ? (refThreads > 1 ? 1 : 2) : opt.threads;
    if (opt.backend == "cuda") {
        const GpuInventory inv = queryGpus();
        if (!inv.compiledIn) {
            fmt::print(stderr,
                       "neardup selftest: the CUDA backend is not compiled into this build; "
                       "nothing was tested\n");
            return kExitError;
        }
        if (inv.devices.empty()) {
            fmt::print(stderr,
                       "neardup selftest: CUDA compiled in, but no CUDA device is present: {}; "
                       "nothing was tested\n",
                       inv.status);
            return kExitError;
        }
        if (opt.stress) {
            // Tiny chunks, passes and output buffers: the streaming, splitting and overflow
            // paths run on a small corpus (see gpu/cuda_backend.cpp).
            ::setenv("NEARDUP_CUDA_CHUNK_BYTES", "65536", 1);
            ::setenv("NEARDUP_CUDA_PASS_ROWS", "130", 1);
            ::setenv("NEARDUP_CUDA_PAIR_CAPACITY", "7", 1);
            ::setenv("NEARDUP_CUDA_MAX_PAIRS", "4096", 1);
        }
    }
    // Each run builds its backend from these; the two built here are checked first, describe
    // the backends and compute the band keys.
    BackendOptions candidateChoice;
    candidateChoice.name = opt.backend;
    candidateChoice.threads = candThreads;
    candidateChoice.workers = opt.workers;
    BackendOptions referenceChoice;
    referenceChoice.name = "cpu";
    referenceChoice.threads = refThreads;
    std::unique_ptr<Backend> candidate;
    try {
        candidate = makeBackend(candidateChoice);
    } catch (const std::exception& e) {
        fmt::print(stderr, "neardup selftest: the {} backend is unusable: {}\n", opt.backend,
                   e.what());
        return kExitError;
    }
    const std::unique_ptr<Backend> reference = makeBackend(referenceChoice);

    TempDir temp;
    const std::string corpus = (temp.path / "corpus.jsonl").string();
    {
        GeneratorOptions gen;
        gen.documents = opt.docs;
        gen.seed = opt.seed;
        std::ofstream out(corpus, std::ios::binary);
        GroundTruth truth;
        generateCorpus(gen, out, truth);
        out.close();
        if (!out) throw std::runtime_error("cannot write the corpus to " + corpus);
    }
    fmt::print("selftest: {} generated documents ({:.1f} MB, seed {})\n", opt.docs,
               static_cast<double>(std::filesystem::file_size(corpus)) / 1e6, opt.seed);
    fmt::print("reference: {}\ncandidate: {}{}\n", reference->description(),
               candidate->description(), opt.stress ? " (stress limits)" : "");

    struct Config {
        const char* name;
        BandKeyScheme scheme;
        BucketMode mode;
        HashFamily family;
        SketchKind sketch;
    };
    const Config configs[] = {
        {"hash keys, exact buckets, permute family", BandKeyScheme::Hash, BucketMode::Exact,
         HashFamily::Permute, SketchKind::Classic},
        {"sum keys, K = 2 sqrt(N) (dense buckets), rolling family", BandKeyScheme::Sum,
         BucketMode::Auto, HashFamily::Rolling, SketchKind::Classic},
        {"one-permutation sketch, hash keys, exact buckets", BandKeyScheme::Hash, BucketMode::Exact,
         HashFamily::Permute, SketchKind::Oph},
    };
    bool identical = true;
    int runs = 0;
    for (const Config& config : configs) {
        ++runs;
        const auto project = [&](const char* side) {
            return (temp.path / fmt::format("{}-{}.ndw", side, runs)).string();
        };
        RunParams params;
        params.threads = opt.threads;
        params.compare.verify = VerifyMode::None;  // CPU-only and deterministic: adds nothing
        params.lsh.scheme = config.scheme;
        params.lsh.bucketMode = config.mode;
        params.signature.family = config.family;
        params.signature.sketch = config.sketch;
        params.workDir = temp.path.string();
        fmt::print("\n[{}]\n", config.name);
        params.backend = "cpu";
        const Outcome ref =
            runOnce(project("reference"), corpus, params, referenceChoice, *reference);
        params.backend = opt.backend;
        if (opt.backend == "cpu")
            params.threads = candThreads;  // the whole run, not just the backend
        Outcome cand;
        try {
            cand = runOnce(project("candidate"), corpus, params, candidateChoice, *candidate);
        } catch (const std::exception& e) {
            fmt::print("  candidate run FAILED: {}\n", e.what());
            identical = false;
            continue;
        }
        printTimings(ref, cand);
        bool ok = checkSignatures(ref, cand);
        ok = checkKeys(ref, cand, params.lsh.bands) && ok;
        ok = checkPairs(ref, cand) && ok;
        ok = checkClusters(ref, cand) && ok;
        identical = identical && ok;
    }
    fmt::print("\nresult: {}\n", identical ? "identical" : "DIFFERENT");
    return identical ? kExitOk : kExitError;
}

}  // namespace

Command addSelftestCommand(CLI::App& app) {
    auto opt = std::make_shared<SelftestOptions>();
    CLI::App* cmd = app.add_subcommand(
        "selftest",
        "Run the pipeline on a generated corpus with the CPU backend and with --backend, and "
        "compare signatures, band keys, pairs, clusters and kept/removed sets. Exit 0 when "
        "identical, 1 when different or when the backend is unusable (e.g. no GPU)");
    cmd->add_option("--backend", opt->backend,
                    "cuda, or cpu (the CPU backend against itself with another thread count)")
        ->check(CLI::IsMember({"cuda", "cpu"}))
        ->capture_default_str();
    cmd->add_option("--docs", opt->docs, "Documents in the generated corpus")
        ->check(CLI::Range(uint64_t{2}, uint64_t{100000000}))
        ->capture_default_str();
    cmd->add_option("-j,--threads", opt->threads, "CPU threads of the reference (0 = all cores)")
        ->check(CLI::Range(0, 4096))
        ->capture_default_str();
    cmd->add_option("--workers", opt->workers,
                    "Workers of the candidate (per GPU with cuda): exercises the multi-worker "
                    "scheduler")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    cmd->add_option("--seed", opt->seed, "Corpus generator seed")->capture_default_str();
    cmd->add_flag("--stress", opt->stress,
                  "cuda: force tiny transfer chunks, comparison passes and output buffers, so "
                  "that streaming, bucket splitting and overflow handling are exercised");
    return [opt]() { return runSelftest(*opt); };
}

}  // namespace neardup::cli
