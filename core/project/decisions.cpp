#include "decisions.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "clustering.h"
#include "project_store.h"
#include "sqlite_handle.h"

namespace neardup {

namespace {

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

uint64_t datasetDocuments(sql::Database& db, int64_t datasetId) {
    auto st = db.prepare("SELECT documents FROM datasets WHERE id = ?1");
    st.bind(1, datasetId);
    if (!st.step()) throw StoreError("project store: no dataset " + std::to_string(datasetId));
    return st.u64(0);
}

Decision readRow(sql::Statement& st) {
    Decision d;
    d.id = st.int64(0);
    d.kind = parseDecisionKind(st.text(1)).value_or(DecisionKind::KeepAll);
    d.a = static_cast<uint32_t>(st.int64(2));
    d.b = st.isNull(3) ? 0 : static_cast<uint32_t>(st.int64(3));
    d.createdAt = st.string(4);
    return d;
}

constexpr const char* kSelect =
    "SELECT id, kind, doc_a, doc_b, created_at FROM decisions WHERE dataset_id = ?1";

}  // namespace

const char* toString(DecisionKind kind) {
    switch (kind) {
        case DecisionKind::NotDuplicate:
            return "not_duplicate";
        case DecisionKind::KeepInstead:
            return "keep_instead";
        case DecisionKind::KeepAll:
            return "keep_all";
    }
    return "keep_all";
}

std::optional<DecisionKind> parseDecisionKind(std::string_view name) {
    for (const DecisionKind k :
         {DecisionKind::NotDuplicate, DecisionKind::KeepInstead, DecisionKind::KeepAll})
        if (name == toString(k)) return k;
    return std::nullopt;
}

int64_t recordDecision(ProjectStore& store, int64_t datasetId, DecisionKind kind, uint32_t a,
                       uint32_t b) {
    sql::Database& db = store.database();
    const uint64_t documents = datasetDocuments(db, datasetId);
    const bool pair = kind == DecisionKind::NotDuplicate;
    if (pair && a > b) std::swap(a, b);
    if (a >= documents || (pair && b >= documents))
        throw StoreError("decision about document " + std::to_string(a >= documents ? a : b) +
                         ", but dataset " + std::to_string(datasetId) + " has " +
                         std::to_string(documents) + " documents");
    if (pair && a == b)
        throw StoreError("a \"not a duplicate\" decision needs two different documents");
    auto st =
        db.prepare(std::string("INSERT INTO decisions(dataset_id, kind, doc_a, doc_b, created_at) "
                               "VALUES(?1, ?2, ?3, ?4, ") +
                   kNow + ")");
    st.bind(1, datasetId).bind(2, std::string_view(toString(kind))).bind(3, int64_t{a});
    if (pair)
        st.bind(4, int64_t{b});
    else
        st.bindNull(4);
    st.run();
    return db.lastInsertRowId();
}

std::vector<Decision> listDecisions(ProjectStore& store, int64_t datasetId) {
    auto st = store.database().prepare(std::string(kSelect) + " ORDER BY id");
    st.bind(1, datasetId);
    std::vector<Decision> out;
    while (st.step())
        out.push_back(readRow(st));
    return out;
}

std::vector<Decision> listDecisions(sqlite3* db, int64_t datasetId) {
    std::vector<Decision> out;
    auto fail = [db](const char* what) {
        throw StoreError(std::string("cannot read decisions (") + what +
                         "): " + sqlite3_errmsg(db));
    };
    sqlite3_stmt* st = nullptr;
    const char* probe = "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'decisions'";
    if (sqlite3_prepare_v2(db, probe, -1, &st, nullptr) != SQLITE_OK) fail("schema");
    const int found = sqlite3_step(st);
    sqlite3_finalize(st);
    if (found == SQLITE_DONE) return out;  // schema version 1: no decisions yet
    if (found != SQLITE_ROW) fail("schema");
    const std::string sql = std::string(kSelect) + " ORDER BY id";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) fail("prepare");
    sqlite3_bind_int64(st, 1, datasetId);
    int rc = SQLITE_OK;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        Decision d;
        d.id = sqlite3_column_int64(st, 0);
        const auto* kind = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
        d.kind = parseDecisionKind(kind ? kind : "").value_or(DecisionKind::KeepAll);
        d.a = static_cast<uint32_t>(sqlite3_column_int64(st, 2));
        d.b = static_cast<uint32_t>(sqlite3_column_int64(st, 3));  // NULL reads as 0
        const auto* at = reinterpret_cast<const char*>(sqlite3_column_text(st, 4));
        d.createdAt = at ? at : "";
        out.push_back(std::move(d));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) fail("query");
    return out;
}

std::optional<Decision> undoDecision(ProjectStore& store, int64_t datasetId, int64_t decisionId) {
    sql::Database& db = store.database();
    sql::Transaction tx(db);
    std::optional<Decision> found;
    {
        auto st = db.prepare(std::string(kSelect) +
                             (decisionId ? " AND id = ?2" : " ORDER BY id DESC LIMIT 1"));
        st.bind(1, datasetId);
        if (decisionId) st.bind(2, decisionId);
        if (st.step()) found = readRow(st);
    }
    if (!found) return std::nullopt;
    auto del = db.prepare("DELETE FROM decisions WHERE id = ?1");
    del.bind(1, found->id).run();
    tx.commit();
    return found;
}

