#include "benchmark.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "atomic_file.h"
#include "byte_size.h"
#include "corpus_generator.h"
#include "elapsed.h"
#include "format_benchmark.h"
#include "json_text.h"
#include "jsonl_reader.h"
#include "parquet_file.h"
#include "pipeline.h"
#include "run_result.h"
#include "run_service.h"
#include "shingles.h"
#include "signatures.h"
#include "simd.h"
#include "thread_count.h"
#include "thread_sampler.h"

namespace neardup {

namespace fs = std::filesystem;

std::optional<BenchmarkCorpusKind> benchmarkCorpusKind(const std::string& name) {
    if (name == "web") return BenchmarkCorpusKind{"web", 2600};
    if (name == "long") return BenchmarkCorpusKind{"long", 25000};
    return std::nullopt;
}

std::optional<uint64_t> parseCorpusSize(const std::string& s) {
    const std::optional<uint64_t> size = parseByteSize(s);
    if (!size || *size == 0 || *size > kMaxCorpusSize) return std::nullopt;
    return size;
}

std::string formatByteSize(uint64_t bytes) {
    const char* units[] = {"B", "K", "M", "G", "T"};
    int u = 0;
    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++u;
    }
    return std::to_string(bytes) + units[u];
}

BenchmarkMachine describeMachine() {
    BenchmarkMachine m;
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.rfind("model name", 0) != 0) continue;
        const auto colon = line.find(':');
        if (colon != std::string::npos) m.cpu = line.substr(line.find_first_not_of(' ', colon + 1));
        break;
    }
    m.logicalCores = hardwareThreads();
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0) m.memoryBytes = uint64_t(pages) * uint64_t(pageSize);
    m.simd = toString(detectedSimdLevel());
    utsname u{};
    if (uname(&u) == 0) m.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
#if defined(__clang__)
    m.compiler = std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
    m.compiler = std::string("GCC ") + __VERSION__;
#endif
    return m;
}

