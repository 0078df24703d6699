// Writes a stored run's outputs with neardup::exportRun (each file written to a temporary name
// and renamed into place once all are complete): kept ids, removed ids, clusters JSONL,
// deduplicated JSONL, summary. The export runs on a job queue with a progress bar; Cancel (or
// closing the dialog) stops it and leaves none of its files. Files are named after the project
// and run ("<project>-run-<N>-kept.txt", ...), and files that exist already are replaced only
// after the user says so (a question box, "confirmOverwrite"). As `neardup export` offers, the
// deduplicated dataset can also be written shard by shard in the inputs' formats (--out-dir:
// JSONL, Parquet or Arrow, a folder "<prefix>-dataset") and annotated instead of filtered
// (--annotate); the same core function checks that no output is an input or the project.
#pragma once

#include <QDialog>
#include <atomic>
#include <limits>
#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace neardup::ui {

class JobQueue;

// Which θ a file is written at, beside the other one, where the user chooses: the report
// always shows a run at its own θ (`runTheta`), Export follows the slider (`working`, NaN when
// it is at the run's own). For the Export dialog and, with `forReport`, the report's.
QString thresholdNote(double runTheta, double working, bool forReport);

class ExportDialog : public QDialog {
    Q_OBJECT
  public:
    ExportDialog(JobQueue* jobs, qint64 runId, QWidget* parent = nullptr);

    // Exports the run re-clustered at `threshold` (the workbench's working threshold; NaN, the
    // default: the run as it was clustered), with the dataset's decisions either way.
    void setThreshold(double threshold);
    double threshold() const { return threshold_; }
    // The run's own θ, named beside the working one (thresholdNote).
    void setRunThreshold(double threshold);
    QString thresholdText() const;
    void setOutputDirectory(const QString& dir);
    // Names the files after the project (its file name without .ndw) and the run.
    void setProjectName(const QString& name);
    QString outputDirectory() const;
    // The files the current choices produce.
    QStringList plannedFiles() const;
    bool isExporting() const { return exporting_; }
    QString resultText() const;

    QProgressBar* progressBar() const { return progress_; }
    // The deduplicated dataset shard by shard (off by default) and --annotate.
    QCheckBox* datasetBox() const { return dataset_; }
    QCheckBox* annotateBox() const { return annotate_; }
    QPushButton* cancelButton() const { return cancel_; }

  public slots:
    // Asks first when any planned file exists (the export starts on Yes).
    void startExport();
    // Stops an export in progress; exported(false, …) follows once the worker has stopped.
    void cancelExport();

  signals:
    // ok false: failed or cancelled (cancelled() is true then).
    void exported(bool ok, const QString& message);

  public:
    bool wasCancelled() const { return cancelled_; }

  protected:
    void reject() override;

  private:
    void browse();
    void finish(bool ok, const QString& message);
    void askBeforeReplacing(const QStringList& existing);
    void runExport();
    // The file-name prefix from the project, run and working threshold, unless the user typed
    // one of their own.
    void updatePrefix();

    JobQueue* jobs_;
    qint64 runId_;
    double threshold_ = std::numeric_limits<double>::quiet_NaN();
    QLineEdit* dir_;
    QLineEdit* prefix_;
    QString project_, autoPrefix_;
    QCheckBox* kept_;
    QCheckBox* removed_;
    QCheckBox* clusters_;
    QCheckBox* jsonl_;
    QCheckBox* summary_;
    QCheckBox* dataset_;
    QCheckBox* annotate_;
    QLabel* result_;
    QLabel* thetaNote_;
    double runThreshold_ = std::numeric_limits<double>::quiet_NaN();
    QPushButton* export_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    std::shared_ptr<std::atomic<bool>> cancelFlag_;
    bool exporting_ = false;
    bool cancelled_ = false;
    bool asking_ = false;
};

}  // namespace neardup::ui
