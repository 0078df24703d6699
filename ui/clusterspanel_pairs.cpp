// The clusters panel's pairs: browsing a cluster's stored pairs (on across clusters), a member
// or a chain link opened against its witness, and the side-by-side comparison they load.
#include <QItemSelectionModel>
#include <QSignalBlocker>
#include <QTableView>
#include <QTableWidget>
#include <algorithm>
#include <cmath>
#include <utility>

#include "clustersmodel.h"
#include "clusterspanel.h"
#include "comparisonloader.h"
#include "comparisonview.h"
#include "numbertext.h"

namespace neardup::ui {

int ClustersPanel::firstWitnessPair() const {
    for (int i = 0; i < int(pairs_.size()); ++i) {
        const PairRow& p = pairs_[std::size_t(i)];
        for (const ClusterMember& m : memberList_)
            if ((m.docIndex == p.a && m.removedFor == int64_t{p.b}) ||
                (m.docIndex == p.b && m.removedFor == int64_t{p.a}))
                return i;
    }
    return 0;
}

void ClustersPanel::onMemberActivated(int row) {
    if (row < 0 || row >= int(memberList_.size())) return;
    const ClusterMember& m = memberList_[std::size_t(row)];
    uint32_t rep = m.docIndex;
    for (const auto& x : memberList_)
        if (x.representative) rep = x.docIndex;
    // A removed member is shown with the kept document it is removed for: its witness.
    if (m.removedFor >= 0 && uint32_t(m.removedFor) != m.docIndex) rep = uint32_t(m.removedFor);
    if (rep == m.docIndex) {
        // The representative itself: show its first pair.
        for (int i = 0; i < int(pairs_.size()); ++i)
            if (pairs_[std::size_t(i)].a == rep || pairs_[std::size_t(i)].b == rep)
                return showPair(i);
        return;
    }
    const uint32_t a = std::min(rep, m.docIndex), b = std::max(rep, m.docIndex);
    for (int i = 0; i < int(pairs_.size()); ++i)
        if (pairs_[std::size_t(i)].a == a && pairs_[std::size_t(i)].b == b) return showPair(i);
    compare(a, b, nullptr, tr("kept document and member %1 (no stored pair)").arg(m.docIndex));
}

void ClustersPanel::showPairOf(uint32_t a, uint32_t b) {
    if (a > b) std::swap(a, b);
    for (int i = 0; i < int(pairs_.size()); ++i)
        if (pairs_[std::size_t(i)].a == a && pairs_[std::size_t(i)].b == b) return showPair(i);
    compare(a, b, nullptr, tr("members %1 and %2 (no stored pair)").arg(a).arg(b));
}

void ClustersPanel::showPair(int index) {
    if (index < 0 || index >= int(pairs_.size())) return;
    pairIndex_ = index;
    const PairRow& p = pairs_[std::size_t(index)];
    // Browsing stops at kMaxPairsBrowsed pairs: then say so, and how many the cluster has.
    QString position = tr("pair %1 of %2 in cluster %3")
                           .arg(countText(index + 1), countText(pairs_.size()))
                           .arg(cluster_);
    if (pairs_.size() >= kMaxPairsBrowsed) {
        const ClusterRow* row = model_->clusterAt(model_->rowOfCluster(cluster_));
        position = tr("pair %1 of the first %2 browsable pairs (of %3 stored) in cluster %4")
                       .arg(countText(index + 1), countText(pairs_.size()),
                            row ? countText(row->pairs) : tr("more"))
                       .arg(cluster_);
    }
    compare(p.a, p.b, &p, position);
}

void ClustersPanel::compare(uint32_t a, uint32_t b, const PairRow* stored,
                            const QString& position) {
    const LatestRequest::Ticket ticket = latestShown_.next();  // checked as in loadCluster()
    const RunInfo run = run_;
    // A reference document on the left, the new one on the right (loadComparison does the same).
    if (run.reference(b) && !run.reference(a)) std::swap(a, b);
    PairRow pair = stored ? *stored : PairRow{a, b, 0, std::nan(""), std::nan(""), false};
    pair.a = a;
    pair.b = b;
    const bool haveStored = stored != nullptr;
    bool repA = false, repB = false, keptA = false, keptB = false;
    QString statusA, statusB;
    bool referenceCluster = false;  // no new document is kept in place of a reference one
    for (const auto& m : memberList_) {
        referenceCluster = referenceCluster || m.reference;
        if (m.docIndex == a) {
            repA = m.representative;
            keptA = m.kept;
            statusA = memberStatus(m, memberList_);
        }
        if (m.docIndex == b) {
            repB = m.representative;
            keptB = m.kept;
            statusB = memberStatus(m, memberList_);
        }
    }
    jobs_->submit<ComparisonData>(
        this,
        [run, pair, haveStored, repA, repB, keptA, keptB, statusA, statusB, referenceCluster,
         position](JobContext& ctx) {
            ComparisonData d = loadComparison(ctx, run, pair, haveStored);
            d.referenceCluster = referenceCluster;
            d.representativeA = repA;
            d.representativeB = repB;
            d.keptA = keptA;
            d.keptB = keptB;
            d.statusA = statusA;
            d.statusB = statusB;
            d.position = position;
            return d;
        },
        [this, ticket](ComparisonData d) {
            if (!ticket.current()) return;
            comparison_->setComparison(d);
            emit comparisonShown();
        },
        [this](const QString& e) { comparison_->clear(e); });
}

void ClustersPanel::showDocument(uint32_t doc) {
    if (!run_.runId) return;
    const qint64 runId = run_.runId;
    jobs_->submit<int64_t>(
        this, latestShown_.next(),
        [runId, doc](JobContext& ctx) { return ctx.queries().clusterOfDocument(runId, doc); },
        [this, doc](int64_t cluster) {
            if (cluster < 0) {
                comparison_->clear(tr("Document %1 is in no cluster of run %2: it has no "
                                      "duplicate to compare with.")
                                       .arg(doc)
                                       .arg(run_.runId));
                return;
            }
            wantDocument_ = doc;
            const int row = model_->rowOfCluster(cluster);
            if (row >= 0) {
                const QSignalBlocker block(view_->selectionModel());
                selectClusterRow(row);
            }
            loadCluster(cluster);
        },
        [this](const QString& e) { comparison_->clear(e); });
}

void ClustersPanel::nextPair() {
    if (pairIndex_ + 1 < int(pairs_.size())) return showPair(pairIndex_ + 1);
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    const int row = rows.isEmpty() ? -1 : rows.front().row();
    if (row + 1 >= model_->rowCount() && model_->canFetchMore({})) model_->fetchMore({});
    selectClusterRow(row + 1);
}

void ClustersPanel::previousPair() {
    if (pairIndex_ > 0 && pairIndex_ - 1 < int(pairs_.size())) return showPair(pairIndex_ - 1);
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    const int row = rows.isEmpty() ? 0 : rows.front().row();
    if (row <= 0) return;
    wantLastPair_ = true;
    selectClusterRow(row - 1);
}

}  // namespace neardup::ui
