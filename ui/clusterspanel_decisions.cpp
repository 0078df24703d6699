// The clusters panel's audit decisions: "not a duplicate", "keep this one instead", "keep all"
// and undo, recorded in the project and followed by a refresh of the clusters they change.
#include "clusterspanel.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>

#include "auditdialog.h"
#include "clustersmodel.h"
#include "comparisonview.h"
#include "elidedlabel.h"
#include "jobqueue.h"
#include "numbertext.h"

namespace neardup::ui {

namespace {

struct DecisionOutcome {
    QString message;
    int64_t anchorCluster = -1;  // where the anchor document is now
};

// A decision in words, naming the documents by their ids (shortened in the middle when long),
// as the user sees them, rather than by their internal numbers. Runs in a job.
QString describe(const Decision& d, ProjectQueries& q, int64_t datasetId) {
    auto id = [&](uint32_t doc) {
        constexpr qsizetype kMax = 40;
        QString s = QString::fromStdString(q.documentId(datasetId, doc));
        if (s.size() > kMax)
            s = s.left(kMax / 2 - 1) + QStringLiteral("\u2026") + s.right(kMax / 2);
        return s;
    };
    switch (d.kind) {
        case DecisionKind::NotDuplicate:
            return ClustersPanel::tr("not a duplicate %1 / %2").arg(id(d.a), id(d.b));
        case DecisionKind::KeepInstead:
            return ClustersPanel::tr("keep %1 instead").arg(id(d.a));
        case DecisionKind::KeepAll:
            return ClustersPanel::tr("keep all with %1").arg(id(d.a));
        case DecisionKind::ConfirmedDuplicate:
            return ClustersPanel::tr("confirmed duplicate %1 / %2").arg(id(d.a), id(d.b));
    }
    return {};
}

}  // namespace

// ---- Audit decisions ----------------------------------------------------------------------

void ClustersPanel::markNotDuplicate() {
    // The buttons' state says what makes sense for the pair shown (not already marked, not
    // already the representative); the keyboard follows it.
    if (!comparison_->hasComparison() || !comparison_->notDuplicateButton()->isEnabled()) return;
    const uint32_t a = comparison_->leftDocument(), b = comparison_->rightDocument();
    record(DecisionKind::NotDuplicate, a, b, a);
}

void ClustersPanel::confirmDuplicate() {
    if (!comparison_->hasComparison() || !comparison_->confirmButton()->isEnabled()) return;
    const uint32_t a = comparison_->leftDocument(), b = comparison_->rightDocument();
    record(DecisionKind::ConfirmedDuplicate, a, b, a, true);
}

void ClustersPanel::rejectAndAdvance() {
    if (!comparison_->hasComparison() || !comparison_->notDuplicateButton()->isEnabled()) return;
    const uint32_t a = comparison_->leftDocument(), b = comparison_->rightDocument();
    record(DecisionKind::NotDuplicate, a, b, a, true);
}

void ClustersPanel::keepOtherAndAdvance() {
    if (!comparison_->hasComparison()) return;
    // The other one: the side that is removed now; when both or neither are kept, the side
    // that is not the representative (the right one first).
    const bool leftKept = comparison_->leftKept(), rightKept = comparison_->rightKept();
    const bool right =
        leftKept != rightKept ? leftKept : comparison_->keepRightButton()->isEnabled();
    const QPushButton* button =
        right ? comparison_->keepRightButton() : comparison_->keepLeftButton();
    if (!button->isEnabled()) return;
    const uint32_t doc = right ? comparison_->rightDocument() : comparison_->leftDocument();
    record(DecisionKind::KeepInstead, doc, 0, doc, true);
}

void ClustersPanel::keepInstead(bool right) {
    const QPushButton* button =
        right ? comparison_->keepRightButton() : comparison_->keepLeftButton();
    if (!comparison_->hasComparison() || !button->isEnabled()) return;
    const uint32_t doc = right ? comparison_->rightDocument() : comparison_->leftDocument();
    record(DecisionKind::KeepInstead, doc, 0, doc);
}

void ClustersPanel::keepAll() {
    if (!comparison_->hasComparison()) return;
    const uint32_t doc = comparison_->leftDocument();
    record(DecisionKind::KeepAll, doc, 0, doc);
}

void ClustersPanel::record(DecisionKind kind, uint32_t a, uint32_t b, uint32_t anchor,
                           bool advance) {
    if (!run_.runId || deciding_) return;
    deciding_ = true;
    advanceAfterDecision_ = advance;
    // Come back to the same pair when it is still in a cluster.
    wantPair_ = std::make_pair(std::min(comparison_->leftDocument(), comparison_->rightDocument()),
                               std::max(comparison_->leftDocument(), comparison_->rightDocument()));
    const qint64 runId = run_.runId;
    const int64_t datasetId = run_.datasetId;
    comparison_->setDecisionMessage(tr("Recording\u2026"));
    messageCluster_ = cluster_;
    jobs_->submit<DecisionOutcome>(
        this,
        [=](JobContext& ctx) {
            Decision d;
            d.kind = kind;
            d.a = std::min(a, isPairDecision(kind) ? b : a);
            d.b = isPairDecision(kind) ? std::max(a, b) : 0;
            d.id = recordDecision(ctx.store(), datasetId, kind, a, b);
            DecisionOutcome out;
            out.message = tr("Recorded: %1.").arg(describe(d, ctx.queries(), datasetId));
            // Rebuilds the audited listing with the new decision.
            out.anchorCluster = ctx.queries().clusterOfDocument(runId, anchor);
            return out;
        },
        [this](DecisionOutcome out) { afterDecision(out.message, out.anchorCluster); },
        [this](const QString& e) {
            deciding_ = false;
            advanceAfterDecision_ = false;
            wantPair_.reset();
            comparison_->setDecisionMessage(tr("Cannot record the decision: %1").arg(e));
        });
}

void ClustersPanel::undoDecision() {
    if (!run_.runId || deciding_ || decisionCount_ == 0) return;
    deciding_ = true;
    const qint64 runId = run_.runId;
    const int64_t datasetId = run_.datasetId;
    if (comparison_->hasComparison())
        wantPair_ =
            std::make_pair(std::min(comparison_->leftDocument(), comparison_->rightDocument()),
                           std::max(comparison_->leftDocument(), comparison_->rightDocument()));
    jobs_->submit<DecisionOutcome>(
        this,
        [=](JobContext& ctx) {
            DecisionOutcome out;
            const std::optional<Decision> d = neardup::undoDecision(ctx.store(), datasetId);
            if (!d) {
                out.message = tr("No decision to undo.");
                return out;
            }
            out.message = tr("Undone: %1.").arg(describe(*d, ctx.queries(), datasetId));
            out.anchorCluster = ctx.queries().clusterOfDocument(runId, d->a);
            return out;
        },
        [this](DecisionOutcome out) { afterDecision(out.message, out.anchorCluster); },
        [this](const QString& e) {
            deciding_ = false;
            wantPair_.reset();
            comparison_->setDecisionMessage(tr("Cannot undo: %1").arg(e));
            messageCluster_ = cluster_;
        });
}

void ClustersPanel::afterDecision(const QString& message, int64_t anchorCluster) {
    comparison_->setDecisionMessage(message);
    messageCluster_ = anchorCluster;
    refreshDecisionState();
    // The rows loaded so far are re-read in place; then the cluster of the decision (or the
    // row that was selected, when that cluster is gone) is shown again.
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    const int selectedRow = rows.isEmpty() ? 0 : rows.front().row();
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(
        model_, &ClustersModel::refreshed, this, [this, connection, selectedRow, anchorCluster] {
            disconnect(*connection);
            deciding_ = false;
            updateCount();
            refreshReviewProgress();
            int row = anchorCluster >= 0 ? model_->rowOfCluster(anchorCluster) : -1;
            if (row < 0) {
                wantPair_.reset();
                advanceAfterDecision_ = false;  // the next cluster is at this row now
                row = std::min(selectedRow, model_->rowCount() - 1);
            }
            if (row < 0) {
                advanceAfterDecision_ = false;
                comparison_->clear(tr("No clusters match."));
            } else {
                // Where the decision's cluster is gone (split, emptied), the cluster now at its
                // row is where the user is taken: the message stays there with them.
                if (anchorCluster < 0 || model_->rowOfCluster(anchorCluster) < 0)
                    messageCluster_ = model_->clusterAt(row)->cluster;
                selectClusterRow(row);
                // The same row may hold another cluster now, or the same
                // one with other members: load it either way.
                loadCluster(model_->clusterAt(row)->cluster);
            }
            emit decisionsChanged();
        });
    model_->refresh();
}

void ClustersPanel::reloadDecisions() {
    if (!run_.runId) return;
    deciding_ = true;  // until the table shows them, as for a decision made here
    afterDecision(tr("Audit verdicts recorded as decisions."), cluster_);
}

QString ClustersPanel::reviewProgressText() const {
    return reviewProgress_->text();
}

void ClustersPanel::refreshReviewProgress() {
    if (!run_.runId) {
        latestProgress_.forget();
        reviewProgress_->clear();
        return;
    }
    const qint64 runId = run_.runId;
    const double threshold = model_->threshold();
    struct Progress {
        ReviewProgress review;
        std::optional<PrecisionEstimate> audit;
    };
    jobs_->submit<Progress>(
        this, latestProgress_.next(),
        [runId, threshold](JobContext& ctx) {
            Progress p;
            p.review = ctx.queries().reviewProgress(runId, threshold);
            if (const auto audit = ctx.queries().latestAudit(runId))
                p.audit = estimatePrecision(audit->draw);
            return p;
        },
        [this](Progress p) {
            QString text = tr("reviewed %1 of %2 clusters")
                               .arg(countText(p.review.reviewed), countText(p.review.clusters));
            // The sampled audit's estimate, beside the run it measures.
            if (p.audit && p.audit->judged > 0)
                text += QStringLiteral(" \u00b7 ") + tr("audit: %1").arg(precisionText(*p.audit));
            reviewProgress_->setText(text);
        });
}

void ClustersPanel::refreshDecisionState() {
    if (!run_.runId) {
        decisionCount_ = 0;
        comparison_->setDecisionState(0, {});
        return;
    }
    const int64_t datasetId = run_.datasetId;
    const qint64 runId = run_.runId;
    jobs_->submit<std::pair<int, QString>>(
        this,
        [datasetId](JobContext& ctx) {
            const std::vector<Decision> list = ctx.queries().decisions(datasetId);
            return std::make_pair(
                int(list.size()),
                list.empty() ? QString() : describe(list.back(), ctx.queries(), datasetId));
        },
        [this, runId](std::pair<int, QString> state) {
            if (runId != run_.runId) return;
            decisionCount_ = state.first;
            comparison_->setDecisionState(decisionCount_, state.second);
        });
}

}  // namespace neardup::ui
