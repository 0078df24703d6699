// Every user-visible parameter of a run, with the defaults the CLI and the workbench show.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neardup {

enum class ShingleKind { Char, Word };
enum class HashFamily { Rolling, Permute };
// Classic MinHash (H functions, each minimized over all shingles) or one-permutation hashing
// (one hash per shingle into H bins, empty bins densified; Li et al. 2012, Shrivastava 2017).
enum class SketchKind { Classic, Oph };
enum class BandKeyScheme { Hash, Sum };
enum class BucketMode { Exact, Auto, Fixed };
enum class KeepPolicy { First, Longest, MaxField };
// How removals follow from the duplicate pairs (core/lsh/clustering.h). Witness (the default):
// documents are visited in keep order and one is removed only when it forms a duplicate pair
// with a document already kept, its witness. Components: one representative per connected
// component is kept and every other member removed (the papers' rule; a chain of small edits
// removes documents that resemble nothing kept).
enum class DecideRule { Witness, Components };
// Which stored pairs are re-read and judged by the exact Jaccard of their shingle sets.
enum class VerifyMode { None = 0, Borderline = 1, Exact = 2 };

struct NormalizeOptions {
    bool nfc = true;
    bool lowercase = true;
    bool collapseWhitespace = true;
    bool trim = true;
};

// What a run does with a bad input line, an unreadable file or a damaged compressed stream:
// record it (reason and file:line) and go on, or stop the run at the first one, in input order.
enum class OnError { Skip, Fail };

struct ReaderOptions {
    std::string textField = "text";  // dotted path, e.g. meta.content
    std::string idField = "id";      // dotted path; string or integer; missing -> "<file>:<line>"
    std::string keepField;           // numeric field for KeepPolicy::MaxField, empty if unused
    std::size_t chunkBytes = std::size_t{4} << 20;  // target bytes per parsed chunk
    OnError onError = OnError::Skip;  // not part of the dataset: both policies read the same
    // Lines longer than this are rejected as line_too_long, streamed past without being held
    // in memory. 0: a sixteenth of the run's memory budget, at least 1 MiB. Not part of the
    // dataset (a dataset is reused whatever the limit; its rejections say what it skipped).
    uint64_t maxLineBytes = 0;
};

struct SignatureParams {
    NormalizeOptions normalize;
    ShingleKind shingle = ShingleKind::Char;
    int ngram = 5;
    int hashes = 128;
    HashFamily family = HashFamily::Permute;
    // The one-permutation sketch by default: as accurate as the classic one at every threshold
    // from 0.5 to 0.9 on the planted corpora (docs/performance.md, "Choosing the default
    // sketch") and 3.5-10x faster to compute, depending on the CPU's vector multiply.
    SketchKind sketch = SketchKind::Oph;
    uint64_t seed = 42;
};

// The sketch a run gets when none is named: oph, except with the rolling family, which only
// the classic sketch uses (oph hashes each shingle once, with the permutation family).
inline SketchKind defaultSketch(HashFamily family) {
    return family == HashFamily::Rolling ? SketchKind::Classic : SketchKind::Oph;
}

struct LshParams {
    // chooseBandsRows (core/lsh/lsh_tuning.h) for the default threshold and hash count; the
    // CLI chooses them for the run's own threshold and hashes when -b/-r are not given.
    int bands = 18;
    int rows = 7;
    BandKeyScheme scheme = BandKeyScheme::Hash;
    BucketMode bucketMode = BucketMode::Exact;
    uint64_t buckets = 0;  // K when bucketMode == Fixed; resolved value after a run otherwise
    // True when bands and rows were chosen for the run (the CLI without -b/-r), not given: pairs
    // an earlier run compared with another b x r then serve this run too, if that b x r misses
    // no more pairs at this run's threshold (core/run/run_plan.cpp). Not recorded: the run
    // records the b x r its pairs came from.
    bool chosen = false;
};

struct CompareParams {
    double threshold = 0.8;
    // Pairs with estimated Jaccard >= floor are stored, so a later run with a threshold at or
    // above the floor re-clusters without comparing again.
    double storeFloor = 0.5;
    VerifyMode verify = VerifyMode::Borderline;
};

