// The lists of a run: --out-kept and --out-removed (one id per document) and --out-clusters (one
// record per member of each cluster), as JSON Lines, or as Parquet when the file's name ends in
// .parquet (typed columns: id; id, cluster, representative, kept, witness, jaccard, exact).
#pragma once

#include "document_table.h"
#include "run_result.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace neardup {

class ExportTicker;
class OutputFile;

// What the clusters list says of one member of a cluster (the JSON Lines and Parquet lists
// here, the report's clusters CSV in core/report).
struct ClusterMemberRecord {
    bool representative = false;
    bool kept = false;
    bool listKept = false;          // JSON: "kept": true (kept, and not the cluster's own keeper)
    bool witnessKnown = false;      // removed with a witness pair
    bool chained = false;           // removed without one ("witness": null)
    uint32_t witness = 0;           // the kept document it is removed for (witnessKnown)
    bool witnessReference = false;  // that document is the reference's (`--reference`)
    double jaccard = 0;             // the estimated Jaccard of the witness pair (matches / hashes)
    std::optional<double> exact;    // its exact Jaccard, when verified (the float's digits)
    float exactAsStored = -1.0f;    // written to JSON as the float's shortest digits
};

// Document `d` of cluster `c` of `run`.
ClusterMemberRecord describeClusterMember(const RunResult& run, std::size_t c, uint32_t d);

// The members of each cluster, in input order; clusters in the run's order (that of their
// smallest member).
std::vector<std::vector<uint32_t>> clusterMembers(const RunResult& run);

// The ids of the kept (`kept` true) or removed documents, in input order; never a reference
// document's (RunResult::reference), which is neither.
void writeIdList(const RunResult& run, const DocumentTable& docs, bool kept, OutputFile& out,
                 ExportTicker& ticker);

// Every member of every cluster, clusters in order of their smallest member (exporter.h says
// what each record holds).
void writeClusterList(const RunResult& run, const DocumentTable& docs, OutputFile& out,
                      ExportTicker& ticker);

}  // namespace neardup
