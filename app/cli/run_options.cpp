// The options of `neardup run` in their groups, and their conversion into RunParams
// (run_options.h).
#include "run_options.h"

#include <fmt/format.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "commands.h"
#include "lsh_buckets.h"
#include "lsh_tuning.h"
#include "memory_budget.h"
#include "pair_verifier.h"

namespace neardup::cli {

namespace {

// An option whose default --help shows, in `group`.
template <typename T>
void addDefaultedOption(CLI::App& cmd, const std::string& name, T& value, const std::string& help,
                        const std::string& group) {
    cmd.add_option(name, value, help)->capture_default_str()->group(group);
}

// A word option taking one of `choices`, its default shown in --help, in `group`.
void addChoiceOption(CLI::App& cmd, const std::string& name, std::string& value,
                     const std::string& help, std::initializer_list<const char*> choices,
                     const std::string& group) {
    cmd.add_option(name, value, help)
        ->check(CLI::IsMember(std::vector<const char*>(choices)))
        ->capture_default_str()
        ->group(group);
}

}  // namespace

void addProjectOptions(CLI::App& cmd, RunOptions& opt) {
    cmd.add_option("inputs", opt.inputs,
                   "JSON Lines (.jsonl, .jsonl.gz, .jsonl.zst), Parquet (.parquet) or Arrow "
                   "(.arrow, save_to_disk folders) files, or directories of them (none with "
                   "--resume)");
    cmd.add_option("-p,--project", opt.project, "Project file (.ndw), created when missing")
        ->required();
}

void addInputOptions(CLI::App& cmd, RunOptions& opt) {
    RunParams& p = opt.params;
    auto* in = "Input";
    cmd.add_option("--reference", opt.references,
                   "Deduplicate the inputs against this corpus too: files or folders in any "
                   "input format, or a NearDup project (its latest run's inputs). Its documents "
                   "are never removed nor written; an input that is a near-duplicate of one is "
                   "removed for it. Repeatable")
        ->group(in);
    cmd.add_option("--reference-run", opt.referenceRun,
                   "Deduplicate the inputs against the inputs of this earlier run of the project "
                   "(its reference excluded)")
        ->check(CLI::PositiveNumber)
        ->group(in);
    addDefaultedOption(cmd, "--text-field", p.reader.textField,
                       "Field holding the text; dotted path for nested fields", in);
    addDefaultedOption(cmd, "--id-field", p.reader.idField,
                       "Field holding the id (string or integer); <file>:<line> when absent", in);
    // Listed under "Execution" in --help (where it has always been), though it is about input.
    cmd.add_option("--max-rejected", p.maxRejected,
                   "Fail the run (exit 1, no outputs) when more than this fraction of the "
                   "non-blank lines is rejected, e.g. 0.01; 1 = never")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str()
        ->group("Execution");
    cmd.add_option("--max-line-bytes", opt.maxLineBytes,
                   "Reject longer lines as line_too_long, streaming past them without holding "
                   "them in memory (K/M/G suffixes). Default: a sixteenth of the memory budget, "
                   "at least 1M")
        ->group(in);
    addChoiceOption(cmd, "--on-error", opt.onError,
                    "Bad lines, unreadable files and damaged .gz/.zst streams: skip (record reason "
                    "and file:line, "
                    "go on) or fail (stop at the first one, exit 1, no outputs)",
                    {"skip", "fail"}, in);
}

namespace {

// How documents become shingles and signatures.
void addSignatureOptions(CLI::App& cmd, RunOptions& opt) {
    RunParams& p = opt.params;
    auto* sh = "Shingles and signatures";
    cmd.add_flag("--keep-case", opt.keepCase, "Do not lowercase")->group(sh);
    cmd.add_flag("--no-nfc", opt.noNfc, "Do not apply Unicode NFC normalization")->group(sh);
    cmd.add_flag("--keep-whitespace", opt.keepWhitespace, "Do not collapse and trim whitespace")
        ->group(sh);
    addChoiceOption(cmd, "--shingle", opt.shingle,
                    "Shingle kind: char (code point k-grams) or word (word n-grams)",
                    {"char", "word"}, sh);
    addDefaultedOption(cmd, "-k,--ngram", p.signature.ngram, "Shingle size k", sh);
    addDefaultedOption(cmd, "--hashes", p.signature.hashes, "Number of hash functions H", sh);
    addChoiceOption(
        cmd, "--hash", opt.hash,
        "Hash family: permute (hash once, permute H times) or rolling (Rabin-Karp per function)",
        {"permute", "rolling"}, sh);
    cmd.add_option("--sketch", opt.sketch,
                   "Sketch: oph (one-permutation hashing: one hash per shingle into H bins, "
                   "empty bins densified; the default) or classic (H hash functions per "
                   "shingle; the default with --hash rolling); equal accuracy, oph 3.5-10x "
                   "faster signatures, see docs/performance.md")
        ->check(CLI::IsMember({"classic", "oph"}))
        ->group(sh);
    addDefaultedOption(cmd, "--seed", p.signature.seed, "Seed of all hash constants", sh);
}

// How signatures become candidate pairs, duplicates and removals.
void addComparisonOptions(CLI::App& cmd, RunOptions& opt) {
    RunParams& p = opt.params;
    auto* lsh = "LSH and comparison";
    cmd.add_option("-b,--bands", opt.bands,
                   "Bands b (default: chosen from -t and -H to miss few duplicates, 18 for the "
                   "defaults; see docs/guide/parameters.md, \"Choosing bands and rows\")")
        ->group(lsh);
    cmd.add_option("-r,--rows", opt.rows,
                   "Rows per band r, b x r <= H (default: chosen with b, 7 for the defaults)")
        ->group(lsh);
    addChoiceOption(cmd, "--bucket-key", opt.bucketKey,
                    "Band key: hash (of the r values) or sum (FED/SEDD: sum mod K)",
                    {"hash", "sum"}, lsh);
    addDefaultedOption(cmd, "-K,--buckets", opt.buckets,
                       "Buckets per band: exact (no modulus), auto (2 sqrt N) or a number", lsh);
    addDefaultedOption(cmd, "-t,--threshold", p.compare.threshold,
                       "Estimated Jaccard at or above which a pair is a duplicate", lsh);
    cmd.add_option("--store-floor", opt.storeFloor,
                   "Pairs at or above this are stored, so later runs can change the threshold "
                   "without comparing again (default: 0.5, lower when verification reaches "
                   "below it: the threshold minus three standard deviations)")
        ->group(lsh);
    addChoiceOption(
        cmd, "--verify", opt.verify,
        "Judge pairs by the exact Jaccard of their shingle sets, re-reading both documents: "
        "none, borderline (pairs whose estimate is within 3 standard deviations of the "
        "threshold) or exact (every stored pair)",
        {"none", "borderline", "exact"}, lsh);
    addDefaultedOption(cmd, "--keep", opt.keep,
                       "Keep order: first (input order), longest or max:FIELD (largest value); "
                       "ties go to the earliest document",
                       lsh);
    addChoiceOption(cmd, "--decide", opt.decide,
                    "witness: visit documents in keep order, remove one only when it is a "
                    "duplicate of a document already kept (its witness); components: keep one "
                    "document per connected component of duplicate pairs, remove the rest",
                    {"witness", "components"}, lsh);
}

}  // namespace

void addParameterOptions(CLI::App& cmd, RunOptions& opt) {
    addSignatureOptions(cmd, opt);
    addComparisonOptions(cmd, opt);
}

void addExecutionOptions(CLI::App& cmd, RunOptions& opt) {
    RunParams& p = opt.params;
    auto* ex = "Execution";
    addDefaultedOption(cmd, "-j,--threads", p.threads, "Threads (0 = all cores)", ex);
    addChoiceOption(cmd, "--backend", p.backend, "auto, cpu or cuda", {"auto", "cpu", "cuda"}, ex);
    addDefaultedOption(cmd, "--workers", p.workers,
                       "Workers, each on its part of every batch (1-64): CPU workers sharing the "
                       "threads, or with GPUs, workers per GPU; results do not depend on it",
                       ex);
    cmd.add_option("--devices", p.devices,
                   "GPUs to use, one worker each: all or a list such as 0,1,3 (default: the "
                   "first usable GPU); results do not depend on it")
        ->group(ex);
    cmd.add_option(
           "--memory-budget", opt.memoryBudget,
           "Memory for the document table, signatures, band keys, buckets, pairs and caches, "
           "e.g. 256M or 4G (K/M/G/T = 1024^n bytes); beyond it signatures and band keys spill "
           "to disk, with identical results. The document table (about 73 bytes a short "
           "document) does not spill: a budget below it is refused with the budget to give. "
           "Default: half of MemAvailable at the start of the run")
        ->group(ex);
    cmd.add_option("--work-dir", p.workDir,
                   "Directory for spill files (a private subdirectory, removed at the end); "
                   "default: <project>.d")
        ->group(ex);
    cmd.add_flag("-q,--quiet", opt.quiet, "No progress and no summary on stderr")->group(ex);
    cmd.add_flag("--resume", opt.resume,
                 "Run the project's latest interrupted or failed run again, with its inputs and "
                 "parameters (execution options and outputs from this command line), reusing "
                 "what it stored")
        ->group(ex);
}

namespace {

// -b and -r as given, or chosen for the run's threshold and hashes (the one not given with the
// other pinned); opt.bandsRowsNote says which and what it misses at the threshold.
std::optional<int> chooseBandsAndRows(RunOptions& opt) {
    RunParams& params = opt.params;
    const double threshold = params.compare.threshold;
    const int hashes = params.signature.hashes;
    if (opt.bands && opt.rows) {
        params.lsh.bands = *opt.bands;
        params.lsh.rows = *opt.rows;
        if (params.lsh.bands >= 1 && params.lsh.rows >= 1 && threshold > 0 && threshold <= 1)
            opt.bandsRowsNote = fmt::format(
                "bands x rows: {} x {} (given); pairs at the threshold {} missed: {:.1f} %",
                params.lsh.bands, params.lsh.rows, threshold,
                100.0 * (1.0 - candidateProbability(threshold, params.lsh.bands, params.lsh.rows)));
        return std::nullopt;  // validate() judges the values
    }
    if ((opt.bands && *opt.bands < 1) || (opt.rows && *opt.rows < 1)) {
        fmt::print(stderr, "neardup run: --{} must be at least 1\n", opt.bands ? "bands" : "rows");
        return kExitUsage;
    }
    if (!(threshold > 0.0 && threshold <= 1.0) || hashes < 1)
        return std::nullopt;  // validate() names the bad value
    const LshSuggestion choice =
        chooseBandsRows(threshold, hashes, opt.bands.value_or(0), opt.rows.value_or(0));
    if (choice.bands == 0) {
        fmt::print(stderr, "neardup run: --{} {} leaves no room within --hashes ({})\n",
                   opt.bands ? "bands" : "rows", opt.bands ? *opt.bands : *opt.rows, hashes);
        return kExitUsage;
    }
    params.lsh.bands = choice.bands;
    params.lsh.rows = choice.rows;
    params.lsh.chosen = !opt.bands && !opt.rows;
    opt.bandsRowsNote = fmt::format(
        "bands x rows: {} x {} ({} for threshold {} and {} hashes); pairs at the threshold "
        "missed: {:.1f} %",
        choice.bands, choice.rows,
        opt.bands  ? "rows chosen"
        : opt.rows ? "bands chosen"
                   : "chosen",
        threshold, hashes, 100.0 * choice.missRate);
    return std::nullopt;
}

}  // namespace

std::optional<int> applyRunChoices(RunOptions& opt) {
    RunParams& params = opt.params;
    params.signature.shingle = *parseShingleKind(opt.shingle);
    params.signature.family = *parseHashFamily(opt.hash);
    params.signature.sketch =
        opt.sketch.empty() ? defaultSketch(params.signature.family) : *parseSketchKind(opt.sketch);
    params.lsh.scheme = *parseBandKeyScheme(opt.bucketKey);
    params.signature.normalize.lowercase = !opt.keepCase;
    params.signature.normalize.nfc = !opt.noNfc;
    params.signature.normalize.collapseWhitespace = !opt.keepWhitespace;
    params.signature.normalize.trim = !opt.keepWhitespace;
    params.compare.verify = *parseVerifyMode(opt.verify);
    params.reader.onError = opt.onError == "fail" ? OnError::Fail : OnError::Skip;
    if (!parseBuckets(opt.buckets, params.lsh.bucketMode, params.lsh.buckets)) {
        fmt::print(stderr, "neardup run: --buckets must be exact, auto or a positive integer\n");
        return kExitUsage;
    }
    // A byte size with K/M/G/T suffixes, when given; false (after saying so) when invalid.
    const auto sizeOption = [](const std::string& text, const char* name, const char* examples,
                               auto& out) {
        if (text.empty()) return true;
        const auto size = parseByteSize(text);
        if (!size || *size == 0) {
            fmt::print(stderr, "neardup run: {} must be a size such as {}\n", name, examples);
            return false;
        }
        out = *size;
        return true;
    };
    if (!sizeOption(opt.memoryBudget, "--memory-budget", "512M or 4G", params.memoryBudget) ||
        !sizeOption(opt.maxLineBytes, "--max-line-bytes", "64M or 1G", params.reader.maxLineBytes))
        return kExitUsage;
    if (const std::optional<int> code = chooseBandsAndRows(opt)) return code;
    params.compare.storeFloor = opt.storeFloor.value_or(defaultStoreFloor(
        params.compare.threshold, params.signature.hashes, params.compare.verify));
    params.decide = parseDecideRule(opt.decide).value_or(DecideRule::Witness);
    if (!parseKeepPolicy(opt.keep, params.keep, params.reader.keepField)) {
        fmt::print(stderr, "neardup run: --keep must be first, longest or max:FIELD\n");
        return kExitUsage;
    }
    return std::nullopt;
}

}  // namespace neardup::cli
