// What the run report shows, gathered from a project (report_data.cpp) before any HTML is made
// (report_html.cpp): a plain struct, so that the numbers can be tested apart from the markup.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "audit_sample.h"
#include "document_table.h"
#include "run_result.h"

namespace neardup {
class ProjectStore;
}

namespace neardup::report {

// A report that cannot be made: no such run, a run that did not finish, an input that changed
// since the run read it (the message names the file).
class ReportError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// An input the report would quote texts from is missing or changed since the run read it (the
// message names the file): a report without texts can still be made.
class ChangedInputError : public ReportError {
  public:
    using ReportError::ReportError;
};

struct ReportOptions {
    int64_t runId = 0;            // 0: the latest successful run
    std::size_t samplePairs = 8;  // duplicate pairs shown side by side
    std::size_t largestClusters = 10;
    std::size_t outlierBuckets = 10;
    // False: no document text at all (the pairs are listed by id). The report says so; its
    // other content is unchanged.
    bool withTexts = true;
    // Bytes of each document's text shown (cut on a character boundary).
    std::size_t maxTextBytes = 3000;
    // The clusters CSV with every cell as stored, formula-like ones unguarded (`--csv-raw`,
    // cluster_csv.h).
    bool csvRaw = false;
};

struct ClusterLine {
    uint32_t cluster = 0;
    uint64_t size = 0;
    uint64_t removed = 0;
    std::string representativeId;
    bool keptWhole = false;  // a "keep all" decision keeps every member
};

// A component the run names (notable_components.h: the largest, every one of kLargeComponent
// members or more), with the ids of its representative and of its farthest member.
struct ComponentLine {
    ComponentDiameter component;
    std::string representativeId;
    std::string farthestId;  // empty when the diameter is unknown
    uint64_t removed = 0;    // members removed, as the export decides
    bool keptWhole = false;  // a "keep all" decision keeps every member
};

struct SizeBin {  // clusters with a size in [low, high]
    uint64_t low = 0, high = 0;
    uint64_t clusters = 0;
};

struct OutlierLine {  // an outlier bucket (run_result.h: BandStats::outliers)
    int band = 0;
    uint64_t size = 0;
    uint64_t comparisons = 0;
};

struct SamplePair {
    std::string idA, idB;
    double estimated = 0;
    double exact = -1;                        // -1: not verified
    bool removedA = false, removedB = false;  // as the export decides
    bool textsShown = false;
    std::string textA, textB;  // cut to maxTextBytes
    bool cutA = false, cutB = false;
    std::string problem;  // why a text could not be read back ("" when both were)
};

// How many reference documents the report lists, those that removed the most new documents.
inline constexpr std::size_t kReportedReferenceMatches = 20;

// A reference document that new documents were removed for (reference_matches.h).
struct ReferenceLine {
    std::string id;
    uint64_t removed = 0;
};

struct DecisionCount {
    std::string kind;  // "not_duplicate", ...
    uint64_t count = 0;
};

struct AuditLine {
    int64_t sampleId = 0;
    uint64_t drawn = 0;
    PrecisionEstimate estimate;
};

struct ReportData {
    std::string projectName;  // the project file's name, without folders
    RunResult run;            // with the dataset's decisions applied, as exports see it
    std::vector<InputFile> inputs;
    uint64_t linesRead = 0, blankLines = 0;
    std::vector<ClusterLine> largestClusters;
    // The components `neardup run` names on stderr and in --summary-json, the same selection
    // (component_chain.h: notableComponents); their threshold and why diameters are unknown are
    // in run.components.
    std::vector<ComponentLine> components;
    std::vector<SizeBin> clusterSizes;
    std::vector<uint64_t> bucketHistogram;  // over every band: [i] = buckets of size [2^i, 2^(i+1))
    // The outlier buckets that cost the most comparisons, over every band; all comparisons.
    std::vector<OutlierLine> outliers;
    uint64_t bucketComparisons = 0;
    std::vector<SamplePair> samplePairs;
    // Pairs at the threshold that the run joined, both in one cluster (against a reference,
    // those with a new document: the run's count).
    uint64_t duplicatePairs = 0;
    bool textsOmitted = false;  // withTexts was false
    std::vector<DecisionCount> decisions;
    uint64_t reviewedClusters = 0;
    std::optional<AuditLine> audit;
    // A run against a reference: its documents that removed the most new ones, and how many of
    // its documents removed any.
    std::vector<ReferenceLine> referenceMatches;
    uint64_t matchedReferenceDocuments = 0;
};

// Gathers the report of run options.runId (or the latest successful run) of `store`. With
// texts, the inputs are first checked against their pins (input_pin.h): a changed or missing
// input throws ReportError naming it, as `neardup export` refuses it.
// `docs`, when given, receives the dataset's document table (for the clusters CSV).
ReportData gatherReport(const ProjectStore& store, const std::string& projectName,
                        const ReportOptions& options, DocumentTable* docs = nullptr);

}  // namespace neardup::report
