// The chain view of a cluster (chainview.h).
#include "chainview.h"

#include <QHeaderView>
#include <cmath>
#include <map>

namespace neardup::ui {

namespace {

QString jaccardText(double estimated, double exact) {
    if (std::isnan(estimated)) return {};
    QString s = QString::number(estimated, 'f', 3);
    if (!std::isnan(exact)) s += ChainView::tr(" (exact %1)").arg(exact, 0, 'f', 3);
    return s;
}

}  // namespace

ChainView::ChainView(QWidget* parent) : QTreeWidget(parent) {
    setObjectName(QStringLiteral("chainView"));
    setColumnCount(ColumnCount);
    setHeaderLabels(
        {tr("Document"), tr("Status"), tr("J with parent"), tr("Est. J to representative")});
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
        if (n.representative)
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
        if (i < toRepresentative.size() && !std::isnan(toRepresentative[i]))
            item->setText(WithRepresentative, QString::number(toRepresentative[i], 'f', 3));
        item->setData(0, kDocRole, n.doc);
        item->setData(0, kParentDocRole, n.parent < 0 ? qlonglong(-1) : qlonglong(up));
        items.push_back(item);
    }
    expandAll();
    for (int c = 0; c < ColumnCount - 1; ++c)
        resizeColumnToContents(c);
}

QTreeWidgetItem* ChainView::itemOf(uint32_t doc) const {
    for (QTreeWidgetItemIterator it(const_cast<ChainView*>(this)); *it; ++it)
        if ((*it)->data(0, kDocRole).toUInt() == doc) return *it;
    return nullptr;
}

}  // namespace neardup::ui