namespace {

double threadCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double seconds(const timeval& t) {
    return double(t.tv_sec) + double(t.tv_usec) * 1e-6;
}

struct ChildResult {
    std::string output;
    rusage usage{};
};

// Runs `work` in a forked child and returns what it wrote. The parent never starts engine
// threads (TBB) itself, so forking is safe, and the child's rusage is the case's alone.
ChildResult inChild(const std::string& workDir, const std::function<std::string()>& work) {
    static int counter = 0;
    const std::string path = (fs::path(workDir) / ("child-" + std::to_string(getpid()) + "-" +
                                                   std::to_string(counter++) + ".out"))
                                 .string();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("bench: fork failed");
    if (pid == 0) {
        int code = 0;
        std::string out;
        try {
            out = work();
        } catch (const std::exception& e) {
            out = e.what();
            code = 1;
        }
        {
            std::ofstream f(path, std::ios::binary | std::ios::trunc);
            f << out;
        }
        _exit(code);  // no destructors or atexit handlers of the parent's state
    }
    ChildResult r;
    int status = 0;
    if (wait4(pid, &status, 0, &r.usage) < 0) throw std::runtime_error("bench: wait failed");
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    r.output = s.str();
    fs::remove(path);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("bench: " +
                                 (r.output.empty() ? std::string("child failed") : r.output));
    return r;
}

std::string corpusPath(const BenchmarkOptions& o, const BenchmarkCorpusKind& kind, uint64_t size) {
    return (fs::path(o.workDir) /
            (kind.name + "-" + formatByteSize(size) + "-seed" + std::to_string(o.seed) + ".jsonl"))
        .string();
}

void generate(const BenchmarkOptions& o, const BenchmarkCorpusKind& kind, uint64_t size,
              const std::string& path) {
    inChild(o.workDir, [&] {
        GeneratorOptions gen;
        gen.seed = o.seed;
        gen.meanChars = kind.meanChars;
        // Each JSON line carries about 30 bytes besides the text (id, keys, escapes).
        gen.documents = std::max<uint64_t>(
            1, static_cast<uint64_t>(std::llround(double(size) / (kind.meanChars + 30.0))));
        AtomicFileStream out(path);
        GroundTruth truth;
        generateCorpus(gen, out, truth);
        out.commit();
        return std::string();
    });
}

// Labels the sampler's samples with the phase last started (ThreadSampler::setLabel).
struct PhaseLabels : PipelineObserver {
    void phaseStarted(const std::string& phase) override {
        auto at = std::find(names.begin(), names.end(), phase);
        if (at == names.end()) {
            if (names.size() >= std::size_t{ThreadSampler::kLabels}) return;
            at = names.insert(names.end(), phase);
        }
        if (sampler) sampler->setLabel(static_cast<int>(at - names.begin()));
    }
    std::optional<ThreadSampler> sampler;
    std::vector<std::string> names{"setup"};
};

// One pipeline run in a child; its result as "key value" lines.
std::string runCase(const BenchmarkOptions& o, const std::string& corpus, int threads) {
    const fs::path base = fs::path(o.workDir) / ("run-" + std::to_string(getpid()));
    const std::string project = base.string() + ".ndw";
    ExportOptions exports;
    exports.kept = base.string() + ".kept.txt";
    exports.jsonl = base.string() + ".dedup.jsonl";
    auto cleanup = [&] {
        std::error_code ec;
        fs::remove(project, ec);
        fs::remove_all(project + ".d", ec);
        fs::remove(exports.kept, ec);
        fs::remove(exports.jsonl, ec);
    };
    cleanup();
    // Through the run service, as `neardup run` starts a run: the backend a run with these
    // parameters chooses (backendOptions), at this case's thread count with one worker.
    RunRequest request;
    request.project = project;
    request.inputs = {corpus};
    request.params = o.params;
    request.params.threads = threads;
    request.outputs = exports;
    RunResult run;
    double wall = 0;
    ThreadSamples samples;
    std::ostringstream byPhase;
    PhaseLabels labels;
    RunHooks hooks;
    hooks.observer = &labels;
    hooks.adjustBackend = [threads](BackendOptions& choice) {
        choice.threads = threads;
        choice.workers = 1;
        choice.devices.clear();
    };
    // Timed and sampled from once the backend is built (the project opened, the pipeline run)
    // to the run's end.
    SteadyClock::time_point start;
    hooks.backendChosen = [&](const std::string&) {
        labels.sampler.emplace();
        start = SteadyClock::now();
    };
    hooks.finished = [&](Backend&) {
        wall = secondsSince(start);
        samples = labels.sampler->stop();
    };
    run = executeRun(request, hooks);
    for (std::size_t i = 0; i < labels.names.size(); ++i) {
        const ThreadSamples& t = labels.sampler->underLabel(static_cast<int>(i));
        byPhase << "serial-phase " << t.samples << " " << t.one << " " << t.none << " "
                << labels.names[i] << "\n";
    }
    cleanup();
    std::ostringstream out;
    out.precision(17);
    out << "wall " << wall << "\n"
        << "documents " << run.counts.documents << "\n"
        << "bytes " << run.counts.inputBytes << "\n"
        << "candidates " << run.counts.candidatePairs << "\n"
        << "duplicates " << run.counts.duplicatePairs << "\n"
        << "removed " << run.counts.removed << "\n"
        << "threads " << run.threads << "\n"
        << "spill " << run.spillBytes << "\n"
        << "samples " << samples.samples << " " << samples.one << " " << samples.none << "\n"
        << byPhase.str();
    // The name last: it may hold spaces ("save dataset").
    for (const PhaseTiming& p : run.phases)
        out << "phase " << p.seconds << " " << p.items << " " << p.bytes << " " << p.name << "\n";
    return out.str();
}

BenchmarkCase parseCase(const std::string& text) {
    BenchmarkCase c;
    std::istringstream in(text);
    for (std::string key; in >> key;) {
        if (key == "phase") {
            BenchmarkPhase p;
            in >> p.seconds >> p.items >> p.bytes >> std::ws;
            std::getline(in, p.name);
            if (showsRates(p.seconds)) {  // as the CLI and the workbench show them
                p.mbPerSecond = double(p.bytes) / 1e6 / p.seconds;
                p.itemsPerSecond = double(p.items) / p.seconds;
            }
            c.phases.push_back(p);
        } else if (key == "wall") {
            in >> c.wallSeconds;
        } else if (key == "documents") {
            in >> c.documents;
        } else if (key == "bytes") {
            in >> c.bytes;
        } else if (key == "candidates") {
            in >> c.candidatePairs;
        } else if (key == "duplicates") {
            in >> c.duplicatePairs;
        } else if (key == "removed") {
            in >> c.removed;
        } else if (key == "threads") {
            in >> c.threads;
        } else if (key == "spill") {
            in >> c.spillBytes;
        } else if (key == "serial-phase") {
            ThreadSamples t;
            std::string name;
            in >> t.samples >> t.one >> t.none >> std::ws;
            std::getline(in, name);
            c.serialByPhase.emplace_back(name, double(t.one + t.none));
        } else if (key == "samples") {
            ThreadSamples t;
            in >> t.samples >> t.one >> t.none;
            c.threadSamples = t.samples;
            c.serialShare = t.serialShare();
            c.projected16 = t.samples > 0 ? t.projectedSpeedup(16) : 0;
        }
    }
    for (auto& [name, share] : c.serialByPhase)
        share = c.threadSamples > 0 ? share / double(c.threadSamples) : 0;
    return c;
}

// simdjson's on-demand parse of every line, touching the text field as a string (unescaped):
// the least the read phase must do per byte with this library.
uint64_t simdjsonTexts(const std::vector<LineChunk>& chunks, const ReaderOptions& reader) {
    simdjson::ondemand::parser json;
    uint64_t textBytes = 0;
    for (const LineChunk& c : chunks) {
        simdjson::padded_string padded(c.data);
        simdjson::ondemand::document_stream docs;
        if (json.iterate_many(padded, std::max<std::size_t>(padded.size(), 1 << 20)).get(docs))
            continue;
        for (auto doc : docs) {
            std::string_view text;
            if (!doc[reader.textField].get_string().get(text)) textBytes += text.size();
        }
    }
    return textBytes;
}

// Single-thread kernels on the first `limit` bytes of texts of `corpus`, thread CPU time.
std::string runKernels(const BenchmarkOptions& o, const std::string& corpus) {
    constexpr uint64_t kLimit = uint64_t{64} << 20;
    constexpr int kRepeat = 3;
    const ReaderOptions reader = o.params.reader;
    const std::vector<InputFile> files = expandInputs({corpus});
    LineChunkSource source(files, reader.chunkBytes);
    ChunkParser parser(files, reader);
    std::vector<LineChunk> chunks;
    ParsedChunk parsed;
    std::vector<std::string> texts;
    uint64_t bytes = 0, lineBytes = 0;
    for (LineChunk chunk; bytes < kLimit && source.next(chunk);) {
        parser.parse(chunk, parsed);
        for (const ParsedDocument& d : parsed.docs) {
            texts.emplace_back(parsed.text(d));
            bytes += texts.back().size();
        }
        lineBytes += chunk.data.size();
        chunks.push_back(std::move(chunk));
    }
    std::ostringstream out;
    out.precision(17);
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    auto timed = [&](const std::string& name, uint64_t unitBytes, const auto& work) {
        std::vector<double> times;
        for (int r = 0; r < kRepeat; ++r) {
            const double t0 = threadCpuSeconds();
            work();
            times.push_back(threadCpuSeconds() - t0);
        }
        out << "kernel " << name << " " << unitBytes << " " << median(times) << "\n";
    };
    // The read phase's work (lines in memory to documents with their texts) beside the
    // library's own parse of the same lines and a plain copy of the texts: the limits the
    // phase is measured against (docs/performance.md, "One core").
    timed("read-parse", lineBytes, [&] {
        for (const LineChunk& c : chunks)
            parser.parse(c, parsed);
    });
    timed("limit-simdjson-parse", lineBytes, [&] {
        volatile uint64_t sink = simdjsonTexts(chunks, o.params.reader);
        (void)sink;
    });
    std::string copy(bytes, '\0');
    timed("limit-memcpy", bytes, [&] {
        std::size_t at = 0;
        for (const std::string& t : texts) {
            std::memcpy(copy.data() + at, t.data(), t.size());
            at += t.size();
        }
        volatile char sink = copy[at / 2];
        (void)sink;
    });
    const SimdLevel detected = detectedSimdLevel();
    std::vector<SimdLevel> levels;
    for (const SimdLevel l : {SimdLevel::Avx512, SimdLevel::Avx2, SimdLevel::Scalar})
        if (l <= detected) levels.push_back(l);
    // Symbols as the pipeline makes them, for the signature kernels.
    std::vector<uint32_t> symbols, words;
    std::vector<uint64_t> ends;
    const SignatureParams& sp = o.params.signature;
    for (const SimdLevel level : levels) {
        overrideSimdLevel(level);
        Normalizer normalizer(sp.normalize);
        std::vector<double> times;
        for (int r = 0; r < kRepeat; ++r) {
            symbols.clear();
            ends.clear();
            const double t0 = threadCpuSeconds();
            for (const std::string& t : texts) {
                const auto& cps = normalizer.run(t);
                if (sp.shingle == ShingleKind::Char) {
                    symbols.insert(symbols.end(), cps.begin(), cps.end());
                } else {
                    toSymbols(sp.shingle, cps, words);
                    symbols.insert(symbols.end(), words.begin(), words.end());
                }
                ends.push_back(symbols.size());
            }
            times.push_back(threadCpuSeconds() - t0);
        }
        out << "kernel normalize(" << toString(level) << ") " << bytes << " " << median(times)
            << "\n";
    }
    auto sign = [&](const SignatureParams& p, const std::string& name) {
        const HashConstants c = HashConstants::derive(p);
        std::vector<uint32_t> sig(static_cast<std::size_t>(p.hashes));
        std::vector<uint64_t> scratch;
        timed(name, bytes, [&] {
            uint64_t begin = 0;
            for (const uint64_t end : ends) {
                signatureRolling(symbols.data() + begin, end - begin, c, sig.data(), scratch);
                begin = end;
            }
        });
    };
    for (const SimdLevel level : levels) {
        overrideSimdLevel(level);
        SignatureParams p = sp;
        p.sketch = SketchKind::Classic;
        sign(p,
             std::string("signatures-classic-") + toString(p.family) + "(" + toString(level) + ")");
    }
    // The one-permutation sketch's window fingerprints have their own kernels per level too.
    for (const SimdLevel level : levels) {
        overrideSimdLevel(level);
        SignatureParams p = sp;
        p.sketch = SketchKind::Oph;
        p.family = HashFamily::Permute;
        sign(p, level == detected ? std::string("signatures-oph")
                                  : std::string("signatures-oph(") + toString(level) + ")");
    }
    overrideSimdLevel(detected);
    // What verification does per document: its shingle set, sorted (shingles.h).
    std::vector<uint64_t> set;
    timed("verify-shingle-sets", bytes, [&] {
        uint64_t begin = 0;
        for (const uint64_t end : ends) {
            shingleSet(symbols.data() + begin, end - begin, sp.ngram, set);
            begin = end;
        }
    });
    return out.str();
}

}  // namespace

