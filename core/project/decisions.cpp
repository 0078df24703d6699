// Audit decisions (decisions.h): their names, the store's API as free functions, and how they
// re-cluster a run.
#include "decisions.h"

#include <algorithm>

#include "clustering.h"
#include "project_store.h"
#include "recluster_at.h"

namespace neardup {

const char* toString(DecisionKind kind) {
    switch (kind) {
        case DecisionKind::NotDuplicate:
            return "not_duplicate";
        case DecisionKind::KeepInstead:
            return "keep_instead";
        case DecisionKind::KeepAll:
            return "keep_all";
        case DecisionKind::ConfirmedDuplicate:
            return "confirmed_duplicate";
    }
    return "keep_all";
}

bool isPairDecision(DecisionKind kind) {
    return kind == DecisionKind::NotDuplicate || kind == DecisionKind::ConfirmedDuplicate;
}

bool shapesClusters(DecisionKind kind) {
    return kind != DecisionKind::ConfirmedDuplicate;
}

std::optional<DecisionKind> parseDecisionKind(std::string_view name) {
    for (const DecisionKind k : {DecisionKind::NotDuplicate, DecisionKind::KeepInstead,
                                 DecisionKind::KeepAll, DecisionKind::ConfirmedDuplicate})
        if (name == toString(k)) return k;
    return std::nullopt;
}

int64_t recordDecision(ProjectStore& store, int64_t datasetId, DecisionKind kind, uint32_t a,
                       uint32_t b) {
    return store.recordDecision(datasetId, kind, a, b);
}

std::vector<Decision> listDecisions(const ProjectStore& store, int64_t datasetId) {
    return store.decisions(datasetId);
}

std::optional<Decision> undoDecision(ProjectStore& store, int64_t datasetId, int64_t decisionId) {
    return store.undoDecision(datasetId, decisionId);
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
        if (!shapesClusters(d.kind)) continue;  // a verdict changes nothing
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
            // A cluster with a reference document keeps it: the reference is never removed,
            // and no new document is kept in its place.
            if (docs.reference(run.representative[c])) continue;
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

void reclusterAt(double threshold, const std::vector<Decision>& decisions,
                 const DocumentTable& docs, RunResult& run) {
    run.params.compare.threshold = threshold;
    clusterWithDecisions(run.pairs, run.params.signature.hashes, threshold, run.params.keep,
                         run.params.decide, docs, decisions, run);
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

}  // namespace neardup
