// The lists of a run: --out-kept and --out-removed (one id per document) and --out-clusters (one
// record per member of each cluster), as JSON Lines, or as Parquet when the file's name ends in
// .parquet (typed columns: id; id, cluster, representative, kept, witness, jaccard, exact).
#pragma once

#include "document_table.h"
#include "run_result.h"

namespace neardup {

class ExportTicker;
class OutputFile;

// The ids of the kept (`kept` true) or removed documents, in input order.
void writeIdList(const RunResult& run, const DocumentTable& docs, bool kept, OutputFile& out,
                 ExportTicker& ticker);

// Every member of every cluster, clusters in order of their smallest member (exporter.h says
// what each record holds).
void writeClusterList(const RunResult& run, const DocumentTable& docs, OutputFile& out,
                      ExportTicker& ticker);

}  // namespace neardup
