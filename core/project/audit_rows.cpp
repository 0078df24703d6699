// The sampled audits' row mapper (audit_rows.h).
#include "audit_rows.h"

#include "store_rows.h"

namespace neardup::store_rows {

int64_t insertAuditSample(sql::Database& db, int64_t runId, uint64_t requested,
                          const AuditDraw& draw) {
    sql::Savepoint save(db, "audit_sample");
    auto s = db.prepare(
        std::string("INSERT INTO audit_samples(run_id, created_at, seed, threshold, strata,"
                    " requested) VALUES(?1, ") +
        kNow + ", ?2, ?3, ?4, ?5)");
    s.bind(1, runId)
        .bind(2, static_cast<int64_t>(draw.seed))
        .bind(3, draw.threshold)
        .bind(4, static_cast<int64_t>(draw.strata.size()))
        .bind(5, static_cast<int64_t>(requested));
    s.run();
    const int64_t id = db.lastInsertRowId();
    auto st = db.prepare("INSERT INTO audit_strata VALUES(?1, ?2, ?3, ?4, ?5)");
    st.bind(1, id);
    for (std::size_t h = 0; h < draw.strata.size(); ++h) {
        st.bind(2, static_cast<int64_t>(h))
            .bind(3, draw.strata[h].low)
            .bind(4, draw.strata[h].high)
            .bind(5, static_cast<int64_t>(draw.strata[h].pairs));
        st.run();
    }
    auto p = db.prepare("INSERT INTO audit_pairs VALUES(?1, ?2, ?3, ?4, ?5, ?6, NULL, NULL)");
    p.bind(1, id);
    for (std::size_t i = 0; i < draw.pairs.size(); ++i) {
        const AuditPair& x = draw.pairs[i];
        p.bind(2, static_cast<int64_t>(i))
            .bind(3, int64_t{x.stratum})
            .bind(4, int64_t{x.a})
            .bind(5, int64_t{x.b})
            .bind(6, x.estimated);
        p.run();
    }
    save.release();
    return id;
}

bool updateAuditVerdict(sql::Database& db, int64_t sampleId, int ordinal,
                        std::optional<AuditVerdict> verdict) {
    auto s =
        db.prepare(verdict ? std::string("UPDATE audit_pairs SET verdict = ?3, decided_at = ") +
                                 kNow + " WHERE sample_id = ?1 AND ordinal = ?2"
                           : std::string("UPDATE audit_pairs SET verdict = NULL, decided_at = NULL"
                                         " WHERE sample_id = ?1 AND ordinal = ?2"));
    s.bind(1, sampleId).bind(2, int64_t{ordinal});
    if (verdict) s.bind(3, std::string_view(toString(*verdict)));
    s.run();
    return db.changes() > 0;
}

std::vector<int64_t> auditSampleIds(const sql::Database& db, int64_t runId) {
    std::vector<int64_t> ids;
    if (!db.hasTable("audit_samples")) return ids;
    auto s = db.prepare("SELECT id FROM audit_samples WHERE run_id = ?1 ORDER BY id");
    s.bind(1, runId);
    while (s.step())
        ids.push_back(s.int64(0));
    return ids;
}

std::optional<StoredAudit> loadAuditSample(const sql::Database& db, int64_t sampleId) {
    if (!db.hasTable("audit_samples")) return std::nullopt;
    StoredAudit a;
    {
        auto s = db.prepare(
            "SELECT id, run_id, created_at, seed, threshold, requested FROM audit_samples"
            " WHERE id = ?1");
        s.bind(1, sampleId);
        if (!s.step()) return std::nullopt;
        const sql::Row row(s);
        a.sampleId = row.int64("id");
        a.runId = row.int64("run_id");
        a.createdAt = row.string("created_at");
        a.draw.seed = row.u64("seed");
        a.draw.threshold = row.real("threshold");
        a.requested = row.u64("requested");
    }
    {
        auto s = db.prepare(
            "SELECT low, high, pairs FROM audit_strata WHERE sample_id = ?1 ORDER BY stratum");
        s.bind(1, sampleId);
        while (s.step()) {
            const sql::Row row(s);
            a.draw.strata.push_back({row.real("low"), row.real("high"), row.u64("pairs")});
        }
    }
    auto s = db.prepare(
        "SELECT stratum, doc_a, doc_b, estimated, verdict FROM audit_pairs WHERE sample_id = ?1"
        " ORDER BY ordinal");
    s.bind(1, sampleId);
    while (s.step()) {
        const sql::Row row(s);
        AuditPair p;
        p.stratum = row.i32("stratum");
        p.a = static_cast<uint32_t>(row.int64("doc_a"));
        p.b = static_cast<uint32_t>(row.int64("doc_b"));
        p.estimated = row.real("estimated");
        if (!row.isNull("verdict"))
            p.verdict = enumFromName(
                {AuditVerdict::Duplicate, AuditVerdict::NotDuplicate, AuditVerdict::Unsure},
                row.text("verdict"), "audit verdict");
        a.draw.pairs.push_back(p);
    }
    return a;
}

}  // namespace neardup::store_rows
