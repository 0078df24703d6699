#include "runhistorypanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include "qcp.h"

#include "runhistorymodel.h"

namespace neardup::ui {

RunHistoryPanel::RunHistoryPanel(QWidget* parent)
    : QWidget(parent),
      model_(new RunHistoryModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      view_(new QTableView),
      chart_(new QCustomPlot) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole);
    view_->setObjectName(QStringLiteral("runHistoryView"));
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(RunHistoryModel::Run, Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(22);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(false);
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
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

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(view_);
    split->addWidget(chart_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
    drawPhases(nullptr);
}

void RunHistoryPanel::setRuns(std::vector<RunSummary> runs, qint64 select) {
    const qint64 keep = select ? select : current_;
    model_->setRuns(std::move(runs));
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
    view_->selectionModel()->select(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    view_->scrollTo(index);
    view_->setCurrentIndex(index);
}

void RunHistoryPanel::onSelectionChanged() {
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    const RunSummary* run =
        rows.isEmpty() ? nullptr : model_->runAt(proxy_->mapToSource(rows.front()).row());
    drawPhases(run);
    const qint64 id = run ? run->runId : 0;
    if (id != current_) {
        current_ = id;
        emit currentRunChanged(id);
    }
}

void RunHistoryPanel::drawPhases(const RunSummary* run) {
    chart_->clearPlottables();
    auto* ticker = new QCPAxisTickerText;
    QVector<double> keys, values;
    double maxSeconds = 0;
    if (run) {
        for (std::size_t i = 0; i < run->phases.size(); ++i) {
            const PhaseTiming& p = run->phases[i];
            keys << double(i + 1);
            values << p.seconds;
            maxSeconds = std::max(maxSeconds, p.seconds);
            QString label = QString::fromStdString(p.name);
            if (p.reused) label += tr(" (reused)");
            ticker->addTick(double(i + 1), label);
        }
    }
    auto* bars = new QCPBars(chart_->yAxis, chart_->xAxis);
    bars->setWidth(0.6);
    bars->setPen(QPen(QColor(40, 90, 160)));
    bars->setBrush(QColor(70, 130, 200));
    bars->setData(keys, values, true);
    chart_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(ticker));
    chart_->yAxis->setRange(0.4, std::max<double>(keys.size(), 1) + 0.6);
    chart_->xAxis->setRange(0, maxSeconds > 0 ? maxSeconds * 1.1 : 1.0);
    if (auto* title = qobject_cast<QCPTextElement*>(chart_->plotLayout()->element(0, 0)))
        title->setText(run ? tr("Phase timings, run %1").arg(run->runId) : tr("Phase timings"));
    chart_->replot();
}

}  // namespace neardup::ui
