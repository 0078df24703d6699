// The clusters of a run as a table, over SQL (core/project_queries): rows arrive a page at a
// time from the job queue as the view scrolls (canFetchMore/fetchMore), and sorting or
// filtering re-queries instead of sorting in memory, so a million clusters cost what one page
// costs. The listing is the audited one (core/project/decisions.h): refresh() re-reads the rows
// loaded so far in place after a decision, without resetting the view.
//
// The Diameter column flags chains (component_chain.h): after each listing or refresh, one job
// measures every listed component's diameter from the run's cached signatures (a block of rows
// at a time) and flags the large ones and the chains; the column fills in when it is done. The
// diameters are kept beside the listing (listingDiameters), so the listing sorts by the column
// and filters to the flagged clusters in SQL like any other: such a listing measures them in
// its first page's job, and the column's job then reads them back.
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <unordered_map>
#include <vector>

#include "component_chain.h"
#include "jobqueue.h"
#include "project_queries.h"

namespace neardup::ui {

class JobQueue;

// "keep all, keep instead, split" for DecisionMark bits (core/project/decisions.h); empty when
// none.
QString decisionText(uint8_t marks);

class ClustersModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Cluster,
        Size,
        Representative,
        MinEstimated,
        MeanEstimated,
        Exact,
        Pairs,
        Decision,
        Diameter,
        ColumnCount
    };
    static constexpr int kPageSize = 200;

    explicit ClustersModel(JobQueue* jobs, QObject* parent = nullptr);

    void setRun(qint64 runId);  // 0 = none
    void setFilter(const QString& idSearch, int minSize);
    void setDecidedOnly(bool decidedOnly);
    // Only clusters flagged as a chain or a large component (the Diameter column's ⚠).
    void setFlaggedOnly(bool flaggedOnly);
    // Only clusters that matched the run's reference (a reference document among their members).
    void setReferenceOnly(bool referenceOnly);
    // Only clusters holding one of these documents (a text search's matches); null = all.
    void setDocumentFilter(std::shared_ptr<const std::vector<uint32_t>> documents);
    // Lists the run's clusters at `threshold` (the threshold slider's; NaN: the run's own), the
    // whole run re-clustered from its stored pairs (core/project/project_queries.h).
    void setThreshold(double threshold);
    double threshold() const { return filter_.threshold; }
    // Re-reads the rows loaded so far (and the count) in place; emits refreshed() when done.
    void refresh();
    qint64 runId() const { return runId_; }
    quint64 totalCount() const { return total_; }
    bool isLoading() const { return loading_; }
    const ClusterRow* clusterAt(int row) const;
    // The diameter of a listed cluster, once measured (diametersMeasured()); null before.
    const ComponentDiameter* diameterOf(qint64 cluster) const;
    bool diametersMeasured() const { return measured_; }
    // Listed components flagged as large or as chains (0 until measured).
    quint64 flaggedCount() const;
    // Why diameters are unknown (the run's signatures are not cached); empty when they are known.
    QString diameterNote() const { return diameterNote_; }
    int rowOfCluster(qint64 cluster) const;  // among the rows loaded so far, -1 otherwise

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    void sort(int column, Qt::SortOrder order) override;

  signals:
    // After the first page of a new listing (run, filter or order) arrived.
    void reloaded();
    // After refresh() replaced the rows.
    void refreshed();
    void failed(const QString& message);
    // After the diameters of the current listing were measured.
    void diametersReady();

  private:
    void reload();
    void requestPage();
    void measureDiameters();
    QVariant diameterData(qint64 cluster, int role) const;

    JobQueue* jobs_;
    qint64 runId_ = 0;
    ClusterFilter filter_;
    ClusterSort sort_ = ClusterSort::Size;
    bool descending_ = true;
    std::vector<ClusterRow> rows_;
    quint64 total_ = 0;
    bool loading_ = false;
    LatestRequest latestListing_;  // pages of an older listing are dropped
    std::unordered_map<qint64, ComponentDiameter> diameters_;
    bool measured_ = false;
    QString diameterNote_;
    LatestRequest latestDiameters_;  // the measure of an older listing is dropped
};

}  // namespace neardup::ui
