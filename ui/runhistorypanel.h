// The run history table and, for the selected run, a chart of its phase timings. Two runs
// selected together (Ctrl+click) can be compared: "Compare" asks for a diff of their outcomes.
// With a project document, the panel lists the document's runs, makes the run selected the
// document's working run, and fills the Removed (with the decisions) and Precision (the latest
// sampled audit) columns as decisions and audits change.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "project_store.h"

class QCustomPlot;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace neardup::ui {

class ProjectDocument;
class RunHistoryModel;

class RunHistoryPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RunHistoryPanel(ProjectDocument* document = nullptr, QWidget* parent = nullptr);

    // Replaces the runs; selects `select` when present, else keeps the current run, else the
    // newest.
    void setRuns(std::vector<RunSummary> runs, qint64 select = 0);
    void selectRun(qint64 runId);
    // Selects two runs for a comparison; the current run becomes `b`.
    void selectRuns(qint64 a, qint64 b);
    qint64 currentRun() const { return current_; }
    // Selected runs, in run id order.
    QList<qint64> selectedRuns() const;

    RunHistoryModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QCustomPlot* phaseChart() const { return chart_; }
    QPushButton* compareButton() const { return compare_; }

  signals:
    void currentRunChanged(qint64 runId);
    // The older run is `a`.
    void compareRequested(qint64 a, qint64 b);

  private:
    void observe();
    // What exports of the listed runs remove with the dataset's decisions.
    void refreshAuditedRemovals();
    // The Precision column: each finished run's latest sampled audit.
    void refreshAuditEstimates();
    void onSelectionChanged();
    void drawPhases(const RunSummary* run);
    // Labels the rows that have room for a label (see the .cpp).
    void fitPhaseLabels();

    // A row of the phase chart: a phase, or the phases too short to show apart.
    struct PhaseRow {
        QString label;
        double seconds = 0;
    };
    // A phase shorter than this share of the longest goes into the "short phases" row.
    static constexpr double kShortPhaseShare = 0.02;
    std::vector<PhaseRow> phaseRows_;
    std::vector<int> labelledRows_;  // rows whose label is drawn

    ProjectDocument* document_;  // none: the panel shows the runs it is given
    RunHistoryModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QCustomPlot* chart_;
    QPushButton* compare_;
    qint64 current_ = 0;
};

}  // namespace neardup::ui
