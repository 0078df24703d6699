// The clusters table's model (clustersmodel.h): paged listing, refresh after decisions, and
// the diameters measured in the background.
#include "clustersmodel.h"

#include <QColor>
#include <algorithm>
#include <cmath>
#include <limits>

#include "jobqueue.h"
#include "numbertext.h"

namespace neardup::ui {

namespace {

struct Page {
    quint64 total = 0;
    std::vector<ClusterRow> rows;
};

QVariant similarity(double v) {
    return std::isnan(v) ? QVariant(QStringLiteral("\u2014"))
                         : QVariant(QString::number(v, 'f', 3));
}

ClusterSort sortFor(int column) {
    switch (column) {
        case ClustersModel::Cluster:
            return ClusterSort::Cluster;
        case ClustersModel::Representative:
            return ClusterSort::Representative;
        case ClustersModel::MinEstimated:
            return ClusterSort::MinEstimated;
        case ClustersModel::MeanEstimated:
            return ClusterSort::MeanEstimated;
        case ClustersModel::Exact:
            return ClusterSort::MinExact;
        case ClustersModel::Decision:
            return ClusterSort::Decision;
        case ClustersModel::Diameter:
            return ClusterSort::Diameter;
        default:
            return ClusterSort::Size;
    }
}

// A listing sorted or filtered by diameter needs the diameters of the listing stored beside it
// first: measured once per listing, in the same job, before its first page.
void needDiameters(JobContext& c, qint64 run, const ClusterFilter& filter, ClusterSort sort) {
    if (sort == ClusterSort::Diameter || filter.flaggedOnly)
        listingDiameters(c.queries(), c.reader(), run, filter.threshold);
}

}  // namespace

QString decisionText(uint8_t marks) {
    QStringList parts;
    if (marks & kMarkKeepAll) parts << ClustersModel::tr("keep all");
    if (marks & kMarkKeepInstead) parts << ClustersModel::tr("keep instead");
    if (marks & kMarkSplit) parts << ClustersModel::tr("split");
    return parts.join(QStringLiteral(", "));
}

ClustersModel::ClustersModel(JobQueue* jobs, QObject* parent)
    : QAbstractTableModel(parent), jobs_(jobs) {}

void ClustersModel::setRun(qint64 runId) {
    runId_ = runId;
    filter_.threshold = std::numeric_limits<double>::quiet_NaN();  // the run's own
    reload();
}

void ClustersModel::setFilter(const QString& idSearch, int minSize) {
    filter_.idSearch = idSearch.toStdString();
    filter_.minSize = minSize > 0 ? uint64_t(minSize) : 0;
    reload();
}

void ClustersModel::setDecidedOnly(bool decidedOnly) {
    if (filter_.decidedOnly == decidedOnly) return;
    filter_.decidedOnly = decidedOnly;
    reload();
}

void ClustersModel::setFlaggedOnly(bool flaggedOnly) {
    if (filter_.flaggedOnly == flaggedOnly) return;
    filter_.flaggedOnly = flaggedOnly;
    reload();
}

void ClustersModel::setReferenceOnly(bool referenceOnly) {
    if (filter_.referenceOnly == referenceOnly) return;
    filter_.referenceOnly = referenceOnly;
    reload();
}

void ClustersModel::setDocumentFilter(std::shared_ptr<const std::vector<uint32_t>> documents) {
    if (filter_.documents == documents) return;
    filter_.documents = std::move(documents);
    reload();
}

void ClustersModel::setThreshold(double threshold) {
    if (threshold == filter_.threshold || (std::isnan(threshold) && std::isnan(filter_.threshold)))
        return;
    filter_.threshold = threshold;
    reload();
}

void ClustersModel::refresh() {
    if (runId_ == 0) return;
    // Pages requested before the refresh would append rows of the old listing.
    const LatestRequest::Ticket ticket = latestListing_.next();
    loading_ = false;
    const qint64 run = runId_;
    const ClusterFilter filter = filter_;
    const ClusterSort sort = sort_;
    const bool desc = descending_;
    // Re-read what is loaded, capped: beyond it, scrolling fetches pages again.
    const uint64_t limit = std::clamp<uint64_t>(rows_.size(), kPageSize, 20000);
    jobs_->submit<Page>(
        this, ticket,
        [=](JobContext& c) {
            Page p;
            ProjectQueries& q = c.queries();
            needDiameters(c, run, filter, sort);
            p.total = q.clusterCount(run, filter);
            p.rows = q.clusters(run, filter, sort, desc, 0, limit);
            return p;
        },
        [this](Page p) {
            total_ = p.total;
            const int old = int(rows_.size()), now = int(p.rows.size());
            if (now < old) {
                beginRemoveRows({}, now, old - 1);
                rows_.resize(std::size_t(now));
                endRemoveRows();
            }
            const int common = std::min(old, now);
            for (int i = 0; i < common; ++i)
                rows_[std::size_t(i)] = std::move(p.rows[std::size_t(i)]);
            if (common > 0) emit dataChanged(index(0, 0), index(common - 1, ColumnCount - 1));
            if (now > old) {
                beginInsertRows({}, old, now - 1);
                for (int i = old; i < now; ++i)
                    rows_.push_back(std::move(p.rows[std::size_t(i)]));
                endInsertRows();
            }
            emit refreshed();
            measureDiameters();
        },
        [this](const QString& error) { emit failed(error); });
}

void ClustersModel::sort(int column, Qt::SortOrder order) {
    const ClusterSort s = sortFor(column);
    const bool desc = order == Qt::DescendingOrder;
    if (s == sort_ && desc == descending_) return;
    sort_ = s;
    descending_ = desc;
    reload();
}

void ClustersModel::reload() {
    latestListing_.forget();  // pages still coming are of the old listing
    latestDiameters_.forget();
    beginResetModel();
    rows_.clear();
    diameters_.clear();
    measured_ = false;
    diameterNote_.clear();
    total_ = 0;
    loading_ = false;
    endResetModel();
    if (runId_ != 0) requestPage();
}

void ClustersModel::requestPage() {
    loading_ = true;
    const LatestRequest::Ticket ticket = latestListing_.current();  // a page of the same listing
    const qint64 run = runId_;
    const ClusterFilter filter = filter_;
    const ClusterSort sort = sort_;
    const bool desc = descending_;
    const uint64_t offset = rows_.size();
    const bool first = offset == 0;
    jobs_->submit<Page>(
        this, ticket,
        [=](JobContext& c) {
            Page p;
            ProjectQueries& q = c.queries();
            if (first) needDiameters(c, run, filter, sort);
            if (first) p.total = q.clusterCount(run, filter);
            p.rows = q.clusters(run, filter, sort, desc, offset, kPageSize);
            return p;
        },
        [this, first](Page p) {
            loading_ = false;
            if (first) total_ = p.total;
            if (!p.rows.empty()) {
                const int from = int(rows_.size());
                beginInsertRows({}, from, from + int(p.rows.size()) - 1);
                for (auto& r : p.rows)
                    rows_.push_back(std::move(r));
                endInsertRows();
            } else {
                total_ = rows_.size();  // the listing ended early (the run changed?)
            }
            if (first) {
                emit reloaded();
                measureDiameters();
            }
        },
        [this](const QString& error) {
            loading_ = false;
            total_ = rows_.size();
            emit failed(error);
        });
}

void ClustersModel::measureDiameters() {
    const qint64 run = runId_;
    const double threshold = filter_.threshold;
    jobs_->submit<StoredDiameters>(
        this, latestDiameters_.next(),
        [=](JobContext& c) {
            // The listed members' rows, a block at a time: never the whole cache in memory;
            // measured once per listing (a listing sorted or filtered by them has them already).
            return listingDiameters(c.queries(), c.reader(), run, threshold);
        },
        [this](StoredDiameters m) {
            diameters_.clear();
            for (const ComponentDiameter& d : m.components)
                diameters_[d.cluster] = d;
            measured_ = true;
            diameterNote_ = QString::fromStdString(m.why);
            if (!rows_.empty())
                emit dataChanged(index(0, Diameter), index(int(rows_.size()) - 1, Diameter));
            emit diametersReady();
        },
        [this](const QString& error) { diameterNote_ = error; });
}

quint64 ClustersModel::flaggedCount() const {
    quint64 n = 0;
    for (const auto& entry : diameters_)
        n += entry.second.flagged() ? 1 : 0;
    return n;
}

const ComponentDiameter* ClustersModel::diameterOf(qint64 cluster) const {
    const auto it = diameters_.find(cluster);
    return it == diameters_.end() ? nullptr : &it->second;
}

const ClusterRow* ClustersModel::clusterAt(int row) const {
    return row >= 0 && row < int(rows_.size()) ? &rows_[std::size_t(row)] : nullptr;
}

int ClustersModel::rowOfCluster(qint64 cluster) const {
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].cluster == cluster) return int(i);
    return -1;
}

int ClustersModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int ClustersModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

bool ClustersModel::canFetchMore(const QModelIndex& parent) const {
    return !parent.isValid() && !loading_ && rows_.size() < total_;
}

void ClustersModel::fetchMore(const QModelIndex& parent) {
    if (canFetchMore(parent)) requestPage();
}

QVariant ClustersModel::diameterData(qint64 cluster, int role) const {
    const ComponentDiameter* d = diameterOf(cluster);
    if (!d)
        return role == Qt::DisplayRole && !measured_ ? QVariant(QStringLiteral("\u2026"))
                                                     : QVariant();
    const QString value =
        std::isnan(d->diameter) ? QStringLiteral("\u2014") : QString::number(d->diameter, 'f', 3);
    switch (role) {
        case Qt::DisplayRole:
            return d->chain   ? tr("\u26a0 %1 chain").arg(value)
                   : d->large ? tr("\u26a0 %1 large").arg(value)
                              : value;
        case Qt::BackgroundRole:
            return d->flagged() ? QVariant(QColor(255, 224, 178)) : QVariant();
        case Qt::ToolTipRole: {
            QString tip =
                std::isnan(d->diameter)
                    ? tr("Diameter unknown: %1.").arg(diameterNote_)
                    : tr("Lowest estimated Jaccard between a member (document %1) and the "
                         "representative: %2.")
                          .arg(d->farthest)
                          .arg(value);
            if (d->chain)
                tip +=
                    tr(" A chain: members are linked to the representative only through "
                       "other members; open the Chain tab before exporting.");
            if (d->large) tip += tr(" A large component (%1 members).").arg(countText(d->size));
            return tip;
        }
        default:
            return {};
    }
}

