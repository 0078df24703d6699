// The difference between two runs' outcomes (core/run_diff): the documents the newer run
// removes that the older kept, and those the older removed that the newer keeps, with each
// document's cluster in both runs and the representative that replaces it. Computed on a job
// queue; the dialog is non-modal.
#pragma once

#include <QAbstractTableModel>
#include <QDialog>
#include <vector>

#include "run_diff.h"

class QLabel;
class QTabWidget;
class QTableView;

namespace neardup::ui {

class JobQueue;

class RunDiffModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Document, Index, ClusterA, ClusterB, Representative, ColumnCount };
    RunDiffModel(qint64 runA, qint64 runB, QObject* parent = nullptr)
        : QAbstractTableModel(parent), runA_(runA), runB_(runB) {}

    void setRows(std::vector<RunDiffRow> rows);
    const std::vector<RunDiffRow>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    qint64 runA_, runB_;
    std::vector<RunDiffRow> rows_;
};

class RunDiffDialog : public QDialog {
    Q_OBJECT
  public:
    RunDiffDialog(JobQueue* jobs, qint64 runA, qint64 runB, QWidget* parent = nullptr);

    bool isLoaded() const { return loaded_; }
    QString summaryText() const;
    RunDiffModel* newlyRemoved() const { return newly_; }
    RunDiffModel* noLongerRemoved() const { return noLonger_; }
    QTabWidget* tabs() const { return tabs_; }

  signals:
    void loaded(bool ok);

  private:
    QTableView* table(RunDiffModel* model);

    qint64 runA_, runB_;
    QLabel* summary_;
    QTabWidget* tabs_;
    RunDiffModel* newly_;
    RunDiffModel* noLonger_;
    bool loaded_ = false;
};

}  // namespace neardup::ui
