// Every run parameter with inline validation (neardup::validate), the live S-curve, and a
// suggestion of bands and rows for the threshold and hash count (neardup::chooseBandsRows, the
// choice `neardup run` makes when -b/-r are not given).
#pragma once

#include <QWidget>

#include "params.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace neardup::ui {

class JobQueue;
class SCurvePlot;

class ParametersPanel : public QWidget {
    Q_OBJECT
  public:
    // `jobs` computes suggestions off the GUI thread (large H makes the scan take a while).
    explicit ParametersPanel(JobQueue* jobs, QWidget* parent = nullptr);

    // The parameters as edited; reader fields are left at their defaults (the dataset panel
    // owns them).
    RunParams params() const;
    void setParams(const RunParams& p);
    // Empty when valid, else neardup::validate's message.
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

  public slots:
    void suggestBandsAndRows();

  signals:
    void changed();
    void suggestionApplied(int bands, int rows);

  private:
    void refresh();

    JobQueue* jobs_;
    QComboBox* shingle_;
    QSpinBox* ngram_;
    QSpinBox* hashes_;
    QComboBox* family_;
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
    SCurvePlot* plot_;
    bool loading_ = false;
};

}  // namespace neardup::ui
