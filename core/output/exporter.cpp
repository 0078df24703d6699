#include "exporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "atomic_file.h"
#include "cluster_annotation.h"
#include "components_json.h"
#include "dataset_shards.h"
#include "export_ticker.h"
#include "json_text.h"
#include "kept_lines.h"
#include "list_outputs.h"
#include "output_check.h"
#include "output_file.h"
#include "reference_matches.h"

namespace neardup {

namespace {

std::string number(double v) {
    return fmt::format("{:.6g}", v);
}

// The run's rejections as one inline object, {"reason": value, ...}, in the run's order.
template <typename Value>
std::string byReason(const std::vector<RejectionCount>& rejections, Value value) {
    std::string s = "{";
    for (std::size_t i = 0; i < rejections.size(); ++i) {
        if (i) s += ", ";
        s += json::quote(rejections[i].reason);
        s += ": ";
        s += value(rejections[i]);
    }
    return s + "}";
}

}  // namespace

PendingOutputs::PendingOutputs() = default;
PendingOutputs::~PendingOutputs() = default;

void PendingOutputs::add(std::unique_ptr<AtomicFile> file) {
    files_.push_back(std::move(file));
}

void PendingOutputs::commit() {
    for (auto& f : files_)
        f->commit();
    files_.clear();
}

void exportRun(const RunResult& run, const std::vector<InputFile>& files, const DocumentTable& docs,
               const ExportOptions& options, PendingOutputs* pending) {
    if (const std::string problem = outputProblem(options, files, options.project);
        !problem.empty())
        throw std::runtime_error(problem);
    const std::size_t n = docs.size();
    uint64_t outputs = 0;
    for (const std::string* p :
         {&options.jsonl, &options.kept, &options.removed, &options.clusters, &options.outDir})
        outputs += p->empty() ? 0 : 1;
    ExportTicker ticker(options, outputs * n);
    ticker.tick();  // a flag raised before the start cancels at once
    // Every output is complete under its temporary name before any is renamed into place.
    // Each compressed as its name asks (output_file.h).
    std::vector<std::unique_ptr<OutputFile>> written;
    auto open = [&](const std::string& path) -> OutputFile& {
        written.push_back(std::make_unique<OutputFile>(path));
        return *written.back();
    };
    if (!options.jsonl.empty()) {
        std::optional<ClusterAnnotation> annotation;
        if (options.annotate) annotation.emplace(run);
        LineTargets lines;
        lines.sinks.assign(files.size(), &open(options.jsonl));
        lines.annotation = annotation ? &*annotation : nullptr;
        lines.readAhead = options.readAhead;
        lines.threads = options.threads;
        lines.reader = options.reader;
        lines.project = options.project.project;
        writeDocumentLines(run, files, docs, lines, ticker);
    }
    if (!options.outDir.empty()) writeDatasetShards(run, files, docs, options, ticker, written);
    for (const bool kept : {true, false}) {
        const std::string& path = kept ? options.kept : options.removed;
        if (!path.empty()) writeIdList(run, docs, kept, open(path), ticker);
    }
    if (!options.clusters.empty()) writeClusterList(run, docs, open(options.clusters), ticker);
    if (!options.summaryJson.empty()) {
        OutputFile& out = open(options.summaryJson);
        out.write(summaryJson(run, docs));
        out.write("\n");
    }
    ticker.tick();
    for (auto& out : written)
        out->finish();
    if (pending) {
        for (auto& out : written)
            pending->add(out->release());
        return;
    }
    for (auto& out : written)
        out->commit();
}

namespace {

// A run against a reference: the reference's size, the removals it witnessed, and its documents
// that witnessed any, most matched first (then in input order), at most kListedMatches of them:
// for decontamination, which reference items leaked into the inputs and how often.
constexpr std::size_t kListedMatches = 1000;

std::string referenceJson(const RunResult& run, const DocumentTable& docs) {
    const RunCounts& c = run.counts;
    const std::vector<ReferenceMatch> matched = referenceMatches(run);
    const std::size_t listed = std::min(matched.size(), kListedMatches);
    std::string s = "{\"documents\": " + std::to_string(c.referenceDocuments) +
                    ", \"removed_for_reference\": " + std::to_string(c.removedByReference) +
                    ", \"matched_documents\": " + std::to_string(matched.size()) +
                    ", \"listed\": " + std::to_string(listed) +
                    ", \"read_before\": " + (run.referenceReused ? "true" : "false") +
                    ", \"matched\": [";
    for (std::size_t i = 0; i < listed; ++i) {
        if (i) s += ", ";
        s += "{\"id\": " + json::quote(docs.id(matched[i].document)) +
             ", \"removed\": " + std::to_string(matched[i].removed) + "}";
    }
    return s + "]}";
}

}  // namespace

// Written by hand with json_text.h: the layout (one field per line, nested objects on one line as
// {"a": 1, "b": 2}, numbers as %.6g, parameters as stored in the project) is what scripts and the
// comparison of builds read byte for byte. nlohmann-json's dump() has no such mixed layout (all on
// one line, or every nested field on a line of its own) and writes shortest doubles.
std::string summaryJson(const RunResult& run, const DocumentTable& docs) {
    const RunCounts& c = run.counts;
    std::string s = "{\n";
    auto field = [&](const char* name, const std::string& value, bool last = false) {
        s += "  \"";
        s += name;
        s += "\": ";
        s += value;
        s += last ? "\n" : ",\n";
    };
    // Runs of plain counts and of yes/no answers, each written as JSON writes the type.
    auto counts = [&](std::initializer_list<std::pair<const char*, uint64_t>> list) {
        for (const auto& [name, value] : list)
            field(name, std::to_string(value));
    };
    auto flag = [&](const char* name, bool value) { field(name, value ? "true" : "false"); };
    field("run", std::to_string(run.runId));
    field("status", json::quote(run.status));
    field("started_at", json::quote(run.startedAt));
    field("finished_at", json::quote(run.finishedAt));
    counts({{"lines_read", c.linesRead},
            {"blank_lines", c.blankLines},
            {"documents", c.documents},
            {"kept", c.kept},
            {"removed", c.removed},
            {"rejected", c.rejected}});
    field("rejected_by_reason", byReason(run.rejections, [](const RejectionCount& r) {
              return std::to_string(r.count);
          }));
    field("first_rejected_line", byReason(run.rejections, [](const RejectionCount& r) {
              return json::quote(r.firstFile + ":" + std::to_string(r.firstLine));
          }));
    counts({{"short_documents", c.shortDocuments},
            {"input_bytes", c.inputBytes},
            {"candidate_pairs", c.candidatePairs},
            {"stored_pairs", c.storedPairs},
            {"duplicate_pairs", c.duplicatePairs},
            {"clusters", c.clusters}});
    field("decide", json::quote(toString(run.params.decide)));
    counts({{"chained_removals", c.chainedRemovals}, {"decisions_applied", run.decisionsApplied}});
    // Written only when there is something to say, so that a run without any keeps its summary.
    if (c.duplicateIds > 0) field("duplicate_ids", std::to_string(c.duplicateIds));
    if (c.fileLineIds > 0) field("file_line_ids", std::to_string(c.fileLineIds));
    if (!run.warnings.empty()) {
        std::string list = "[";
        for (std::size_t i = 0; i < run.warnings.size(); ++i)
            list += (i ? ", " : "") + json::quote(run.warnings[i]);
        field("warnings", list + "]");
    }
    if (c.referenceDocuments > 0) field("reference", referenceJson(run, docs));
    if (run.components.measured) field("components", componentsJson(run.components, docs));
    field("buckets_k",
          run.resolvedBuckets ? std::to_string(run.resolvedBuckets) : std::string("\"exact\""));
    flag("signatures_reused", run.signaturesReused);
    flag("pairs_reused", run.pairsReused);
    field("memory_budget", std::to_string(run.memoryBudget));
    flag("spilled", run.spilled);
    counts({{"spill_bytes", run.spillBytes}, {"peak_rss_bytes", run.peakRssBytes}});
    field("threads", std::to_string(run.threads));
    field("backend", json::quote(run.backend));
    field("parameters", toJson(run.params));
    std::string phases = "{";
    std::string throughput = "{";
    for (std::size_t i = 0; i < run.phases.size(); ++i) {
        const PhaseTiming& p = run.phases[i];
        if (i) phases += ", ";
        phases += json::quote(p.name);
        phases += ": ";
        phases += number(p.seconds);
        const double mbs = p.seconds > 0 ? static_cast<double>(p.bytes) / 1e6 / p.seconds : 0;
        const double items = p.seconds > 0 ? static_cast<double>(p.items) / p.seconds : 0;
        if (i) throughput += ", ";
        throughput += json::quote(p.name) + ": {\"items\": " + std::to_string(p.items) +
                      ", \"items_per_s\": " + number(items) + ", \"mb_per_s\": " + number(mbs) +
                      ", \"reused\": " + (p.reused ? "true" : "false") + "}";
    }
    field("phases", phases + "}");
    field("phase_details", throughput + "}", true);
    return s + "}";
}

}  // namespace neardup
