// The interactive threshold: re-clusters the project document's working run from its stored pairs
// (every pair at or above the run's store floor) at the slider's threshold, on a worker thread,
// and shows the resulting counts. Slider moves during a computation are coalesced into one more
// request. The dataset's audit decisions (core/project/decisions.h) are applied at every
// threshold, and removals are decided by the run's own rule (witness or components). The slider's
// value is the workbench's working threshold: each result goes out as reclustered() and becomes
// the document's working threshold, which the clusters table, the parameters' θ, Export and the
// audit follow (never the slider itself, which runs ahead of the clusters shown while it
// re-clusters); "Save as run" asks for the result to be recorded as a new run
// (core/run/recluster.h).
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "project_queries.h"

class QLabel;
class QPushButton;
class QSlider;

namespace neardup::ui {

class JobQueue;
class ProjectDocument;
struct ReclusterState;

struct ReclusterResult {
    qint64 runId = 0;
    double threshold = 0;
    quint64 clusters = 0, removed = 0, duplicatePairs = 0, pairs = 0;
    quint64 chainedRemovals = 0;   // removals the components rule makes without a witness
    bool witnessRule = true;       // the run decides by witness (else by components)
    bool verified = false;         // at another threshold than a verifying run's own
    double milliseconds = 0;       // clustering alone (clusterWithDecisions)
    quint64 decisionsApplied = 0;  // audit decisions that shaped the result
    quint64 forReference = 0;      // removals whose kept duplicate is a reference document
    double loadMilliseconds = 0;   // loading pairs and documents, first time for a run only
};

class ThresholdPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ThresholdPanel(ProjectDocument* document, QWidget* parent = nullptr);
    ~ThresholdPanel() override;

    void setThreshold(double threshold);  // moves the slider (clamped to [floor, 1])
    double threshold() const;
    // Re-clusters again at the current threshold (after a decision was recorded or undone).
    void refresh();

    QSlider* slider() const { return slider_; }
    QPushButton* saveButton() const { return save_; }
    // The slider's threshold, NaN while it stands at the run's own. The views use the
    // document's, which becomes this one once its clusters are computed.
    double workingThreshold() const;
    const std::optional<ReclusterResult>& lastResult() const { return last_; }
    QString resultText() const;

  signals:
    void reclustered(const ReclusterResult& result);
    // "Save as run": record run `runId` re-clustered at `threshold` as a new run.
    void saveAsRunRequested(qint64 runId, double threshold);

  private:
    void observe(ProjectDocument* document);
    void setRun(const RunInfo& run);
    void request(double threshold);
    void show(const ReclusterResult& r);

    JobQueue* jobs_;
    RunInfo run_;
    std::shared_ptr<ReclusterState> state_;  // touched by jobs only
    QSlider* slider_;
    QLabel* value_;
    QLabel* result_;
    QLabel* baseline_;
    QPushButton* save_;
    int ownStep_ = -1;  // the slider's step standing for the run's own threshold
    bool inFlight_ = false;
    std::optional<double> queued_;
    bool refreshQueued_ = false;
    std::optional<ReclusterResult> last_;
};

}  // namespace neardup::ui
