// The clusters of a run as a CSV file beside its report (`neardup report --clusters-csv`, the
// workbench's Export Report dialog): one row per member of every cluster, in the order of
// `neardup export --out-clusters` (clusters by their smallest member, members in input order),
// for a spreadsheet or a data frame. RFC 4180: a header row, CRLF line ends, a field holding a
// comma, a double quote, CR or LF enclosed in double quotes with its quotes doubled; a cell that
// begins like a spreadsheet formula gets a leading "'" unless raw cells are asked for (CsvCells).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decisions.h"
#include "document_table.h"
#include "run_result.h"

namespace neardup {
class AtomicFile;
}

namespace neardup::report {

// The header row's fields:
//   cluster       the cluster's number, as --out-clusters numbers it
//   cluster_size  its members
//   id            the member's document id
//   representative  1 for the document kept for the cluster, else 0
//   status        kept or removed (as every export decides, decisions applied)
//   witness       the id of the kept document it is removed for (empty when kept, or removed
//                 without a duplicate pair with a kept document: a chained removal)
//   jaccard       the estimated Jaccard with the witness (matches / hashes), empty without one
//   exact         the exact Jaccard with the witness when the run verified it, else empty
//   decision      the review decisions naming the document, in the order recorded, "; "
//                 apart: "not_duplicate with ID", "confirmed_duplicate with ID",
//                 "keep_instead", "keep_all" (empty when none)
inline constexpr std::string_view kClustersCsvHeader =
    "cluster,cluster_size,id,representative,status,witness,jaccard,exact,decision";

// How a cell that a spreadsheet would evaluate as a formula is written.
enum class CsvCells {
    // A cell beginning with '=', '+', '-', '@', TAB or CR gets a leading "'" (OWASP's rule
    // against CSV injection): Excel, LibreOffice and Google Sheets show it as text instead of
    // running it. An id "=HYPERLINK(...)" is written "'=HYPERLINK(...)".
    Guarded,
    // Every cell exactly as the project holds it (`--csv-raw`): for scripts that read the CSV
    // back and must get the ids byte for byte.
    Raw,
};

// `field` as an RFC 4180 field: as it is, or quoted when it holds a comma, a double quote, CR
// or LF; with CsvCells::Guarded, a leading "'" first when it begins like a formula.
std::string csvField(std::string_view field, CsvCells cells = CsvCells::Guarded);

struct CsvWritten {
    uint64_t rows = 0;  // members written (the header not counted)
    uint64_t bytes = 0;
};

// Writes the clusters of `run` (with the decisions applied, as ProjectStore::loadRun gives it)
// to `out`; `decisions` are the dataset's, oldest first. The bytes depend only on the inputs.
CsvWritten writeClustersCsv(const RunResult& run, const DocumentTable& docs,
                            const std::vector<Decision>& decisions, AtomicFile& out,
                            CsvCells cells = CsvCells::Guarded);

}  // namespace neardup::report
