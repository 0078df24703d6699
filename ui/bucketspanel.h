// Bucket statistics of the project document's working run: for one band or all, the bucket-size
// histogram (log2 bins labelled as the HTML report labels them, "1", "2–3", "4–7", on a log count
// axis) with the mean + 2 sigma line, and the outlier buckets (the SEDD appendix G columns: band,
// key, size, comparisons, share of its band's comparisons, the share the rule bounds) in a
// sortable table, under a line that says how many there are, none included. A click on an
// outlier bucket lists its documents (id, length, text preview): band keys are not stored, so
// they are recomputed from the run's cached signatures on the job queue (core/bucket_members).
#pragma once

#include <QWidget>
#include <memory>

#include "jobqueue.h"
#include "project_queries.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace neardup::ui {

class JobQueue;
class ProjectDocument;
struct BucketMembersState;
struct BucketMembersResult;

class BucketsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit BucketsPanel(ProjectDocument* document, QWidget* parent = nullptr);
    ~BucketsPanel() override;

    int band() const;  // -1 = all bands

    QCustomPlot* histogramPlot() const { return plot_; }
    QStandardItemModel* outlierModel() const { return outliers_; }
    QComboBox* bandBox() const { return band_; }
    QLabel* statsLabel() const { return stats_; }
    // The line above the outlier table: how many outliers, and the rule.
    QLabel* outlierLabel() const { return outlierLabel_; }
    // The histogram's bin labels, left to right ("1", "2–3", ...).
    QStringList binLabels() const { return binLabels_; }
    // Bins drawn (non-empty ones), and the marker's bucket size, for tests.
    int drawnBins() const { return drawnBins_; }
    double markerSize() const { return marker_; }

    // Lists the documents of bucket `key` of band `band` (what a click on an outlier does).
    void showBucket(int band, quint64 key);
    QTableView* outlierTable() const { return table_; }
    QTableView* membersTable() const { return membersTable_; }
    QStandardItemModel* memberModel() const { return members_; }
    QLabel* membersLabel() const { return membersLabel_; }
    // Previews are fetched for the first kMaxPreviews members of a bucket.
    static constexpr int kMaxPreviews = 500;

  signals:
    void loaded();
    // After a bucket's members were listed (ok) or could not be (the label says why).
    void membersListed(bool ok);
    // A document of the listed bucket was double-clicked: open the side-by-side view on it.
    void documentActivated(quint32 docIndex);

  private:
    void setRun(const RunInfo& run);
    void reload();
    void showMembers(const BucketMembersResult& r);

    JobQueue* jobs_;
    qint64 runId_ = 0;
    uint64_t referenceDocuments_ = 0;  // documents [0, this) are the run's reference
    QComboBox* band_;
    QLabel* stats_;
    QCustomPlot* plot_;
    QStandardItemModel* outliers_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLabel* outlierLabel_;
    QStringList binLabels_;
    QStandardItemModel* members_;
    QTableView* membersTable_;
    QLabel* membersLabel_;
    std::shared_ptr<BucketMembersState> membersState_;  // touched by jobs only
    LatestRequest latestBuckets_;                       // the histogram and outliers shown
    LatestRequest latestMembers_;                       // the bucket whose documents are listed
    int drawnBins_ = 0;
    double marker_ = 0;
};

}  // namespace neardup::ui
