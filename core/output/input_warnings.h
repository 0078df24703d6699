// What a run says about its inputs and parameters when they look like a mistake: a --keep
// max:FIELD or --id-field that no document has, bands and rows that miss most pairs at the
// threshold, ids that several documents share, documents whose id had to be their file:line.
// Computed from the document table after the read, so a run that reuses its dataset and an
// export of a stored run say the same as the run that read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "document_table.h"
#include "params.h"
#include "run_result.h"

namespace neardup {

// The run's own documents' fields (the reference's are never written nor removed).
struct FieldCounts {
    uint64_t documents = 0;
    // Documents whose id is their "<file>:<line>": the id field missing, null or empty.
    uint64_t fileLineIds = 0;
    // Documents with a numeric --keep max:FIELD value.
    uint64_t keepValues = 0;
};

// On `threads` threads: one comparison of each id with its default, no copy.
FieldCounts countFields(const DocumentTable& docs, const std::vector<InputFile>& files,
                        int threads);

// The run's own documents whose id an earlier one of them has, and the first such pair.
struct DuplicateIds {
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    uint64_t count = 0;
    uint32_t first = kNone;    // the earliest document that repeats an id
    uint32_t earlier = kNone;  // the first document with that id
};

// Hashes the ids once, on `threads` threads, and sorts the hashes (16 bytes a document while it
// runs): no hash set grown per document, no pass per shingle.
DuplicateIds countDuplicateIds(const DocumentTable& docs, int threads);

// The message that refuses a run under --on-error fail: a field given that no document has is
// almost surely a typo. Empty when there is none.
std::string absentFieldProblem(const RunParams& params, const FieldCounts& fields);

// Each a sentence without the "warning: " prefix, naming the option and what the run did
// instead: the fields (and the ids made of file:line), then bands and rows that miss most pairs
// at the threshold.
std::vector<std::string> fieldWarnings(const RunParams& params, const FieldCounts& fields);

// Names the first repeated id and its two places; empty when no id repeats.
std::string duplicateIdWarning(const DocumentTable& docs, const std::vector<InputFile>& files,
                               const DuplicateIds& duplicates);

// All of the above for a stored run (export): its counts and warnings as the run had them.
void auditInputs(RunResult& run, const DocumentTable& docs, const std::vector<InputFile>& files,
                 int threads);

}  // namespace neardup
