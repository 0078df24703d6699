// Gathering a run report's content from the project: the run with its decisions, the dataset's
// inputs, cluster and bucket statistics, a sample of duplicate pairs read back from the inputs,
// the review progress and the latest sampled audit.
#include "report_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "clustering.h"
#include "component_chain.h"
#include "document_fetcher.h"
#include "html_text.h"
#include "input_pin.h"
#include "project_store.h"
#include "reference_matches.h"
#include "witness_rule.h"

namespace neardup::report {

namespace {

int64_t chooseRun(const ProjectStore& store, int64_t runId) {
    if (runId != 0) return runId;
    const std::optional<int64_t> latest = store.latestRun("ok");
    if (!latest) throw ReportError(fmt::format("{} holds no successful run", store.path()));
    return *latest;
}

void countClusters(ReportData& data, const DocumentTable& docs, std::size_t largest) {
    const RunResult& run = data.run;
    const std::size_t clusters = run.representative.size();
    std::vector<uint64_t> size(clusters, 0), removed(clusters, 0);
    for (std::size_t d = 0; d < run.clusterOf.size(); ++d) {
        const uint32_t c = run.clusterOf[d];
        if (c == RunResult::kNoCluster) continue;
        ++size[c];
        if (run.removed(d)) ++removed[c];
    }
    std::vector<uint32_t> order;
    for (uint32_t c = 0; c < clusters; ++c)
        if (size[c] >= 2) order.push_back(c);
    // Largest first; among equal sizes the cluster numbered first.
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t x, uint32_t y) { return size[x] > size[y]; });
    for (std::size_t i = 0; i < order.size() && i < largest; ++i) {
        const uint32_t c = order[i];
        ClusterLine line;
        line.cluster = c;
        line.size = size[c];
        line.removed = removed[c];
        line.representativeId = std::string(docs.id(run.representative[c]));
        line.keptWhole = !run.keepAll.empty() && run.keepAll[c];
        data.largestClusters.push_back(std::move(line));
    }
    // Bins 2, 3, 4, 5-8, 9-16, ...: exact where most clusters are, doubling beyond.
    std::vector<SizeBin> bins = {{2, 2, 0}, {3, 3, 0}, {4, 4, 0}};
    for (uint32_t c : order) {
        while (size[c] > bins.back().high)
            bins.push_back({bins.back().high + 1, bins.back().high * 2, 0});
        for (SizeBin& bin : bins)
            if (size[c] >= bin.low && size[c] <= bin.high) ++bin.clusters;
    }
    data.clusterSizes = std::move(bins);
}

void sumBucketHistogram(ReportData& data, std::size_t outliers) {
    for (const BandStats& band : data.run.bands) {
        data.bucketComparisons += band.comparisons;
        for (const OutlierBucket& o : band.outliers)
            data.outliers.push_back({band.band, o.size, o.comparisons});
        if (data.bucketHistogram.size() < band.histogram.size())
            data.bucketHistogram.resize(band.histogram.size(), 0);
        for (std::size_t i = 0; i < band.histogram.size(); ++i)
            data.bucketHistogram[i] += band.histogram[i];
    }
    while (!data.bucketHistogram.empty() && data.bucketHistogram.back() == 0)
        data.bucketHistogram.pop_back();
    // The costliest first; among equal costs the earlier band.
    std::stable_sort(
        data.outliers.begin(), data.outliers.end(),
        [](const OutlierLine& x, const OutlierLine& y) { return x.comparisons > y.comparisons; });
    if (data.outliers.size() > outliers) data.outliers.resize(outliers);
}

double similarity(const ScoredPair& p, int hashes) {
    return p.exact >= 0 ? double(p.exact) : double(p.matches) / hashes;
}

// Up to `n` duplicate pairs (both members in one cluster), spread evenly over the range of
// similarities from the threshold up, so that the borderline pairs are seen beside the copies.
// A duplicate pair is one the run joined (DuplicateTest): on a run against a reference, a pair
// of two reference documents is the reference's own, neither joined nor counted by the run, so
// that the report's count is the run's and its summary's.
std::vector<ScoredPair> pickPairs(ReportData& data, std::size_t n) {
    const RunResult& run = data.run;
    const int hashes = run.params.signature.hashes;
    const witness_rule::DuplicateTest duplicate(
        hashes, run.params.compare.threshold, {},
        static_cast<uint32_t>(run.counts.referenceDocuments));
    std::vector<ScoredPair> duplicates;
    for (const ScoredPair& p : run.pairs)
        if (duplicate(p) && run.clusterOf[p.a] != RunResult::kNoCluster &&
            run.clusterOf[p.a] == run.clusterOf[p.b])
            duplicates.push_back(p);
    data.duplicatePairs = duplicates.size();
    std::stable_sort(duplicates.begin(), duplicates.end(),
                     [&](const ScoredPair& x, const ScoredPair& y) {
                         return similarity(x, hashes) < similarity(y, hashes);
                     });
    std::vector<ScoredPair> picked;
    if (n == 0 || duplicates.empty()) return picked;
    if (duplicates.size() <= n) return duplicates;
    for (std::size_t i = 0; i < n; ++i)
        picked.push_back(duplicates[n == 1 ? 0 : i * (duplicates.size() - 1) / (n - 1)]);
    return picked;
}