AppliedDecisions clusterWithDecisions(const std::vector<ScoredPair>& pairs, int hashes,
                                      double threshold, KeepPolicy policy, DecideRule rule,
                                      const DocumentTable& docs,
                                      const std::vector<Decision>& decisions, RunResult& run) {
    const std::size_t n = docs.size();
    std::vector<const Decision*> ordered;
    ordered.reserve(decisions.size());
    std::vector<DocPair> excluded;
    for (const Decision& d : decisions) {
        ordered.push_back(&d);
        if (d.kind == DecisionKind::NotDuplicate && d.a != d.b)
            excluded.emplace_back(std::min(d.a, d.b), std::max(d.a, d.b));
    }
    std::sort(ordered.begin(), ordered.end(),
              [](const Decision* x, const Decision* y) { return x->id < y->id; });
    std::sort(excluded.begin(), excluded.end());
    excluded.erase(std::unique(excluded.begin(), excluded.end()), excluded.end());

    clusterComponents(pairs, hashes, threshold, policy, docs, run, excluded);
    AppliedDecisions out;
    out.clusterMarks.assign(run.representative.size(), 0);

    // A not_duplicate decision counts when it removed an edge, that is when its pair is a
    // duplicate at this threshold; it marks the clusters its two documents ended in.
    if (!excluded.empty()) {
        std::vector<uint8_t> hit(excluded.size(), 0);
        for (const ScoredPair& p : pairs) {
            if (!isDuplicate(p, hashes, threshold)) continue;
            const auto it = std::lower_bound(excluded.begin(), excluded.end(), DocPair{p.a, p.b});
            if (it != excluded.end() && *it == DocPair{p.a, p.b}) hit[it - excluded.begin()] = 1;
        }
        for (std::size_t i = 0; i < excluded.size(); ++i) {
            if (!hit[i]) continue;
            ++out.applied;
            for (const uint32_t doc : {excluded[i].first, excluded[i].second})
                if (doc < n && run.clusterOf[doc] != RunResult::kNoCluster)
                    out.clusterMarks[run.clusterOf[doc]] |= kMarkSplit;
        }
    }

    // Of the keep decisions about one cluster, the latest wins.
    std::vector<const Decision*> winner(run.representative.size(), nullptr);
    for (const Decision* d : ordered) {
        if (d->kind == DecisionKind::NotDuplicate || d->a >= n) continue;
        const uint32_t c = run.clusterOf[d->a];
        if (c != RunResult::kNoCluster) winner[c] = d;
    }
    for (std::size_t c = 0; c < winner.size(); ++c) {
        const Decision* d = winner[c];
        if (!d) continue;
        ++out.applied;
        if (d->kind == DecisionKind::KeepInstead) {
            run.representative[c] = d->a;
            out.clusterMarks[c] |= kMarkKeepInstead;
        } else {
            if (run.keepAll.empty()) run.keepAll.assign(run.representative.size(), 0);
            run.keepAll[c] = 1;
            out.clusterMarks[c] |= kMarkKeepAll;
        }
    }
    // Witnesses follow the decisions: a removal whose witness lost its pair or was overruled
    // finds another kept duplicate or is kept.
    decideRemovals(pairs, hashes, threshold, excluded, policy, rule, docs, run);
    run.decisionsApplied = out.applied;
    return out;
}

void applyDecisions(const std::vector<Decision>& decisions, const DocumentTable& docs,
                    RunResult& run) {
    if (decisions.empty()) return;
    clusterWithDecisions(run.pairs, run.params.signature.hashes, run.params.compare.threshold,
                         run.params.keep, run.params.decide, docs, decisions, run);
}

RunResult withDecisions(RunResult& run, const std::vector<Decision>& decisions,
                        const DocumentTable& docs) {
    // The pairs stay where they are: moved aside while the rest is copied.
    std::vector<ScoredPair> pairs = std::move(run.pairs);
    RunResult out;
    try {
        out = run;
    } catch (...) {
        run.pairs = std::move(pairs);
        throw;
    }
    run.pairs = std::move(pairs);
    clusterWithDecisions(run.pairs, run.params.signature.hashes, run.params.compare.threshold,
                         run.params.keep, run.params.decide, docs, decisions, out);
    return out;
}

void applyRecordedDecisions(ProjectStore& store, RunResult& run) {
    const std::vector<Decision> decisions = listDecisions(store, run.datasetId);
    if (decisions.empty()) return;
    // Only the keep policy reads the documents: their lengths or keep values.
    const std::size_t n = run.clusterOf.size();
    DocumentTable docs;
    docs.file.assign(n, 0);
    if (run.params.keep != KeepPolicy::First) {
        docs.chars.assign(n, 0);
        docs.keepValue.assign(n, std::numeric_limits<double>::quiet_NaN());
        auto st = store.database().prepare(
            "SELECT doc_index, chars, keep_value FROM documents WHERE dataset_id = ?1");
        st.bind(1, run.datasetId);
        while (st.step()) {
            const uint64_t i = st.u64(0);
            if (i >= n) continue;
            docs.chars[i] = static_cast<uint32_t>(st.int64(1));
            if (!st.isNull(2)) docs.keepValue[i] = st.real(2);
        }
    }
    applyDecisions(decisions, docs, run);
}

}  // namespace neardup
