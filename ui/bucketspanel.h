// Bucket statistics of the selected run: for one band or all, the bucket-size histogram on
// log-log axes with the mean + 2 sigma line, and the outlier buckets (the SEDD appendix G
// columns: band, key, size, comparisons, share of all comparisons) in a sortable table.
#pragma once

#include <QWidget>

#include "project_queries.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace neardup::ui {

class JobQueue;

class BucketsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit BucketsPanel(JobQueue* jobs, QWidget* parent = nullptr);

    void setRun(const RunInfo& run);
    int band() const;  // -1 = all bands

    QCustomPlot* histogramPlot() const { return plot_; }
    QStandardItemModel* outlierModel() const { return outliers_; }
    QComboBox* bandBox() const { return band_; }
    QLabel* statsLabel() const { return stats_; }
    // Bins drawn (non-empty ones), and the marker's bucket size, for tests.
    int drawnBins() const { return drawnBins_; }
    double markerSize() const { return marker_; }

  signals:
    void loaded();

  private:
    void reload();

    JobQueue* jobs_;
    qint64 runId_ = 0;
    QComboBox* band_;
    QLabel* stats_;
    QCustomPlot* plot_;
    QStandardItemModel* outliers_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    int serial_ = 0;
    int drawnBins_ = 0;
    double marker_ = 0;
};

}  // namespace neardup::ui
