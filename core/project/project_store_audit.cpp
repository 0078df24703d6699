// The project store's sampled audits (project_store.h): drawing a sample from a run's stored
// pairs at a threshold, recording verdicts, turning them into decisions, reading samples back
// (tables in audit_rows.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "audit_rows.h"
#include "decision_rows.h"
#include "project_store.h"
#include "project_store_impl.h"
#include "result_rows.h"

namespace neardup {

int64_t ProjectStore::createAuditSample(int64_t runId, uint64_t n, uint64_t seed,
                                        std::optional<double> threshold, int strata) {
    auto& db = impl_->db;
    const RunResult run = runRow(runId).run;
    if (run.status != "ok")
        throw StoreError("run " + std::to_string(runId) + " did not finish: nothing to audit");
    const double theta = threshold.value_or(run.params.compare.threshold);
    const double floor = std::min(run.params.compare.storeFloor, run.params.compare.threshold);
    if (!(theta >= floor - 1e-9 && theta <= 1.0))
        throw StoreError(
            fmt::format("cannot audit run {} at threshold {}: its pairs are stored from {} to 1",
                        runId, theta, floor));
    const std::vector<ScoredPair> pairs = store_rows::loadPairs(db, runId);
    const AuditDraw draw =
        drawAuditSample(pairs, run.params.signature.hashes, theta, n, seed, strata);
    if (draw.pairs.empty())
        throw StoreError(
            fmt::format("run {} has no duplicate pair at threshold {} to audit", runId, theta));
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

ProjectStore::AppliedVerdicts ProjectStore::applyAuditVerdicts(int64_t sampleId) {
    auto& db = impl_->db;
    const std::optional<StoredAudit> audit = store_rows::loadAuditSample(db, sampleId);
    if (!audit) throw StoreError("project store: no audit sample " + std::to_string(sampleId));
    const int64_t datasetId = runRow(audit->runId).run.datasetId;
    // The pair decisions already recorded, by pair (a < b), with the latest kind.
    std::map<std::pair<uint32_t, uint32_t>, DecisionKind> decided;
    for (const Decision& d : store_rows::loadDecisions(db, datasetId))
        if (isPairDecision(d.kind)) decided[{d.a, d.b}] = d.kind;
    AppliedVerdicts applied;
    sql::Transaction tx(db);
    for (const AuditPair& p : audit->draw.pairs) {
        if (!p.verdict || *p.verdict == AuditVerdict::Unsure) continue;
        const DecisionKind kind = *p.verdict == AuditVerdict::NotDuplicate
                                      ? DecisionKind::NotDuplicate
                                      : DecisionKind::ConfirmedDuplicate;
        const std::pair<uint32_t, uint32_t> key = std::minmax(p.a, p.b);
        if (const auto found = decided.find(key); found != decided.end()) {
            ++applied.skipped;
            if (found->second != kind) ++applied.conflicting;
            continue;
        }
        recordDecision(datasetId, kind, key.first, key.second);
        decided.emplace(key, kind);  // a pair drawn twice is decided once
        ++(kind == DecisionKind::NotDuplicate ? applied.notDuplicate : applied.confirmed);
    }
    tx.commit();
    return applied;
}

std::vector<int64_t> ProjectStore::auditSamples(int64_t runId) const {
    return store_rows::auditSampleIds(impl_->db, runId);
}

std::optional<StoredAudit> ProjectStore::auditSample(int64_t sampleId) const {
    return store_rows::loadAuditSample(impl_->db, sampleId);
}

}  // namespace neardup
