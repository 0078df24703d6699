// The row mapper of the sampled audits (tables `audit_samples`, `audit_strata`, `audit_pairs`;
// core/audit/audit_sample.h): the store writes a drawn sample and its verdicts through it, and
// the store and the workbench's read-only queries read them back with the same decoders.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "audit_sample.h"
#include "sqlite_handle.h"

namespace neardup {

// A stored sampled audit: the draw with its verdicts so far.
struct StoredAudit {
    int64_t sampleId = 0;
    int64_t runId = 0;
    std::string createdAt;
    uint64_t requested = 0;
    AuditDraw draw;
};

namespace store_rows {

// Stores a drawn sample of run `runId` (requested: the n asked for); returns its id.
int64_t insertAuditSample(sql::Database& db, int64_t runId, uint64_t requested,
                          const AuditDraw& draw);
// Sets (or, with none, clears) the verdict of pair `ordinal` of a sample; false when there is
// no such pair.
bool updateAuditVerdict(sql::Database& db, int64_t sampleId, int ordinal,
                        std::optional<AuditVerdict> verdict);
// The samples of a run, oldest first (none when the project predates schema version 5).
std::vector<int64_t> auditSampleIds(const sql::Database& db, int64_t runId);
std::optional<StoredAudit> loadAuditSample(const sql::Database& db, int64_t sampleId);

}  // namespace store_rows

}  // namespace neardup
