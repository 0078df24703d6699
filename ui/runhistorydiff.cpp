#include "runhistorydiff.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "jobqueue.h"
#include "numbertext.h"

namespace neardup::ui {

namespace {

QVariant clusterCell(int64_t c, bool sortRole) {
    if (sortRole) return QVariant(qlonglong(c));
    return c < 0 ? QObject::tr("\u2014 (none)") : QString::number(c);
}

}  // namespace

void RunDiffModel::setRows(std::vector<RunDiffRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int RunDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RunDiffModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunDiffModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const RunDiffRow& r = rows_[std::size_t(index.row())];
    const bool sortRole = role == Qt::UserRole;
    if (role == Qt::TextAlignmentRole)
        return index.column() == Document || index.column() == Representative
                   ? QVariant()
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && !sortRole) return {};
    switch (index.column()) {
        case Document:
            return QString::fromStdString(r.docId);
        case Index:
            return sortRole ? QVariant(qulonglong(r.docIndex))
                            : QVariant(QString::number(r.docIndex));
        case ClusterA:
            return clusterCell(r.clusterA, sortRole);
        case ClusterB:
            return clusterCell(r.clusterB, sortRole);
        case Representative:
            return QString::fromStdString(r.representativeId);
        default:
            return {};
    }
}

QVariant RunDiffModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Document:
            return tr("Document");
        case Index:
            return tr("Index");
        case ClusterA:
            return tr("Cluster in run %1").arg(runA_);
        case ClusterB:
            return tr("Cluster in run %1").arg(runB_);
        case Representative:
            return tr("Removed for (witness)");
        default:
            return {};
    }
}

RunDiffDialog::RunDiffDialog(JobQueue* jobs, qint64 runA, qint64 runB, QWidget* parent)
    : QDialog(parent),
      runA_(runA),
      runB_(runB),
      summary_(new QLabel(tr("Comparing runs %1 and %2\u2026").arg(runA).arg(runB))),
      tabs_(new QTabWidget),
      newly_(new RunDiffModel(runA, runB, this)),
      noLonger_(new RunDiffModel(runA, runB, this)) {
    setObjectName(QStringLiteral("runDiffDialog"));
    setWindowTitle(tr("Run %1 \u2192 run %2").arg(runA).arg(runB));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    tabs_->addTab(table(newly_), tr("Newly removed"));
    tabs_->addTab(table(noLonger_), tr("No longer removed"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(tabs_, 1);
    layout->addWidget(buttons);
    resize(900, 600);

    jobs->submit<RunDiff>(
        this, [runA, runB](JobContext& c) { return diffRuns(c.projectPath(), runA, runB); },
        [this](RunDiff d) {
            summary_->setText(
                tr("Run %1 removes %2 of %3 documents, run %4 removes %5; %6 are removed by "
                   "both.\n%7 newly removed by run %4 (kept by run %1), %8 no longer removed "
                   "(removed by run %1, kept by run %4).")
                    .arg(runA_)
                    .arg(countText(d.removedA), countText(d.documents))
                    .arg(runB_)
                    .arg(countText(d.removedB), countText(d.removedBoth),
                         countText(d.newlyRemoved.size()), countText(d.noLongerRemoved.size())));
            tabs_->setTabText(0, tr("Newly removed (%1)").arg(countText(d.newlyRemoved.size())));
            tabs_->setTabText(
                1, tr("No longer removed (%1)").arg(countText(d.noLongerRemoved.size())));
            newly_->setRows(std::move(d.newlyRemoved));
            noLonger_->setRows(std::move(d.noLongerRemoved));
            loaded_ = true;
            emit loaded(true);
        },
        [this](const QString& e) {
            summary_->setText(tr("Cannot compare the runs: %1").arg(e));
            loaded_ = true;
            emit loaded(false);
        });
}

QString RunDiffDialog::summaryText() const {
    return summary_->text();
}

QTableView* RunDiffDialog::table(RunDiffModel* model) {
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model);
    proxy->setSortRole(Qt::UserRole);
    auto* view = new QTableView;
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(RunDiffModel::Index, Qt::AscendingOrder);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(20);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->setColumnWidth(RunDiffModel::Document, 220);
    view->setAlternatingRowColors(true);
    return view;
}

}  // namespace neardup::ui
