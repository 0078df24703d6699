// Every run parameter with inline validation (neardup::validate), the live S-curve, and bands
// and rows chosen for the threshold and hash count (neardup::chooseBandsRows, the choice
// `neardup run` makes when -b/-r are not given): kept chosen while "auto" is ticked, or
// suggested once. The store floor likewise follows the threshold (neardup::defaultStoreFloor)
// while its "auto" is ticked, as the CLI's does without --store-floor.
#pragma once

#include <QWidget>

#include "jobqueue.h"
#include "params.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace neardup::ui {

class ProjectDocument;
class SCurvePlot;

class ParametersPanel : public QWidget {
    Q_OBJECT
  public:
    // The document's background queue computes suggestions off the GUI thread (large H makes the
    // scan take a while). A project opened starts from its first shown run's parameters (the
    // defaults when it has none), and θ follows the document's working threshold.
    explicit ParametersPanel(ProjectDocument* document, QWidget* parent = nullptr);

    // The parameters as edited; reader fields are left at their defaults (the dataset panel
    // owns them). lsh.chosen is set while bands and rows are chosen for the threshold.
    RunParams params() const;
    // Ticks "auto" for bands and rows when they are what chooseBandsRows gives for p's threshold
    // and hashes (a run that chose them records only the values), and for the store floor when
    // it is defaultStoreFloor's; otherwise the values are shown as given (pinned).
    void setParams(const RunParams& p);
    // Empty when valid, else neardup::validate's message (or that bands and rows are still being
    // chosen for a new threshold: a run must not start with the previous threshold's choice).
    QString validationMessage() const;
    // The parameters as this panel labels them, for validate()'s messages (the CLI's option
    // names mean nothing to someone who sets them here).
    static ParameterNames parameterNames();
    bool isValid() const { return validationMessage().isEmpty(); }
    // GPUs as reported by neardup::queryGpus, for the backend choice.
    void setGpuInventory(const QString& summary, bool usable);

    SCurvePlot* plot() const { return plot_; }
    QSpinBox* bandsBox() const { return bands_; }
    QSpinBox* rowsBox() const { return rows_; }
    QSpinBox* hashesBox() const { return hashes_; }
    QDoubleSpinBox* thresholdBox() const { return threshold_; }
    QLabel* validationLabel() const { return validation_; }
    QLabel* suggestionLabel() const { return suggestion_; }
    QPushButton* suggestButton() const { return suggest_; }
    QCheckBox* autoBandsRowsBox() const { return autoBandsRows_; }
    QCheckBox* autoStoreFloorBox() const { return autoFloor_; }
    QDoubleSpinBox* storeFloorBox() const { return storeFloor_; }

  public slots:
    void suggestBandsAndRows();

  signals:
    void changed();
    void suggestionApplied(int bands, int rows);

  private:
    void observe(ProjectDocument* document);
    void refresh();
    // With "auto" ticked: bands and rows chosen again for the current threshold and hashes (off
    // the GUI thread: large H makes the scan take a while), the store floor set at once.
    void followThreshold();
    void chooseForThreshold();

    JobQueue* jobs_;
    QComboBox* shingle_;
    QSpinBox* ngram_;
    QSpinBox* hashes_;
    QComboBox* family_;
    QComboBox* sketch_;
    QLineEdit* seed_;
    QSpinBox* bands_;
    QSpinBox* rows_;
    QDoubleSpinBox* threshold_;
    QDoubleSpinBox* storeFloor_;
    QComboBox* bucketMode_;
    QSpinBox* buckets_;
    QComboBox* scheme_;
    QComboBox* verify_;
    QComboBox* keep_;
    QLineEdit* keepField_;
    QComboBox* decide_;
    QSpinBox* threads_;
    QComboBox* backend_;
    QLabel* gpus_;
    QLabel* validation_;
    QLabel* suggestion_;
    QPushButton* suggest_;
    QCheckBox* autoBandsRows_;
    QCheckBox* autoFloor_;
    SCurvePlot* plot_;
    // The last choice of bands and rows and what it was for: applied at once when the threshold
    // and hashes come back to it (a project opened with its run's chosen values).
    struct Choice {
        double threshold = 0;
        int hashes = 0;
        int bands = 0;
        int rows = 0;
    } lastChoice_;
    LatestRequest choice_;   // the pending choice of bands and rows, if any
    bool choosing_ = false;  // a choice for the current threshold has not arrived yet
    bool loading_ = false;
    bool fromNextRun_ = false;  // a project was opened: its first run shown gives the parameters
};

}  // namespace neardup::ui
