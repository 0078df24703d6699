// The `decisions` table's row mapper (decision_rows.h).
#include "decision_rows.h"

#include <string>

namespace neardup::store_rows {

namespace {

constexpr const char* kSelect =
    "SELECT id, kind, doc_a, doc_b, created_at FROM decisions WHERE dataset_id = ?1";

Decision readDecision(const sql::Statement& st) {
    const sql::Row row(st);
    Decision d;
    d.id = row.int64("id");
    d.kind = parseDecisionKind(row.text("kind")).value_or(DecisionKind::KeepAll);
    d.a = static_cast<uint32_t>(row.int64("doc_a"));
    d.b = row.isNull("doc_b") ? 0 : static_cast<uint32_t>(row.int64("doc_b"));
    d.createdAt = row.string("created_at");
    return d;
}

}  // namespace

int64_t insertDecision(sql::Database& db, int64_t datasetId, DecisionKind kind, uint32_t a,
                       std::optional<uint32_t> b) {
    auto st =
        db.prepare(std::string("INSERT INTO decisions(dataset_id, kind, doc_a, doc_b, created_at) "
                               "VALUES(?1, ?2, ?3, ?4, ") +
                   kNow + ")");
    st.bind(1, datasetId).bind(2, std::string_view(toString(kind))).bind(3, int64_t{a});
    if (b)
        st.bind(4, int64_t{*b});
    else
        st.bindNull(4);
    st.run();
    return db.lastInsertRowId();
}

std::vector<Decision> loadDecisions(const sql::Database& db, int64_t datasetId) {
    std::vector<Decision> out;
    if (!db.hasTable("decisions")) return out;  // schema version 1: no decisions yet
    auto st = db.prepare(std::string(kSelect) + " ORDER BY id");
    st.bind(1, datasetId);
    while (st.step())
        out.push_back(readDecision(st));
    return out;
}

std::optional<Decision> findDecision(const sql::Database& db, int64_t datasetId,
                                     int64_t decisionId) {
    auto st = db.prepare(std::string(kSelect) +
                         (decisionId ? " AND id = ?2" : " ORDER BY id DESC LIMIT 1"));
    st.bind(1, datasetId);
    if (decisionId) st.bind(2, decisionId);
    if (!st.step()) return std::nullopt;
    return readDecision(st);
}

void deleteDecision(sql::Database& db, int64_t decisionId) {
    auto del = db.prepare("DELETE FROM decisions WHERE id = ?1");
    del.bind(1, decisionId).run();
}

}  // namespace neardup::store_rows
