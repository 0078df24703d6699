#include "input_warnings.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "field_text.h"
#include "lsh_buckets.h"

namespace neardup {

namespace {

// Whether `id` is "<prefix>:<line>", the id the reader gives a document without one, compared
// in place: this runs once per document.
bool isFileLineId(std::string_view id, std::string_view prefix, uint64_t line) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, line).ptr;
    const std::string_view number(digits, static_cast<std::size_t>(end - digits));
    return id.size() == prefix.size() + 1 + number.size() && id.starts_with(prefix) &&
           id[prefix.size()] == ':' && id.ends_with(number);
}

// An id as a warning quotes it: a long one cut (on a character boundary) to a readable length.
std::string quotedId(std::string_view id) {
    constexpr std::size_t kShown = 80;
    if (id.size() <= kShown) return "'" + std::string(id) + "'";
    std::size_t cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(id[cut]) & 0xC0) == 0x80)
        --cut;
    return "'" + std::string(id.substr(0, cut)) + "...'";
}

std::string place(const DocumentTable& docs, const std::vector<InputFile>& files, uint32_t doc) {
    return files.at(docs.file[doc]).path + ":" + std::to_string(docs.line[doc]);
}

struct HashedId {
    uint64_t hash = 0;
    uint32_t doc = 0;
    friend bool operator<(const HashedId& x, const HashedId& y) {
        return x.hash != y.hash ? x.hash < y.hash : x.doc < y.doc;
    }
};

}  // namespace

FieldCounts countFields(const DocumentTable& docs, const std::vector<InputFile>& files,
                        int threads) {
    std::vector<std::string> prefixes;
    prefixes.reserve(files.size());
    for (const InputFile& f : files)
        prefixes.push_back(idSafeName(f.path));
    const std::size_t first = docs.referenceDocuments;
    FieldCounts counts;
    counts.documents = docs.size() - first;
    using Pair = std::pair<uint64_t, uint64_t>;
    tbb::task_arena arena(std::max(1, threads));
    const Pair found = arena.execute([&] {
        return tbb::parallel_reduce(
            tbb::blocked_range<std::size_t>(first, docs.size(), 1 << 14), Pair{0, 0},
            [&](const tbb::blocked_range<std::size_t>& range, Pair sum) {
                for (std::size_t i = range.begin(); i != range.end(); ++i) {
                    sum.first += isFileLineId(docs.id(i), prefixes[docs.file[i]], docs.line[i]);
                    sum.second += i < docs.keepValue.size() && !std::isnan(docs.keepValue[i]);
                }
                return sum;
            },
            [](Pair a, Pair b) {
                return Pair{a.first + b.first, a.second + b.second};
            });
    });
    counts.fileLineIds = found.first;
    counts.keepValues = found.second;
    return counts;
}

DuplicateIds countDuplicateIds(const DocumentTable& docs, int threads) {
    const std::size_t first = docs.referenceDocuments, n = docs.size() - first;
    DuplicateIds out;
    if (n < 2) return out;
    std::vector<HashedId> hashed(n);
    tbb::task_arena arena(std::max(1, threads));
    arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1 << 14), [&](const auto& r) {
            for (std::size_t k = r.begin(); k != r.end(); ++k) {
                const auto doc = static_cast<uint32_t>(first + k);
                hashed[k] = {std::hash<std::string_view>{}(docs.id(doc)), doc};
            }
        });
        tbb::parallel_sort(hashed.begin(), hashed.end());
    });
    // Within one hash, in document order: a document repeats an id when an earlier one of the
    // group has the same bytes (two ids of one hash are told apart by their text).
    std::vector<uint32_t> distinct;
    for (std::size_t g = 0; g < n;) {
        std::size_t end = g + 1;
        while (end < n && hashed[end].hash == hashed[g].hash)
            ++end;
        distinct.assign(1, hashed[g].doc);
        for (std::size_t k = g + 1; k < end; ++k) {
            const uint32_t doc = hashed[k].doc;
            bool repeated = false;
            for (const uint32_t seen : distinct) {
                if (docs.id(seen) != docs.id(doc)) continue;
                repeated = true;
                ++out.count;
                if (doc < out.first) {
                    out.first = doc;
                    out.earlier = seen;
                }
                break;
            }
            if (!repeated) distinct.push_back(doc);
        }
        g = end;
    }
    return out;
}

