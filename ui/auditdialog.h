// "Audit N random pairs…": the sampled audit of a run (core/audit/audit_sample.h). Draws N of
// the run's duplicate pairs stratified by estimated Jaccard (deterministic for the seed), shows
// them one by one side by side for a verdict (duplicate, not a duplicate, unsure; keys D, N, U,
// each going on to the next pair), stores sample and verdicts in the project, and shows the
// estimated precision with its 95 % interval as the verdicts come. Samples are drawn at the
// workbench's working threshold (the threshold slider's, else the run's own) and stored with
// it. Opening it again goes on with the run's latest sample. "Apply verdicts as decisions"
// turns the verdicts into review decisions of the dataset (ProjectStore::applyAuditVerdicts).
#pragma once

#include <QDialog>
#include <limits>
#include <optional>

#include "audit_rows.h"
#include "jobqueue.h"
#include "project_queries.h"

class QLabel;
class QPushButton;
class QSpinBox;

namespace neardup::ui {

class ComparisonView;

// "precision 0.930 (95 % CI 0.850–0.970) at θ 0.75, 27 judged" or "no verdict yet" (the θ
// when the estimate knows it).
QString precisionText(const PrecisionEstimate& e);
// A threshold as the workbench writes it: "0.75" (up to six digits, no trailing zeros).
QString thresholdText(double threshold);

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
    QPushButton* applyButton() const { return apply_; }
    // The working threshold a new sample is drawn at; NaN: the run's own.
    void setThreshold(double threshold);
    double drawThreshold() const;
    // What the last "Apply verdicts as decisions" said.
    QString applyText() const;
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
    // Records the sample's verdicts as decisions (skipping pairs already decided).
    void applyVerdicts();

  signals:
    void sampleLoaded();
    void verdictRecorded();
    void pairShown();
    // After "Apply verdicts as decisions" recorded decisions (or found every pair decided).
    void verdictsApplied(bool recorded);

  private:
    void setSample(std::optional<StoredAudit> sample);
    void updateEstimate();
    int nextUnjudged(int from) const;
    void updateApplyButton();

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
    QPushButton* apply_;
    QLabel* applied_;
    QPushButton* previous_;
    QPushButton* next_;
    ComparisonView* comparison_;
    std::optional<StoredAudit> sample_;
    int index_ = -1;
    PrecisionEstimate estimate_;
    LatestRequest latestPair_;
    bool saving_ = false;
    double threshold_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace neardup::ui
