#include "runhistorypanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include "qcp.h"

#include "audit_sample.h"
#include "jobqueue.h"
#include "projectdocument.h"
#include "runhistorymodel.h"

namespace neardup::ui {

RunHistoryPanel::RunHistoryPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent),
      document_(document),
      model_(new RunHistoryModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      view_(new QTableView),
      chart_(new QCustomPlot),
      compare_(new QPushButton(tr("Compare\u2026"))) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole);
    view_->setObjectName(QStringLiteral("runHistoryView"));
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(RunHistoryModel::Run, Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Ctrl+click adds a second run for a comparison; the current row is the run shown.
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(22);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(false);
    // What a run did comes first (documents, clusters, removed, precision) and the long
    // parameters line last, so that the counts stay in sight in the bottom dock.
    QHeaderView* header = view_->horizontalHeader();
    int visual = RunHistoryModel::Documents;
    for (const int column :
         {RunHistoryModel::Documents, RunHistoryModel::Clusters, RunHistoryModel::Removed,
          RunHistoryModel::Reference, RunHistoryModel::Precision})
        header->moveSection(header->visualIndex(column), visual++);
    header->moveSection(header->visualIndex(RunHistoryModel::Parameters),
                        RunHistoryModel::ColumnCount - 1);
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunHistoryPanel::onSelectionChanged);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &RunHistoryPanel::onSelectionChanged);

    chart_->setObjectName(QStringLiteral("phaseChart"));
    chart_->setMinimumWidth(260);
    chart_->plotLayout()->insertRow(0);
    chart_->plotLayout()->addElement(
        0, 0,
        new QCPTextElement(chart_, tr("Phase timings"), QFont(font().family(), 9, QFont::Bold)));
    chart_->yAxis->setRangeReversed(true);
    chart_->xAxis->setLabel(tr("seconds"));
    chart_->xAxis->ticker()->setTickCount(4);
    // The rows' height is known once the chart is laid out (and changes when it is resized):
    // which labels fit is decided then, and the chart drawn again when that changed.
    // The seconds axis gets as many ticks as its labels fit side by side in its width.
    chart_->xAxis->setNumberFormat(QStringLiteral("g"));
    chart_->xAxis->setNumberPrecision(2);
    connect(chart_, &QCustomPlot::afterLayout, this, [this] {
        const std::vector<int> before = labelledRows_;
        fitPhaseLabels();
        const int label = QFontMetrics(chart_->xAxis->tickLabelFont())
                              .horizontalAdvance(QStringLiteral("0.0000")) +
                          16;
        const int ticks = std::clamp(chart_->xAxis->axisRect()->width() / label, 1, 4);
        const bool retick = chart_->xAxis->ticker()->tickCount() != ticks;
        chart_->xAxis->ticker()->setTickCount(ticks);
        if (labelledRows_ != before || retick) chart_->replot(QCustomPlot::rpQueuedReplot);
    });

    compare_->setObjectName(QStringLiteral("compareRunsButton"));
    compare_->setEnabled(false);
    compare_->setToolTip(
        tr("Select two runs (Ctrl+click) to list the documents one removes and the other "
           "keeps"));
    connect(compare_, &QPushButton::clicked, this, [this] {
        const QList<qint64> runs = selectedRuns();
        if (runs.size() == 2) emit compareRequested(runs[0], runs[1]);
    });
    auto* tableBox = new QWidget;
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->setSpacing(2);
    tableLayout->addWidget(view_, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(new QLabel(tr("Ctrl+click a second run to compare outcomes.")), 1);
    buttons->addWidget(compare_);
    tableLayout->addLayout(buttons);

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(tableBox);
    split->addWidget(chart_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
    drawPhases(nullptr);
    if (document_) observe();
}

// The document's runs, and the run selected here becomes the document's working run. What
// exports remove with the decisions, and the audits' precision, follow the project.
void RunHistoryPanel::observe() {
    connect(document_, &ProjectDocument::runsChanged, this,
            [this](const std::vector<RunSummary>& runs, qint64 select) {
                setRuns(runs, select);
                refreshAuditedRemovals();
                refreshAuditEstimates();
            });
    connect(document_, &ProjectDocument::projectClosed, this, [this] { setRuns({}, 0); });
    connect(document_, &ProjectDocument::openFailed, this, [this] { setRuns({}, 0); });
    connect(document_, &ProjectDocument::decisionsChanged, this,
            &RunHistoryPanel::refreshAuditedRemovals);
    connect(document_, &ProjectDocument::auditChanged, this,
            &RunHistoryPanel::refreshAuditEstimates);
    connect(this, &RunHistoryPanel::currentRunChanged, document_, &ProjectDocument::selectRun);
}

void RunHistoryPanel::refreshAuditedRemovals() {
    std::vector<std::pair<int64_t, int64_t>> runs;  // (run, dataset) of the finished runs
    for (const RunSummary& r : model_->runs())
        if (r.status == "ok") runs.emplace_back(r.runId, r.datasetId);
    if (runs.empty()) return;
    const QString project = document_->path();
    document_->background()->submit<std::map<int64_t, uint64_t>>(
        this,
        [runs](JobContext& c) {
            // loadRun re-clusters a run with its dataset's decisions: what an export removes.
            // Its duplicate pairs are all that clustering reads.
            std::map<int64_t, uint64_t> removed;
            std::map<int64_t, bool> decided;
            for (const auto& [run, dataset] : runs) {
                if (!decided.count(dataset))
                    decided[dataset] = !c.reader().decisions(dataset).empty();
                if (decided[dataset])
                    removed[run] = c.reader()
                                       .loadRun(run, ProjectStore::StoredPairs::Duplicates)
                                       .counts.removed;
            }
            return removed;
        },
        [this, project](std::map<int64_t, uint64_t> removed) {
            if (project == document_->path()) model_->setAuditedRemovals(std::move(removed));
        });
}

void RunHistoryPanel::refreshAuditEstimates() {
    std::vector<int64_t> runs;
    for (const RunSummary& r : model_->runs())
        if (r.status == "ok") runs.push_back(r.runId);
    if (runs.empty()) return;
    const QString project = document_->path();
    document_->background()->submit<std::map<int64_t, PrecisionEstimate>>(
        this,
        [runs](JobContext& c) {
            std::map<int64_t, PrecisionEstimate> estimates;
            for (const int64_t run : runs)
                if (const auto audit = c.queries().latestAudit(run))
                    estimates[run] = estimatePrecision(audit->draw);
            return estimates;
        },
        [this, project](std::map<int64_t, PrecisionEstimate> estimates) {
            if (project == document_->path()) model_->setAuditEstimates(std::move(estimates));
        });
}

void RunHistoryPanel::setRuns(std::vector<RunSummary> runs, qint64 select) {
    const qint64 keep = select ? select : current_;
    model_->setRuns(std::move(runs));
    // The Reference column is for projects with a run against a reference.
    bool referenced = false;
    for (const RunSummary& r : model_->runs())
        referenced = referenced || r.counts.referenceDocuments > 0;
    view_->setColumnHidden(RunHistoryModel::Reference, !referenced);
    qint64 target = model_->rowOfRun(keep) >= 0 ? keep : 0;
    if (!target && !model_->runs().empty()) target = model_->runs().back().runId;
    current_ = 0;  // so that selecting reports the run again
    if (target)
        selectRun(target);
    else {
        drawPhases(nullptr);
        emit currentRunChanged(0);
    }
}

void RunHistoryPanel::selectRun(qint64 runId) {
    const int row = model_->rowOfRun(runId);
    if (row < 0) return;
    const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
    // Through the selection model, not QAbstractItemView::setCurrentIndex: in extended
    // selection the view's command follows the keyboard modifiers last seen (a Ctrl still
    // recorded as held would toggle the row off again).
    view_->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    view_->scrollTo(index);
}

void RunHistoryPanel::selectRuns(qint64 a, qint64 b) {
    const int rowA = model_->rowOfRun(a), rowB = model_->rowOfRun(b);
    if (rowA < 0 || rowB < 0) return;
    const QModelIndex ia = proxy_->mapFromSource(model_->index(rowA, 0));
    const QModelIndex ib = proxy_->mapFromSource(model_->index(rowB, 0));
    QItemSelectionModel* sel = view_->selectionModel();
    sel->select(ia, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    sel->setCurrentIndex(ib, QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

QList<qint64> RunHistoryPanel::selectedRuns() const {
    QList<qint64> runs;
    for (const QModelIndex& i : view_->selectionModel()->selectedRows())
        if (const RunSummary* r = model_->runAt(proxy_->mapToSource(i).row())) runs << r->runId;
    std::sort(runs.begin(), runs.end());
    return runs;
}

void RunHistoryPanel::onSelectionChanged() {
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    // A click in the empty space below the rows clears the selection: the run shown stays.
    if (rows.isEmpty() && current_ && model_->rowOfRun(current_) >= 0) {
        selectRun(current_);
        return;
    }
    compare_->setEnabled(rows.size() == 2);
    // The run shown is the current row when it is selected, else the first selected one.
    const QModelIndex current = view_->selectionModel()->currentIndex();
    const bool currentSelected =
        current.isValid() && view_->selectionModel()->isRowSelected(current.row(), {});
    const QModelIndex shown =
        currentSelected ? current : (rows.isEmpty() ? QModelIndex() : rows.front());
    const RunSummary* run =
        shown.isValid() ? model_->runAt(proxy_->mapToSource(shown).row()) : nullptr;
    drawPhases(run);
    const qint64 id = run ? run->runId : 0;
    if (id != current_) {
        current_ = id;
        emit currentRunChanged(id);
    }
}

void RunHistoryPanel::drawPhases(const RunSummary* run) {
    chart_->clearPlottables();
    phaseRows_.clear();
    QStringList tip;
    if (run) {
        double longest = 0;
        for (const PhaseTiming& p : run->phases)
            longest = std::max(longest, p.seconds);
        // Phases far shorter than the longest would be bars too thin to see, each with a label
        // of its own: together they are one row, and every phase is in the tooltip.
        PhaseRow shortOnes;
        int shortCount = 0;
        for (const PhaseTiming& p : run->phases) {
            QString label = QString::fromStdString(p.name);
            if (p.reused) label += tr(" (reused)");
            tip << tr("%1: %2 s").arg(label, QString::number(p.seconds, 'f', 3));
            if (longest > 0 && p.seconds < kShortPhaseShare * longest) {
                shortOnes.seconds += p.seconds;
                ++shortCount;
            } else {
                phaseRows_.push_back({label, p.seconds});
            }
        }
        if (shortCount == 1) {
            // One short phase keeps its own name: nothing to merge it with.
            for (const PhaseTiming& p : run->phases)
                if (p.seconds < kShortPhaseShare * longest) {
                    shortOnes.label = QString::fromStdString(p.name);
                    if (p.reused) shortOnes.label += tr(" (reused)");
                }
        } else if (shortCount > 1) {
            shortOnes.label = tr("%n short phase(s)", "", shortCount);
        }
        if (shortCount > 0) phaseRows_.push_back(shortOnes);
    }
    chart_->setToolTip(tip.join(QLatin1Char('\n')));
    QVector<double> keys, values;
    double maxSeconds = 0;
    for (std::size_t i = 0; i < phaseRows_.size(); ++i) {
        keys << double(i + 1);
        values << phaseRows_[i].seconds;
        maxSeconds = std::max(maxSeconds, phaseRows_[i].seconds);
    }
    auto* bars = new QCPBars(chart_->yAxis, chart_->xAxis);
    bars->setWidth(0.6);
    bars->setPen(QPen(QColor(40, 90, 160)));
    bars->setBrush(QColor(70, 130, 200));
    bars->setData(keys, values, true);
    chart_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTickerText));
    labelledRows_.clear();
    fitPhaseLabels();
    chart_->yAxis->setRange(0.4, std::max<double>(keys.size(), 1) + 0.6);
    chart_->xAxis->setRange(0, maxSeconds > 0 ? maxSeconds * 1.1 : 1.0);
    if (auto* title = qobject_cast<QCPTextElement*>(chart_->plotLayout()->element(0, 0)))
        title->setText(run ? tr("Phase timings, run %1").arg(run->runId) : tr("Phase timings"));
    chart_->replot();
}

void RunHistoryPanel::fitPhaseLabels() {
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(chart_->yAxis->ticker());
    if (!ticker) return;
    // Rows closer than a line of text cannot all be labelled: the longest phases keep theirs
    // (a label is shown when no row already labelled is within a line of it).
    const int rows = int(phaseRows_.size());
    const double pitch = rows ? double(chart_->yAxis->axisRect()->height()) / rows : 0;
    const int line = QFontMetrics(chart_->yAxis->tickLabelFont()).height();
    std::vector<int> order(rows);
    for (int i = 0; i < rows; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
        return phaseRows_[a].seconds > phaseRows_[b].seconds;
    });
    std::vector<int> shown;
    for (int i : order) {
        const bool fits = std::all_of(shown.begin(), shown.end(),
                                      [&](int j) { return std::abs(i - j) * pitch >= line; });
        if (fits) shown.push_back(i);
    }
    std::sort(shown.begin(), shown.end());
    if (shown == labelledRows_ && !ticker->ticks().isEmpty()) return;
    labelledRows_ = shown;
    ticker->clear();
    for (int i : shown)
        ticker->addTick(double(i + 1), phaseRows_[i].label);
}

}  // namespace neardup::ui