void readTexts(std::vector<SamplePair>& out, const std::vector<ScoredPair>& pairs,
               const DocumentTable& docs, const DatasetRecord& dataset, std::size_t maxBytes) {
    DocumentFetcher fetcher(dataset.files, dataset.reader);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        SamplePair& s = out[i];
        const FetchedDocument a = fetcher.fetch(docs, pairs[i].a);
        const FetchedDocument b = fetcher.fetch(docs, pairs[i].b);
        if (!a.ok || !b.ok) {
            s.problem = !a.ok ? a.error : b.error;
            continue;
        }
        s.textsShown = true;
        s.textA = std::string(utf8Prefix(a.text, maxBytes));
        s.textB = std::string(utf8Prefix(b.text, maxBytes));
        s.cutA = s.textA.size() < a.text.size();
        s.cutB = s.textB.size() < b.text.size();
    }
}

void countReview(ReportData& data, const ProjectStore& store, const std::vector<Decision>& all) {
    std::map<std::string, uint64_t> byKind;
    std::set<uint32_t> named;
    for (const Decision& d : all) {
        ++byKind[toString(d.kind)];
        named.insert(d.a);
        if (isPairDecision(d.kind)) named.insert(d.b);
    }
    for (const auto& [kind, count] : byKind)
        data.decisions.push_back({kind, count});
    for (int64_t sampleId : store.auditSamples(data.run.runId)) {
        const std::optional<StoredAudit> audit = store.auditSample(sampleId);
        if (!audit) continue;
        for (const AuditPair& p : audit->draw.pairs)
            if (p.verdict) named.insert({p.a, p.b});
        data.audit = AuditLine{sampleId, audit->draw.pairs.size(), estimatePrecision(audit->draw)};
    }
    std::set<uint32_t> reviewed;
    for (uint32_t doc : named)
        if (doc < data.run.clusterOf.size() && data.run.clusterOf[doc] != RunResult::kNoCluster)
            reviewed.insert(data.run.clusterOf[doc]);
    data.reviewedClusters = reviewed.size();
}

// The components the run names, with their diameters from the run's cached signatures.
void listComponents(ReportData& data, const ProjectStore& store, const DocumentTable& docs) {
    const RunResult& run = data.run;
    data.run.components = notableComponents(store, run);
    std::map<uint32_t, std::size_t> lineOf;  // cluster -> its line
    for (const ComponentDiameter& c : run.components.components) {
        ComponentLine line;
        line.component = c;
        if (c.representative < docs.size()) line.representativeId = docs.id(c.representative);
        if (!std::isnan(c.diameter) && c.farthest < docs.size())
            line.farthestId = docs.id(c.farthest);
        line.keptWhole = !run.keepAll.empty() && c.cluster >= 0 &&
                         static_cast<std::size_t>(c.cluster) < run.keepAll.size() &&
                         run.keepAll[static_cast<std::size_t>(c.cluster)];
        lineOf[static_cast<uint32_t>(c.cluster)] = data.components.size();
        data.components.push_back(std::move(line));
    }
    for (std::size_t d = 0; d < run.clusterOf.size() && !lineOf.empty(); ++d) {
        const auto it = lineOf.find(run.clusterOf[d]);
        if (it != lineOf.end() && run.removed(d)) ++data.components[it->second].removed;
    }
}

}  // namespace

ReportData gatherReport(const ProjectStore& store, const std::string& projectName,
                        const ReportOptions& options, DocumentTable* docsOut) {
    const int64_t runId = chooseRun(store, options.runId);
    ReportData data;
    data.projectName = projectName;
    // The report samples duplicate pairs only: the run's other stored pairs are not loaded.
    data.run = store.loadRun(runId, ProjectStore::StoredPairs::Duplicates);
    if (data.run.status != "ok")
        throw ReportError(fmt::format("run {} is {}, not reportable", runId, data.run.status));
    DocumentTable docs;
    const DatasetRecord dataset = store.loadDataset(data.run.datasetId, &docs);
    data.inputs = dataset.files;
    data.linesRead = dataset.linesRead;
    data.blankLines = dataset.blankLines;
    countClusters(data, docs, options.largestClusters);
    const std::vector<ReferenceMatch> matches = referenceMatches(data.run);
    data.matchedReferenceDocuments = matches.size();
    for (std::size_t i = 0; i < matches.size() && i < kReportedReferenceMatches; ++i)
        data.referenceMatches.push_back(
            {std::string(docs.id(matches[i].document)), matches[i].removed});
    listComponents(data, store, docs);
    sumBucketHistogram(data, options.outlierBuckets);
    const std::vector<ScoredPair> pairs = pickPairs(data, options.samplePairs);
    for (const ScoredPair& p : pairs) {
        SamplePair s;
        s.idA = std::string(docs.id(p.a));
        s.idB = std::string(docs.id(p.b));
        s.estimated = double(p.matches) / data.run.params.signature.hashes;
        s.exact = p.exact;
        s.removedA = data.run.removed(p.a);
        s.removedB = data.run.removed(p.b);
        data.samplePairs.push_back(std::move(s));
    }
    data.textsOmitted = !options.withTexts;
    if (options.withTexts && !pairs.empty()) {
        // Stored offsets are used only on the very files they came from.
        if (const std::string problem = pinProblem(dataset.files); !problem.empty())
            throw ChangedInputError(problem);
        readTexts(data.samplePairs, pairs, docs, dataset, options.maxTextBytes);
    }
    countReview(data, store, store.decisions(data.run.datasetId));
    if (docsOut) *docsOut = std::move(docs);
    return data;
}

}  // namespace neardup::report
