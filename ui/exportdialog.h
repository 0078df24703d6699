// Writes a stored run's outputs with neardup::exportRun (each file written to a temporary name
// and renamed into place): kept ids, removed ids, clusters JSONL, deduplicated JSONL, summary.
#pragma once

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace neardup::ui {

class JobQueue;

class ExportDialog : public QDialog {
    Q_OBJECT
  public:
    ExportDialog(JobQueue* jobs, qint64 runId, QWidget* parent = nullptr);

    void setOutputDirectory(const QString& dir);
    QString outputDirectory() const;
    // The files the current choices produce.
    QStringList plannedFiles() const;
    bool isExporting() const { return exporting_; }
    QString resultText() const;

  public slots:
    void startExport();

  signals:
    void exported(bool ok, const QString& message);

  private:
    void browse();

    JobQueue* jobs_;
    qint64 runId_;
    QLineEdit* dir_;
    QLineEdit* prefix_;
    QCheckBox* kept_;
    QCheckBox* removed_;
    QCheckBox* clusters_;
    QCheckBox* jsonl_;
    QCheckBox* summary_;
    QLabel* result_;
    QPushButton* export_;
    bool exporting_ = false;
};

}  // namespace neardup::ui