BenchmarkReport runBenchmark(const BenchmarkOptions& options, const BenchmarkLog& log) {
    if (options.workDir.empty()) throw std::runtime_error("bench: no work directory");
    if (const std::string problem = validate(options.params); !problem.empty())
        throw std::runtime_error("bench: " + problem);
    if (options.formats && !columnar::parquetCompiledIn())
        throw std::runtime_error(
            "bench: --formats reads a Parquet copy, and Parquet support is not compiled in");
    fs::create_directories(options.workDir);
    auto say = [&](const std::string& s) {
        if (log) log(s);
    };
    BenchmarkReport report;
    report.version = NEARDUP_VERSION;
    report.startedAt = utcNow();
    report.machine = describeMachine();
    report.parametersJson = toJson(options.params);

    std::vector<std::pair<BenchmarkCorpusKind, uint64_t>> corpora;
    for (const BenchmarkCorpusKind& kind : options.corpora)
        for (const uint64_t size : options.sizes)
            corpora.emplace_back(kind, size);
    for (const auto& [kind, size] : corpora) {
        const std::string path = corpusPath(options, kind, size);
        if (fs::exists(path)) continue;
        say("generating " + kind.name + " corpus of " + formatByteSize(size) + " -> " + path);
        generate(options, kind, size, path);
    }
    if (options.kernels && !corpora.empty()) {
        const std::string path = corpusPath(options, corpora.front().first, corpora.front().second);
        say("single-thread kernels on " + path);
        std::istringstream in(
            inChild(options.workDir, [&] { return runKernels(options, path); }).output);
        for (std::string key; in >> key;) {
            BenchmarkKernel k;
            in >> k.name >> k.bytes >> k.cpuSeconds;
            k.mbPerSecond = k.cpuSeconds > 0 ? double(k.bytes) / 1e6 / k.cpuSeconds : 0;
            report.kernels.push_back(k);
        }
    }
    for (const auto& [kind, size] : corpora) {
        const std::string path = corpusPath(options, kind, size);
        for (const int threads : options.threads) {
            std::vector<BenchmarkCase> runs;
            for (int r = 0; r < std::max(1, options.repeat); ++r) {
                say("running " + kind.name + " " + formatByteSize(size) + " on " +
                    (threads > 0 ? std::to_string(threads) : std::string("all")) + " thread(s)" +
                    (options.repeat > 1
                         ? " (" + std::to_string(r + 1) + "/" + std::to_string(options.repeat) + ")"
                         : std::string()));
                const ChildResult child =
                    inChild(options.workDir, [&] { return runCase(options, path, threads); });
                BenchmarkCase c = parseCase(child.output);
                c.peakRssBytes = uint64_t(child.usage.ru_maxrss) * 1024;
                c.userSeconds = seconds(child.usage.ru_utime);
                c.systemSeconds = seconds(child.usage.ru_stime);
                const double cpu = c.userSeconds + c.systemSeconds;
                c.cpuMBps = cpu > 0 ? double(c.bytes) / 1e6 / cpu : 0;
                c.coresBusy = c.wallSeconds > 0 ? cpu / c.wallSeconds : 0;
                runs.push_back(std::move(c));
            }
            std::vector<double> walls;
            for (const BenchmarkCase& c : runs)
                walls.push_back(c.wallSeconds);
            std::vector<std::size_t> order(runs.size());
            for (std::size_t i = 0; i < order.size(); ++i)
                order[i] = i;
            std::sort(order.begin(), order.end(),
                      [&](std::size_t a, std::size_t b) { return walls[a] < walls[b]; });
            BenchmarkCase c = runs[order[order.size() / 2]];
            c.repeatWallSeconds = walls;
            c.corpus = kind.name;
            c.path = path;
            c.targetBytes = size;
            c.meanChars = kind.meanChars;
            c.memoryBudget = options.params.memoryBudget;
            if (c.wallSeconds > 0) {
                c.endToEndMBps = double(c.bytes) / 1e6 / c.wallSeconds;
                c.documentsPerSecond = double(c.documents) / c.wallSeconds;
            }
            for (const BenchmarkPhase& p : c.phases)
                if (p.name == "compare" && p.seconds > 0)
                    c.comparisonsPerSecond = double(c.candidatePairs) / p.seconds;
            report.cases.push_back(std::move(c));
        }
    }
    if (options.formats && columnar::parquetCompiledIn() && !corpora.empty()) {
        const std::string jsonl =
            corpusPath(options, corpora.front().first, corpora.front().second);
        const std::string parquet = fs::path(jsonl).replace_extension(".parquet").string();
        say("writing the same documents as Parquet -> " + parquet);
        const FormatCopy copy =
            parseFormatCopy(inChild(options.workDir, [&] {
                                return writeParquetCopy(jsonl, parquet, options.params.reader);
                            }).output);
        const int threads = options.threads.empty() ? 0 : options.threads.front();
        for (const auto& input : {std::pair<std::string, std::string>{"jsonl", jsonl},
                                  std::pair<std::string, std::string>{"parquet", parquet}}) {
            // Named, not a structured binding: C++20 lets a lambda capture one (P1091), but
            // clang 14, the sanitizer builds' compiler, does not implement that yet.
            const std::string& format = input.first;
            const std::string& path = input.second;
            std::vector<BenchmarkCase> runs;
            for (int r = 0; r < std::max(1, options.repeat); ++r) {
                say("reading " + format + " (" + std::to_string(r + 1) + "/" +
                    std::to_string(std::max(1, options.repeat)) + ")");
                const ChildResult child =
                    inChild(options.workDir, [&] { return runCase(options, path, threads); });
                runs.push_back(parseCase(child.output));
                runs.back().peakRssBytes = uint64_t(child.usage.ru_maxrss) * 1024;
            }
            report.formats.push_back(formatCase(format, path, copy, runs));
        }
    }
    return report;
}

}  // namespace neardup
