// The chain view of a cluster: its members as a tree of who vouches for whom, built
// by witnessChain() (core/project/component_chain.h). Under each kept member, the removals it is
// the witness of, with the pair's Jaccard; under a removed member, the kept members the cluster
// reaches only through it, marked as such. Each node also shows its estimated Jaccard with the
// representative, so that a chain (far ends far apart) shows at a glance. A click on a node asks
// for the comparison of the node with its parent.
#pragma once

#include <QTreeWidget>
#include <cstdint>
#include <vector>

#include "component_chain.h"
#include "project_queries.h"

namespace neardup::ui {

class ChainView : public QTreeWidget {
    Q_OBJECT
  public:
    enum Column { Document, Status, WithParent, WithRepresentative, ColumnCount };
    // Item data: the node's document (Qt::UserRole) and its parent's (Qt::UserRole + 1, -1 for
    // a root).
    static constexpr int kDocRole = Qt::UserRole;
    static constexpr int kParentDocRole = Qt::UserRole + 1;

    explicit ChainView(QWidget* parent = nullptr);

    // `toRepresentative[i]` is node i's estimated Jaccard with the representative (NaN when the
    // signatures are not cached); `members` give the ids.
    void setChain(const std::vector<ChainNode>& nodes, const std::vector<ClusterMember>& members,
                  const std::vector<double>& toRepresentative);
    // The item of a document, or null.
    QTreeWidgetItem* itemOf(uint32_t doc) const;

  private:
    void fitColumns();

  protected:
    void resizeEvent(QResizeEvent* event) override;

  signals:
    // A node was clicked: compare `doc` with its parent in the tree.
    void pairRequested(uint32_t parent, uint32_t doc);
};

}  // namespace neardup::ui