struct RunParams {
    ReaderOptions reader;
    SignatureParams signature;
    LshParams lsh;
    CompareParams compare;
    KeepPolicy keep = KeepPolicy::First;
    DecideRule decide = DecideRule::Witness;
    int threads = 0;  // 0 = all hardware threads
    std::string backend = "auto";
    // CPU workers (each on its share of the threads) and GPUs ("" = the first usable one,
    // "all", or a list such as "0,1,3") the backend spreads work over; results never depend on
    // either. Not part of toJson: the run's backend description names the workers.
    int workers = 1;
    std::string devices;
    static constexpr int kMaxWorkers = 64;
    // Bytes the run's large structures may occupy (signatures, band keys, bucket entries, pairs,
    // the document table); beyond it signatures and keys spill to files. 0 = half of the
    // memory available when the run starts. Never changes results.
    uint64_t memoryBudget = 0;
    // Where spill files go (in a private subdirectory, removed when the run ends); empty = next
    // to the project (<project>.d), or the system's temporary directory for in-memory projects.
    std::string workDir;
    // The largest share of rejected lines (rejected / (documents + rejected)) a run accepts;
    // above it the run fails before its outputs are written. 1 = any share (the default).
    // Not part of toJson: a policy of the command line, never a cause of other results.
    double maxRejected = 1.0;
};

// Names used on the command line, in the project file and in JSON summaries.
const char* toString(ShingleKind v);
const char* toString(HashFamily v);
const char* toString(SketchKind v);
const char* toString(BandKeyScheme v);
const char* toString(KeepPolicy v);
const char* toString(VerifyMode v);
const char* toString(DecideRule v);
std::optional<ShingleKind> parseShingleKind(const std::string& s);
std::optional<HashFamily> parseHashFamily(const std::string& s);
std::optional<SketchKind> parseSketchKind(const std::string& s);
std::optional<BandKeyScheme> parseBandKeyScheme(const std::string& s);
std::optional<VerifyMode> parseVerifyMode(const std::string& s);
std::optional<DecideRule> parseDecideRule(const std::string& s);  // "witness", "components"

// "first", "longest" or "max:FIELD"; sets policy and (for max) the field.
bool parseKeepPolicy(const std::string& s, KeepPolicy& policy, std::string& field);
// "exact", "auto" or a positive integer.
bool parseBuckets(const std::string& s, BucketMode& mode, uint64_t& buckets);
std::string bucketsToString(BucketMode mode, uint64_t buckets);

// --devices: "all" (all = true) or comma-separated device numbers, distinct, in the given
// order. False when the text is neither; "" is not a list.
bool parseDeviceList(const std::string& s, bool& all, std::vector<int>& devices);

// How validate()'s messages name the parameters: by default as the CLI's options; the workbench
// passes its panel's labels, so that a message points at what its user sees.
struct ParameterNames {
    std::string ngram = "--ngram";
    std::string hashes = "--hashes";
    std::string sketchOph = "--sketch oph";
    std::string hashPermute = "--hash permute";
    std::string bands = "--bands";
    std::string rows = "--rows";
    std::string buckets = "--buckets";
    std::string threshold = "--threshold";
    std::string storeFloor = "--store-floor";
    std::string keepMaxField = "--keep max:FIELD";
    std::string textField = "--text-field";
    std::string threads = "--threads";
    std::string backend = "--backend";
    std::string workers = "--workers";
    std::string devices = "--devices";
    std::string backendCudaOrAuto = "--backend cuda or auto";
};

// Returns an empty string when valid, else a message naming the offending parameter as `names`
// names it.
std::string validate(const RunParams& p, const ParameterNames& names = {});

// Resolved K for FED's auto rule (2 * sqrt(N)), never below 1.
uint64_t autoBucketCount(uint64_t documents);

// Parameters as one canonical JSON object (stable key order), for the project and summaries.
std::string toJson(const RunParams& p);
// Canonical key of what determines signatures; runs with equal keys share cached signatures.
std::string signatureCacheKey(const SignatureParams& s, const ReaderOptions& r);

}  // namespace neardup
