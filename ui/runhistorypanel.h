// The run history table and, for the selected run, a chart of its phase timings.
#pragma once

#include <QWidget>
#include <vector>

#include "project_store.h"

class QCustomPlot;
class QSortFilterProxyModel;
class QTableView;

namespace neardup::ui {

class RunHistoryModel;

class RunHistoryPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RunHistoryPanel(QWidget* parent = nullptr);

    // Replaces the runs; selects `select` when present, else keeps the current run, else the
    // newest.
    void setRuns(std::vector<RunSummary> runs, qint64 select = 0);
    void selectRun(qint64 runId);
    qint64 currentRun() const { return current_; }

    RunHistoryModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QCustomPlot* phaseChart() const { return chart_; }

  signals:
    void currentRunChanged(qint64 runId);

  private:
    void onSelectionChanged();
    void drawPhases(const RunSummary* run);

    RunHistoryModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QCustomPlot* chart_;
    qint64 current_ = 0;
};

}  // namespace neardup::ui