std::string absentFieldProblem(const RunParams& params, const FieldCounts& fields) {
    if (params.reader.onError != OnError::Fail || fields.documents == 0) return {};
    const std::string why =
        " (refused under --on-error fail: a field that no document has is almost surely a "
        "mistyped name; without --on-error fail the run goes on with a warning)";
    if (params.keep == KeepPolicy::MaxField && fields.keepValues == 0)
        return fmt::format("--keep max:{}: no document has a numeric '{}'{}",
                           params.reader.keepField, params.reader.keepField, why);
    if (params.reader.idField != ReaderOptions{}.idField && fields.fileLineIds == fields.documents)
        return fmt::format("--id-field {}: no document has a '{}'{}", params.reader.idField,
                           params.reader.idField, why);
    return {};
}

std::vector<std::string> fieldWarnings(const RunParams& params, const FieldCounts& fields) {
    std::vector<std::string> out;
    const std::string& keep = params.reader.keepField;
    if (params.keep == KeepPolicy::MaxField && fields.documents > 0 && fields.keepValues == 0)
        out.push_back(fmt::format(
            "--keep max:{}: no document has a numeric '{}': every document ties, so the first "
            "in input order is kept (as --keep first)",
            keep, keep));
    const std::string& id = params.reader.idField;
    if (fields.documents > 0 && fields.fileLineIds == fields.documents &&
        id != ReaderOptions{}.idField)
        out.push_back(fmt::format(
            "--id-field {}: no document has a '{}': every id is the document's file:line", id, id));
    else if (fields.fileLineIds > 0 && fields.fileLineIds < fields.documents)
        out.push_back(fmt::format(
            "{} of the {} documents have no '{}', or a null or empty one: each of their ids is "
            "the document's file:line",
            fields.fileLineIds, fields.documents, id));
    // What the CLI prints as "pairs at the threshold missed", judged: beyond one in two, most
    // near-duplicates go unfound.
    const double threshold = params.compare.threshold;
    const int bands = params.lsh.bands, rows = params.lsh.rows;
    constexpr double kMostPairs = 0.5;
    if (bands >= 1 && rows >= 1 && threshold > 0 && threshold <= 1) {
        const double missed = 1.0 - candidateProbability(threshold, bands, rows);
        if (missed > kMostPairs)
            out.push_back(fmt::format(
                "--bands {} --rows {} miss {:.1f} % of the pairs at the threshold {}: most "
                "near-duplicates go unfound (leave -b and -r out to have them chosen, or give "
                "more --hashes)",
                bands, rows, 100.0 * missed, threshold));
    }
    return out;
}

std::string duplicateIdWarning(const DocumentTable& docs, const std::vector<InputFile>& files,
                               const DuplicateIds& duplicates) {
    if (duplicates.count == 0) return {};
    return fmt::format(
        "{} document(s) have an id an earlier document has (ids are labels, not keys: an id "
        "list filtered by one of them drops every document with it); the first: {} at {}, "
        "first at {}",
        duplicates.count, quotedId(docs.id(duplicates.first)), place(docs, files, duplicates.first),
        place(docs, files, duplicates.earlier));
}

void auditInputs(RunResult& run, const DocumentTable& docs, const std::vector<InputFile>& files,
                 int threads) {
    const FieldCounts fields = countFields(docs, files, threads);
    const DuplicateIds duplicates = countDuplicateIds(docs, threads);
    run.counts.fileLineIds = fields.fileLineIds;
    run.counts.duplicateIds = duplicates.count;
    run.warnings = fieldWarnings(run.params, fields);
    if (std::string w = duplicateIdWarning(docs, files, duplicates); !w.empty())
        run.warnings.push_back(std::move(w));
}

}  // namespace neardup
