// The chain view of a cluster (chainview.h).
#include "chainview.h"

#include <QHeaderView>
#include <QResizeEvent>
#include <algorithm>
#include <cmath>
#include <map>

namespace neardup::ui {

namespace {

// The pair's Jaccard in few characters: the exact value when the run verified it, else the
// estimate; both in the tooltip.
QString jaccardText(double estimated, double exact) {
    if (!std::isnan(exact)) return ChainView::tr("exact %1").arg(exact, 0, 'f', 3);
    if (std::isnan(estimated)) return {};
    return ChainView::tr("est. %1").arg(estimated, 0, 'f', 3);
}

QString jaccardTip(double estimated, double exact) {
    QStringList parts;
    if (!std::isnan(estimated))
        parts << ChainView::tr("estimated Jaccard %1").arg(estimated, 0, 'f', 3);
    if (!std::isnan(exact)) parts << ChainView::tr("exact Jaccard %1").arg(exact, 0, 'f', 3);
    return parts.join(QStringLiteral(", "));
}

}  // namespace

ChainView::ChainView(QWidget* parent) : QTreeWidget(parent) {
    setObjectName(QStringLiteral("chainView"));
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("Document"), tr("Status"), tr("J with parent"), tr("J to rep.")});
    headerItem()->setToolTip(WithParent,
                             tr("The stored pair's estimated (and exact, when verified) Jaccard "
                                "with the node above"));
    headerItem()->setToolTip(
        WithRepresentative,
        tr("Estimated Jaccard with the representative, from the run's signatures: far below "
           "\u03b8 means a chain"));
    setToolTip(
        tr("Which kept document vouches for which removal. Click a node to compare it "
           "with the one above it."));
    setUniformRowHeights(true);
    setRootIsDecorated(true);
    // A deep chain indents its last nodes by depth x indentation: kept small, and the document
    // column capped (fitColumns), so that Status and the Jaccards stay in view.
    setIndentation(10);
    setTextElideMode(Qt::ElideMiddle);
    header()->setStretchLastSection(true);
    connect(this, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item, int) {
        const qlonglong up = item->data(0, kParentDocRole).toLongLong();
        if (up >= 0) emit pairRequested(uint32_t(up), item->data(0, kDocRole).toUInt());
    });
}

void ChainView::setChain(const std::vector<ChainNode>& nodes,
                         const std::vector<ClusterMember>& members,
                         const std::vector<double>& toRepresentative) {
    clear();
    std::map<uint32_t, const ClusterMember*> member;
    for (const ClusterMember& m : members)
        member[m.docIndex] = &m;
    std::vector<QTreeWidgetItem*> items;
    items.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const ChainNode& n = nodes[i];
        const ClusterMember* m = member.count(n.doc) ? member[n.doc] : nullptr;
        auto* item = n.parent < 0 ? new QTreeWidgetItem(this)
                                  : new QTreeWidgetItem(items[std::size_t(n.parent)]);
        const uint32_t up = n.parent < 0 ? 0 : nodes[std::size_t(n.parent)].doc;
        item->setText(Document, QStringLiteral("%1  (%2)")
                                    .arg(m ? QString::fromStdString(m->docId) : QString())
                                    .arg(n.doc));
        QString status;
        if (m && m->reference)
            status = tr("reference (never removed)");
        else if (n.representative)
            status = tr("kept (representative)");
        else if (m && m->keptWhole)
            status = tr("kept (keep all)");
        else if (n.kept)
            status = n.parent < 0 ? tr("kept") : tr("kept, linked through %1").arg(up);
        else if (n.parent >= 0 && nodes[std::size_t(n.parent)].kept && n.linked)
            status = tr("removed, witness %1").arg(up);
        else if (n.parent >= 0 && nodes[std::size_t(n.parent)].kept)
            status = tr("removed for %1, no pair with it (chained)").arg(up);
        else
            status = tr("removed for %1").arg(m ? m->removedFor : -1);
        item->setText(Status, status);
        item->setText(WithParent, jaccardText(n.estimated, n.exact));
        item->setToolTip(WithParent, jaccardTip(n.estimated, n.exact));
        item->setToolTip(Document, item->text(Document));
        if (i < toRepresentative.size() && !std::isnan(toRepresentative[i]))
            item->setText(WithRepresentative, QString::number(toRepresentative[i], 'f', 3));
        item->setData(0, kDocRole, n.doc);
        item->setData(0, kParentDocRole, n.parent < 0 ? qlonglong(-1) : qlonglong(up));
        items.push_back(item);
    }
    expandAll();
    fitColumns();
}

void ChainView::fitColumns() {
    for (int c = 0; c < ColumnCount; ++c)
        resizeColumnToContents(c);
    // Status and the Jaccards at their contents' width; the document column gets what is left,
    // never less than a fifth of the view and never more than its contents (ids are elided in
    // the middle, whole in the tooltip).
    int others = 0;
    for (int c = Status; c < ColumnCount; ++c)
        others += columnWidth(c);
    const int room = viewport()->width() - others;
    const int document = std::min(columnWidth(Document), std::max(viewport()->width() / 5, room));
    setColumnWidth(Document, document);
}

void ChainView::resizeEvent(QResizeEvent* event) {
    QTreeWidget::resizeEvent(event);
    if (topLevelItemCount() > 0) fitColumns();
}

QTreeWidgetItem* ChainView::itemOf(uint32_t doc) const {
    for (QTreeWidgetItemIterator it(const_cast<ChainView*>(this)); *it; ++it)
        if ((*it)->data(0, kDocRole).toUInt() == doc) return *it;
    return nullptr;
}

}  // namespace neardup::ui