QVariant ClustersModel::data(const QModelIndex& index, int role) const {
    const ClusterRow* r = clusterAt(index.row());
    if (!r) return {};
    if (index.column() == Diameter) return diameterData(r->cluster, role);
    if (role == Qt::TextAlignmentRole)
        return index.column() == Representative || index.column() == Decision
                   ? QVariant()
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Representative)
        return r->reference ? tr("document %1, of the reference: never removed; the cluster's "
                                 "new documents matched it")
                                  .arg(r->representative)
                            : tr("document %1, kept").arg(r->representative);
    if (role == Qt::ToolTipRole && index.column() == Decision && r->decisions)
        return tr("Shaped by audit decisions: %1").arg(decisionText(r->decisions));
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Cluster:
            return QString::number(r->cluster);
        case Size:
            return countText(r->size);
        case Representative:
            return r->reference
                       ? tr("%1 (reference)").arg(QString::fromStdString(r->representativeId))
                       : QString::fromStdString(r->representativeId);
        case MinEstimated:
            return similarity(r->minEstimated);
        case MeanEstimated:
            return similarity(r->meanEstimated);
        case Exact:
            return similarity(r->minExact);
        case Pairs:
            return countText(r->pairs);
        case Decision:
            return decisionText(r->decisions);
        default:
            return {};
    }
}

QVariant ClustersModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole && section == Exact)
        return tr(
            "Smallest exact Jaccard among the cluster's verified pairs (\u2014 when none "
            "was verified)");
    if (role == Qt::ToolTipRole && section == Diameter)
        return tr("Lowest estimated Jaccard between any member and the representative, from the "
                  "run's signatures. Flagged (\u26a0): a chain, below \u03b8 \u2212 3\u03c3 of "
                  "the estimate, or a component of %1 members or more")
            .arg(kLargeComponent);
    if (role == Qt::ToolTipRole && section == Decision)
        return tr(
            "Audit decisions that shaped the cluster: split (not a duplicate), keep "
            "instead (representative chosen), keep all");
    if (role != Qt::DisplayRole) return {};
    static const char* const names[ColumnCount] = {"Cluster",    "Size",        "Representative",
                                                   "Min est. J", "Mean est. J", "Exact J (min)",
                                                   "Pairs",      "Decision",    "Diameter"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace neardup::ui
