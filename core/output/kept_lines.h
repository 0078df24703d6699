// Copying documents' input lines into line outputs: --out-jsonl (every input into one file) and
// the JSON Lines shards of --out-dir (each input into its own). Lines are copied byte for byte
// in input order, streaming each input once; with annotations every document is written, its
// line extended by its cluster fields (cluster_annotation.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "document_table.h"
#include "jsonl_reader.h"
#include "run_result.h"

namespace neardup {

class ExportTicker;
class OutputFile;
class ClusterAnnotation;

struct LineTargets {
    // Per input file: the output its documents' lines go to; nullptr: not written here.
    std::vector<OutputFile*> sinks;
    // Non-null: every document is written, annotated; null: the kept documents only.
    const ClusterAnnotation* annotation = nullptr;
    // Read the inputs ahead on a second thread.
    bool readAhead = false;
    // With 2 or more, and only JSON Lines inputs written without annotations: the documents'
    // rows are checked and their lines gathered by that many threads, written in order.
    int threads = 1;
    // A Parquet input's rows are written as JSON lines of their id and text under these names.
    ReaderOptions reader;
    // The project the rows come from, for naming it when one is damaged (stored_row_check.h).
    std::string project;
};

// Writes the lines of the documents `targets` asks for. Throws std::runtime_error naming the
// input when one is shorter than when it was read or its pin does not match, and naming the
// project, the dataset and the document when a document's stored row does not match its line
// (stored_row_check.h).
void writeDocumentLines(const RunResult& run, const std::vector<InputFile>& files,
                        const DocumentTable& docs, const LineTargets& targets,
                        ExportTicker& ticker);

}  // namespace neardup
