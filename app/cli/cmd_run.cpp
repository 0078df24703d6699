// `neardup run`: the whole pipeline on inputs, recorded in a project.
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "backend_factory.h"
#include "commands.h"
#include "memory_budget.h"
#include "mpi_run.h"
#include "output_options.h"
#include "progress_printer.h"
#include "run_resume.h"
#include "run_service.h"

namespace neardup::cli {

namespace {

std::atomic<bool> gCancel{false};

// The first Ctrl-C or SIGTERM cancels the run cleanly; a second one exits at once (the project
// stays intact, as after kill -9).
extern "C" void onSignal(int) {
    if (gCancel.exchange(true)) ::_exit(kExitInterrupted);
}

struct RunOptions {
    std::vector<std::string> inputs;
    std::string project;
    RunParams params;
    std::string shingle = "char", hash = "permute", sketch = "classic", bucketKey = "hash",
                buckets = "exact";
    std::string keep = "first", verify = "borderline", decide = "witness";
    std::string onError = "skip";
    bool keepCase = false, noNfc = false, keepWhitespace = false;
    ExportOptions outputs;
    bool quiet = false;
    bool resume = false;
    std::string memoryBudget;
    std::string maxLineBytes;
};

// The human summary: on stderr, so that stdout carries nothing but an output named "-".
void printSummary(const RunResult& r) {
    const RunCounts& c = r.counts;
    double total = 0;
    for (const auto& p : r.phases)
        total += p.seconds;
    std::fprintf(
        stderr,
        "run %lld: %llu documents, %llu kept, %llu removed in %llu clusters; %llu rejected, "
        "%llu blank lines; %llu candidate pairs, %llu duplicate pairs; %.2f s on %s\n",
        static_cast<long long>(r.runId), static_cast<unsigned long long>(c.documents),
        static_cast<unsigned long long>(c.kept), static_cast<unsigned long long>(c.removed),
        static_cast<unsigned long long>(c.clusters), static_cast<unsigned long long>(c.rejected),
        static_cast<unsigned long long>(c.blankLines),
        static_cast<unsigned long long>(c.candidatePairs),
        static_cast<unsigned long long>(c.duplicatePairs), total, r.backend.c_str());
    std::fprintf(
        stderr,
        "  accounting: %llu lines read = %llu documents + %llu rejected + %llu blank; "
        "%llu documents = %llu kept + %llu removed\n",
        static_cast<unsigned long long>(c.linesRead), static_cast<unsigned long long>(c.documents),
        static_cast<unsigned long long>(c.rejected), static_cast<unsigned long long>(c.blankLines),
        static_cast<unsigned long long>(c.documents), static_cast<unsigned long long>(c.kept),
        static_cast<unsigned long long>(c.removed));
    if (r.params.decide == DecideRule::Witness)
        std::fprintf(
            stderr,
            "  decided by witness: every removed document is a duplicate of a kept one; the "
            "components rule would have made %llu chained removal(s) without a witness\n",
            static_cast<unsigned long long>(c.chainedRemovals));
    else
        std::fprintf(
            stderr,
            "  decided by components: %llu chained removal(s) without a witness (documents "
            "that are no duplicate of the document kept in their cluster)\n",
            static_cast<unsigned long long>(c.chainedRemovals));
    for (const auto& rej : r.rejections)
        std::fprintf(stderr, "  rejected %llu line(s): %s (first at %s:%llu)\n",
                     static_cast<unsigned long long>(rej.count), rej.reason.c_str(),
                     rej.firstFile.c_str(), static_cast<unsigned long long>(rej.firstLine));
    if (r.spilled)
        std::fprintf(stderr,
                     "  out of core: %s written to spill files (memory budget %s, peak RSS %s)\n",
                     formatBytes(r.spillBytes).c_str(), formatBytes(r.memoryBudget).c_str(),
                     formatBytes(r.peakRssBytes).c_str());
}

}  // namespace

Command addRunCommand(CLI::App& app) {
    auto opt = std::make_shared<RunOptions>();
    RunParams& p = opt->params;
    CLI::App* cmd = app.add_subcommand(
        "run", "Find near-duplicates in JSONL inputs and record the run in a project");
    cmd->add_option("inputs", opt->inputs,
                    "JSONL files (.jsonl, .jsonl.gz, .jsonl.zst) or directories (none with "
                    "--resume)");
    cmd->add_option("-p,--project", opt->project, "Project file (.ndw), created when missing")
        ->required();
    auto* in = "Input";
    cmd->add_option("--text-field", p.reader.textField,
                    "Field holding the text; dotted path for nested fields")
        ->capture_default_str()
        ->group(in);
    cmd->add_option("--id-field", p.reader.idField,
                    "Field holding the id (string or integer); <file>:<line> when absent")
        ->capture_default_str()
        ->group(in);
    cmd->add_option("--max-rejected", p.maxRejected,
                    "Fail the run (exit 1, no outputs) when more than this fraction of the "
                    "non-blank lines is rejected, e.g. 0.01; 1 = never")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str()
        ->group("Execution");
    cmd->add_option("--max-line-bytes", opt->maxLineBytes,
                    "Reject longer lines as line_too_long, streaming past them without holding "
                    "them in memory (K/M/G suffixes). Default: a sixteenth of the memory budget, "
                    "at least 1M")
        ->group(in);
    cmd->add_option("--on-error", opt->onError,
                    "Bad lines, unreadable files and damaged .gz/.zst streams: skip (record reason "
                    "and file:line, "
                    "go on) or fail (stop at the first one, exit 1, no outputs)")
        ->check(CLI::IsMember({"skip", "fail"}))
        ->capture_default_str()
        ->group(in);
    auto* sh = "Shingles and signatures";
    cmd->add_flag("--keep-case", opt->keepCase, "Do not lowercase")->group(sh);
    cmd->add_flag("--no-nfc", opt->noNfc, "Do not apply Unicode NFC normalization")->group(sh);
    cmd->add_flag("--keep-whitespace", opt->keepWhitespace, "Do not collapse and trim whitespace")
        ->group(sh);
    cmd->add_option("--shingle", opt->shingle,
                    "Shingle kind: char (code point k-grams) or word (word n-grams)")
        ->check(CLI::IsMember({"char", "word"}))
        ->capture_default_str()
        ->group(sh);
    cmd->add_option("-k,--ngram", p.signature.ngram, "Shingle size k")
        ->capture_default_str()
        ->group(sh);
    cmd->add_option("--hashes", p.signature.hashes, "Number of hash functions H")
        ->capture_default_str()
        ->group(sh);
    cmd->add_option(
           "--hash", opt->hash,
           "Hash family: permute (hash once, permute H times) or rolling (Rabin-Karp per function)")
        ->check(CLI::IsMember({"permute", "rolling"}))
        ->capture_default_str()
        ->group(sh);
    cmd->add_option("--sketch", opt->sketch,
                    "Sketch: classic (H hash functions per shingle) or oph (one-permutation "
                    "hashing: one hash per shingle into H bins, empty bins densified; about 3.5x "
                    "faster signatures at equal accuracy, see docs/performance.md)")
        ->check(CLI::IsMember({"classic", "oph"}))
        ->capture_default_str()
        ->group(sh);
    cmd->add_option("--seed", p.signature.seed, "Seed of all hash constants")
        ->capture_default_str()
        ->group(sh);
    auto* lsh = "LSH and comparison";
    cmd->add_option("-b,--bands", p.lsh.bands, "Bands b")->capture_default_str()->group(lsh);
    cmd->add_option("-r,--rows", p.lsh.rows, "Rows per band r (b x r <= H)")
        ->capture_default_str()
        ->group(lsh);
    cmd->add_option("--bucket-key", opt->bucketKey,
                    "Band key: hash (of the r values) or sum (FED/SEDD: sum mod K)")
        ->check(CLI::IsMember({"hash", "sum"}))
        ->capture_default_str()
        ->group(lsh);
    cmd->add_option("-K,--buckets", opt->buckets,
                    "Buckets per band: exact (no modulus), auto (2 sqrt N) or a number")
        ->capture_default_str()
        ->group(lsh);
    cmd->add_option("-t,--threshold", p.compare.threshold,
                    "Estimated Jaccard at or above which a pair is a duplicate")
        ->capture_default_str()
        ->group(lsh);
    cmd->add_option("--store-floor", p.compare.storeFloor,
                    "Pairs at or above this are stored, so later runs can change the threshold "
                    "without comparing again")
        ->capture_default_str()
        ->group(lsh);
    cmd->add_option(
           "--verify", opt->verify,
           "Judge pairs by the exact Jaccard of their shingle sets, re-reading both documents: "
           "none, borderline (pairs whose estimate is within 3 standard deviations of the "
           "threshold) or exact (every stored pair)")
        ->check(CLI::IsMember({"none", "borderline", "exact"}))
        ->capture_default_str()
        ->group(lsh);
    cmd->add_option("--keep", opt->keep,
                    "Keep order: first (input order), longest or max:FIELD (largest value); "
                    "ties go to the earliest document")
        ->capture_default_str()
        ->group(lsh);
    cmd->add_option("--decide", opt->decide,
                    "witness: visit documents in keep order, remove one only when it is a "
                    "duplicate of a document already kept (its witness); components: keep one "
                    "document per connected component of duplicate pairs, remove the rest")
        ->check(CLI::IsMember({"witness", "components"}))
        ->capture_default_str()
        ->group(lsh);
    auto* ex = "Execution";
    cmd->add_option("-j,--threads", p.threads, "Threads (0 = all cores)")
        ->capture_default_str()
        ->group(ex);
    cmd->add_option("--backend", p.backend, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str()
        ->group(ex);
    cmd->add_option("--workers", p.workers,
                    "Workers, each on its part of every batch (1-64): CPU workers sharing the "
                    "threads, or with GPUs, workers per GPU; results do not depend on it")
        ->capture_default_str()
        ->group(ex);
    cmd->add_option("--devices", p.devices,
                    "GPUs to use, one worker each: all or a list such as 0,1,3 (default: the "
                    "first usable GPU); results do not depend on it")
        ->group(ex);
    cmd->add_option(
           "--memory-budget", opt->memoryBudget,
           "Memory for signatures, band keys, buckets, pairs and the document table, e.g. 256M or "
           "4G "
           "(K/M/G/T = 1024^n bytes); beyond it they spill to disk, with identical results. "
           "Default: half of MemAvailable at the start of the run")
        ->group(ex);
    cmd->add_option("--work-dir", p.workDir,
                    "Directory for spill files (a private subdirectory, removed at the end); "
                    "default: <project>.d")
        ->group(ex);
    cmd->add_flag("-q,--quiet", opt->quiet, "No progress and no summary on stderr")->group(ex);
    cmd->add_flag("--resume", opt->resume,
                  "Run the project's latest interrupted or failed run again, with its inputs and "
                  "parameters (execution options and outputs from this command line), reusing "
                  "what it stored")
        ->group(ex);
    addOutputOptions(*cmd, opt->outputs);

    return [opt, cmd]() -> int {
        RunParams& params = opt->params;
        params.signature.shingle = *parseShingleKind(opt->shingle);
        params.signature.family = *parseHashFamily(opt->hash);
        params.signature.sketch = *parseSketchKind(opt->sketch);
        params.lsh.scheme = *parseBandKeyScheme(opt->bucketKey);
        params.signature.normalize.lowercase = !opt->keepCase;
        params.signature.normalize.nfc = !opt->noNfc;
        params.signature.normalize.collapseWhitespace = !opt->keepWhitespace;
        params.signature.normalize.trim = !opt->keepWhitespace;
        params.compare.verify = *parseVerifyMode(opt->verify);
        params.reader.onError = opt->onError == "fail" ? OnError::Fail : OnError::Skip;
        if (!parseBuckets(opt->buckets, params.lsh.bucketMode, params.lsh.buckets)) {
            std::fprintf(stderr,
                         "neardup run: --buckets must be exact, auto or a positive integer\n");
            return kExitUsage;
        }
        // A byte size with K/M/G/T suffixes, when given; false (after saying so) when invalid.
        const auto sizeOption = [](const std::string& text, const char* name, const char* examples,
                                   auto& out) {
            if (text.empty()) return true;
            const auto size = parseByteSize(text);
            if (!size || *size == 0) {
                std::fprintf(stderr, "neardup run: %s must be a size such as %s\n", name, examples);
                return false;
            }
            out = *size;
            return true;
        };
        if (!sizeOption(opt->memoryBudget, "--memory-budget", "512M or 4G", params.memoryBudget) ||
            !sizeOption(opt->maxLineBytes, "--max-line-bytes", "64M or 1G",
                        params.reader.maxLineBytes))
            return kExitUsage;
        params.decide = parseDecideRule(opt->decide).value_or(DecideRule::Witness);
        if (!parseKeepPolicy(opt->keep, params.keep, params.reader.keepField)) {
            std::fprintf(stderr, "neardup run: --keep must be first, longest or max:FIELD\n");
            return kExitUsage;
        }
        // Under mpirun or srun, every rank but 0 serves rank 0's backend requests from here
        // (they need only the execution options; rank 0 alone opens the project).
        MpiRun mpi;
        if (const std::optional<int> code = mpi.start(params)) return *code;
        int64_t resumedRun = 0;
        if (opt->resume) {
            if (const int code = prepareResume(*cmd, opt->project, opt->inputs, params, resumedRun))
                return code;
        } else if (opt->inputs.empty()) {
            std::fprintf(stderr, "neardup run: no inputs given (or --resume)\n");
            return kExitUsage;
        }
        const RunRequest request{opt->project, opt->inputs, params, opt->outputs, resumedRun};
        ProgressPrinter printer(opt->quiet);
        RunHooks hooks;
        hooks.observer = &printer;
        hooks.cancel = &gCancel;
        hooks.backendChosen = [quiet = opt->quiet](const std::string& reason) {
            if (!quiet) std::fprintf(stderr, "backend: %s\n", reason.c_str());
        };
        hooks.adjustBackend = [&mpi](BackendOptions& choice) { mpi.pickDevice(choice); };
        hooks.wrapBackend = [&mpi](std::unique_ptr<Backend> local, std::string& reason) {
            return mpi.wrap(std::move(local), reason, &gCancel);
        };
        hooks.finished = [&mpi](Backend&) { mpi.keepTotals(); };
        std::signal(SIGINT, onSignal);
        std::signal(SIGTERM, onSignal);
        std::signal(SIGHUP, onSignal);  // a closed terminal stops the run as cleanly as Ctrl-C
        try {
            const RunResult result = executeRun(request, hooks);
            if (!opt->quiet) {
                printSummary(result);
                mpi.printRanks();
            }
        } catch (const Cancelled&) {
            std::fprintf(stderr, "neardup run: interrupted; the run is marked interrupted in %s\n",
                         opt->project.c_str());
            return kExitInterrupted;
        } catch (const RunRefused& e) {
            std::fprintf(stderr, "neardup run: %s\n", e.what());
            return e.problem().kind == RunProblem::Kind::Parameters ? kExitUsage : kExitError;
        } catch (const std::invalid_argument& e) {
            std::fprintf(stderr, "neardup run: %s\n", e.what());
            return kExitUsage;
        }
        return kExitOk;
    };
}

}  // namespace neardup::cli
