// The project store's sampled audits (project_store.h): drawing a sample from a run's stored
// pairs, recording verdicts, reading samples back (tables in audit_rows.h).
#include "audit_rows.h"
#include "project_store.h"
#include "project_store_impl.h"
#include "result_rows.h"

namespace neardup {

int64_t ProjectStore::createAuditSample(int64_t runId, uint64_t n, uint64_t seed, int strata) {
    auto& db = impl_->db;
    const RunResult run = runRow(runId).run;
    if (run.status != "ok")
        throw StoreError("run " + std::to_string(runId) + " did not finish: nothing to audit");
    const std::vector<ScoredPair> pairs = store_rows::loadPairs(db, runId);
    const AuditDraw draw = drawAuditSample(pairs, run.params.signature.hashes,
                                           run.params.compare.threshold, n, seed, strata);
    if (draw.pairs.empty())
        throw StoreError("run " + std::to_string(runId) + " has no duplicate pair to audit");
    sql::Transaction tx(db);
    const int64_t id = store_rows::insertAuditSample(db, runId, n, draw);
    tx.commit();
    return id;
}

void ProjectStore::setAuditVerdict(int64_t sampleId, int ordinal,
                                   std::optional<AuditVerdict> verdict) {
    if (!store_rows::updateAuditVerdict(impl_->db, sampleId, ordinal, verdict))
        throw StoreError("project store: audit sample " + std::to_string(sampleId) +
                         " has no pair " + std::to_string(ordinal));
}

std::vector<int64_t> ProjectStore::auditSamples(int64_t runId) const {
    return store_rows::auditSampleIds(impl_->db, runId);
}

std::optional<StoredAudit> ProjectStore::auditSample(int64_t sampleId) const {
    return store_rows::loadAuditSample(impl_->db, sampleId);
}

}  // namespace neardup
