// The project's runs as a table (one row per run, oldest first): parameters in brief, counts and
// per-phase seconds. Sorting happens in a QSortFilterProxyModel on Qt::UserRole values. The
// Removed column shows the run's own count and, where audit decisions changed it, what an
// export removes now ("273 (268 after decisions)"); the Precision column the estimate of the
// run's latest sampled audit with its 95 % interval ("0.930 [0.852, 0.968]"); the Reference
// column, for a run against a reference, its documents and the removals made for it ("1,500
// (312 removed for it)").
#pragma once

#include <QAbstractTableModel>
#include <map>
#include <vector>

#include "project_store.h"

namespace neardup::ui {

class RunHistoryModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Run,
        Status,
        Started,
        Parameters,
        Documents,
        Candidates,
        DuplicatePairs,
        Clusters,
        Removed,
        Reference,
        Precision,
        ReadSeconds,
        SignatureSeconds,
        BucketSeconds,
        CompareSeconds,
        UnionSeconds,
        TotalSeconds,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setRuns(std::vector<RunSummary> runs);
    const std::vector<RunSummary>& runs() const { return runs_; }
    const RunSummary* runAt(int row) const;
    int rowOfRun(qint64 runId) const;  // -1 when absent
    // What an export of each run removes with the dataset's decisions (runs without decisions
    // need not be listed).
    void setAuditedRemovals(std::map<int64_t, uint64_t> removed);
    // The estimate of each run's latest sampled audit (runs without one need not be listed).
    void setAuditEstimates(std::map<int64_t, PrecisionEstimate> estimates);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // "char k=5, H=128 permute, 16x8 hash, K=exact, t=0.8" from a run's params_json.
    static QString parameterSummary(const std::string& paramsJson);

  private:
    std::vector<RunSummary> runs_;
    std::map<int64_t, uint64_t> auditedRemoved_;
    std::map<int64_t, PrecisionEstimate> estimates_;
};

// Seconds of one phase of a run, 0 when it did not run.
double phaseSeconds(const RunSummary& run, const char* phase);

}  // namespace neardup::ui
