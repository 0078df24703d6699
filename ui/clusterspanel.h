// The clusters of the selected run: a paged, sortable, searchable table; the members of the
// selected cluster; and the side-by-side comparison of two members, with keyboard navigation
// over the stored pairs within a cluster and on across clusters.
#pragma once

#include <QWidget>
#include <vector>

#include "project_queries.h"

class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;
class QTableWidget;

namespace neardup::ui {

class ClustersModel;
class ComparisonView;
class JobQueue;
struct ComparisonData;

class ClustersPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ClustersPanel(JobQueue* jobs, QWidget* parent = nullptr);

    void setRun(const RunInfo& run);  // runId 0 clears
    void clearRun();

    ClustersModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QTableWidget* membersTable() const { return members_; }
    ComparisonView* comparison() const { return comparison_; }
    QLineEdit* searchBox() const { return search_; }
    qint64 currentCluster() const { return cluster_; }
    int currentPair() const { return pairIndex_; }
    int pairCount() const { return int(pairs_.size()); }

  public slots:
    void selectClusterRow(int row);
    void nextPair();
    void previousPair();

  signals:
    // After a comparison is shown (for tests and the status bar).
    void comparisonShown();

  private:
    void onClusterSelected();
    void onMemberActivated(int row);
    void showPair(int index);
    void compare(uint32_t a, uint32_t b, const PairRow* stored, const QString& position);
    void updateCount();

    JobQueue* jobs_;
    RunInfo run_;
    ClustersModel* model_;
    QLineEdit* search_;
    QSpinBox* minSize_;
    QLabel* count_;
    QTableView* view_;
    QTableWidget* members_;
    ComparisonView* comparison_;
    qint64 cluster_ = -1;
    std::vector<ClusterMember> memberList_;
    std::vector<PairRow> pairs_;
    int pairIndex_ = 0;
    bool wantLastPair_ = false;
    int serial_ = 0;  // drops results of an earlier selection
};

}  // namespace neardup::ui
