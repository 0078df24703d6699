// "Audit N random pairs…": the sampled audit of a run (core/audit/audit_sample.h). Draws N of
// the run's duplicate pairs stratified by estimated Jaccard (deterministic for the seed), shows
// them one by one side by side for a verdict (duplicate, not a duplicate, unsure; keys D, N, U,
// each going on to the next pair), stores sample and verdicts in the project, and shows the
// estimated precision with its 95 % interval as the verdicts come. Opening it again goes on
// with the run's latest sample.
#pragma once

#include <QDialog>
#include <optional>

#include "audit_rows.h"
#include "jobqueue.h"
#include "project_queries.h"

class QLabel;
class QPushButton;
class QSpinBox;

namespace neardup::ui {

class ComparisonView;

// "precision 0.93 (95 % CI 0.85–0.97), 27 judged" or "no verdict yet".
QString precisionText(const PrecisionEstimate& e);

class AuditDialog : public QDialog {
    Q_OBJECT
  public:
    AuditDialog(JobQueue* jobs, const RunInfo& run, QWidget* parent = nullptr);

    QSpinBox* sizeBox() const { return size_; }
    QSpinBox* seedBox() const { return seed_; }
    QPushButton* drawButton() const { return draw_; }
    QPushButton* duplicateButton() const { return duplicate_; }
    QPushButton* notDuplicateButton() const { return notDuplicate_; }
    QPushButton* unsureButton() const { return unsure_; }
    ComparisonView* comparison() const { return comparison_; }
    // The sample shown (none before one is drawn or loaded) and the pair of it shown.
    const std::optional<StoredAudit>& sample() const { return sample_; }
    int currentIndex() const { return index_; }
    const PrecisionEstimate& estimate() const { return estimate_; }
    QString estimateText() const;

  public slots:
    // Draws a new sample of the size and seed in the boxes.
    void drawSample();
    // Records a verdict on the pair shown, then shows the next pair without one.
    void judge(AuditVerdict verdict);
    void showPairAt(int index);

  signals:
    void sampleLoaded();
    void verdictRecorded();
    void pairShown();

  private:
    void setSample(std::optional<StoredAudit> sample);
    void updateEstimate();
    int nextUnjudged(int from) const;

    JobQueue* jobs_;
    RunInfo run_;
    QSpinBox* size_;
    QSpinBox* seed_;
    QPushButton* draw_;
    QLabel* position_;
    QLabel* estimateLabel_;
    QPushButton* duplicate_;
    QPushButton* notDuplicate_;
    QPushButton* unsure_;
    QPushButton* previous_;
    QPushButton* next_;
    ComparisonView* comparison_;
    std::optional<StoredAudit> sample_;
    int index_ = -1;
    PrecisionEstimate estimate_;
    LatestRequest latestPair_;
    bool saving_ = false;
};

}  // namespace neardup::ui
