#include "runhistorymodel.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cmath>

#include "auditdialog.h"
#include "numbertext.h"

namespace neardup::ui {

double phaseSeconds(const RunSummary& run, const char* phase) {
    double s = 0;
    for (const auto& p : run.phases)
        if (p.name == phase) s += p.seconds;
    return s;
}

namespace {

double totalSeconds(const RunSummary& run) {
    double s = 0;
    for (const auto& p : run.phases)
        s += p.seconds;
    return s;
}

QString seconds(double s) {
    return QString::number(s, 'f', s < 10 ? 3 : 1);
}

// The seed as written (a 64-bit integer a JSON double would round).
QString seedText(const std::string& paramsJson) {
    static const QRegularExpression seed(QStringLiteral("\"seed\":(\\d+)"));
    const QRegularExpressionMatch m = seed.match(QString::fromStdString(paramsJson));
    return m.hasMatch() ? m.captured(1) : QStringLiteral("?");
}

}  // namespace

QString RunHistoryModel::parameterSummary(const std::string& paramsJson) {
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(paramsJson)).object();
    if (o.isEmpty()) return QString::fromStdString(paramsJson);
    return QStringLiteral("%1 k=%2, H=%3 %4 seed %5, %6\u00d7%7 %8, K=%9, ")
               .arg(o.value(QLatin1String("shingle")).toString())
               .arg(o.value(QLatin1String("ngram")).toInt())
               .arg(o.value(QLatin1String("hashes")).toInt())
               .arg(o.value(QLatin1String("hash")).toString())
               .arg(seedText(paramsJson))
               .arg(o.value(QLatin1String("bands")).toInt())
               .arg(o.value(QLatin1String("rows")).toInt())
               .arg(o.value(QLatin1String("bucket_key")).toString())
               .arg(o.value(QLatin1String("buckets")).toString()) +
           QStringLiteral("\u03b8=%1, verify %2, keep %3, %4")
               .arg(o.value(QLatin1String("threshold")).toDouble())
               .arg(o.value(QLatin1String("verify")).toString())
               .arg(o.value(QLatin1String("keep")).toString())
               .arg(o.value(QLatin1String("decide")).toString());
}

void RunHistoryModel::setRuns(std::vector<RunSummary> runs) {
    beginResetModel();
    runs_ = std::move(runs);
    auditedRemoved_.clear();  // until the new list's are known
    endResetModel();
}

void RunHistoryModel::setAuditEstimates(std::map<int64_t, PrecisionEstimate> estimates) {
    estimates_ = std::move(estimates);
    if (!runs_.empty())
        emit dataChanged(index(0, Precision), index(int(runs_.size()) - 1, Precision));
}

void RunHistoryModel::setAuditedRemovals(std::map<int64_t, uint64_t> removed) {
    auditedRemoved_ = std::move(removed);
    if (!runs_.empty()) emit dataChanged(index(0, Removed), index(rowCount() - 1, Removed));
}

const RunSummary* RunHistoryModel::runAt(int row) const {
    return row >= 0 && row < static_cast<int>(runs_.size()) ? &runs_[std::size_t(row)] : nullptr;
}

int RunHistoryModel::rowOfRun(qint64 runId) const {
    for (std::size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].runId == runId) return static_cast<int>(i);
    return -1;
}

int RunHistoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunHistoryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::data(const QModelIndex& index, int role) const {
    const RunSummary* r = runAt(index.row());
    if (!r) return {};
    const RunCounts& c = r->counts;
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Documents ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                           : QVariant();
    if (role == Qt::ToolTipRole && index.column() == Parameters)
        return QString::fromStdString(r->paramsJson);
    const auto audited = auditedRemoved_.find(r->runId);
    const bool decided = audited != auditedRemoved_.end() && audited->second != c.removed;
    if (role == Qt::ToolTipRole && index.column() == Removed)
        return decided ? tr("The run removed %1; with the audit decisions recorded since, an "
                            "export removes %2.")
                             .arg(countText(c.removed), countText(audited->second))
                       : tr("Documents the run removed (what an export removes).");
    const auto estimate = estimates_.find(r->runId);
    const bool sampled = estimate != estimates_.end() && estimate->second.judged > 0;
    if (role == Qt::ToolTipRole && index.column() == Precision)
        return sampled ? tr("Sampled audit (Run \u25b8 Audit N Random Pairs): %1; %2 unsure.")
                             .arg(precisionText(estimate->second))
                             .arg(estimate->second.unsure)
                       : tr("No sampled audit with a verdict (Run \u25b8 Audit N Random Pairs).");
    if (role == Qt::ToolTipRole && index.column() == Reference)
        return c.referenceDocuments
                   ? tr("Documents of the run's reference (never removed, counted in Documents) "
                        "and the new documents removed as duplicates of one.")
                   : tr("The run had no reference.");
    if (role == Qt::ToolTipRole && index.column() == Status)
        return QString::fromStdString(r->backend);
    const bool sortRole = role == Qt::UserRole;
    if (role != Qt::DisplayRole && !sortRole) return {};
    auto num = [&](uint64_t v) -> QVariant {
        return sortRole ? QVariant(static_cast<qulonglong>(v)) : QVariant(countText(v));
    };
    auto secs = [&](double v) -> QVariant { return sortRole ? QVariant(v) : QVariant(seconds(v)); };
    switch (index.column()) {
        case Run:
            return sortRole ? QVariant(qlonglong(r->runId)) : QVariant(QString::number(r->runId));
        case Status:
            return QString::fromStdString(r->status);
        case Started:
            return QString::fromStdString(r->startedAt)
                .left(19)
                .replace(QLatin1Char('T'), QLatin1Char(' '));
        case Parameters:
            return parameterSummary(r->paramsJson);
        case Documents:
            return num(c.documents);
        case Candidates:
            return num(c.candidatePairs);
        case DuplicatePairs:
            return num(c.duplicatePairs);
        case Clusters:
            return num(c.clusters);
        case Removed:
            if (decided && !sortRole)
                return tr("%1 (%2 after decisions)")
                    .arg(countText(c.removed), countText(audited->second));
            return num(c.removed);
        case Reference:
            if (sortRole) return static_cast<qulonglong>(c.referenceDocuments);
            if (!c.referenceDocuments) return {};
            return tr("%1 (%2 removed for it)")
                .arg(countText(c.referenceDocuments), countText(c.removedByReference));
        case Precision:
            if (!sampled) return sortRole ? QVariant(-1.0) : QVariant();
            if (sortRole) return estimate->second.precision;
            {
                // The threshold the audit drew at: the run's own or a working one.
                QString text = QStringLiteral("%1 [%2, %3]")
                                   .arg(estimate->second.precision, 0, 'f', 3)
                                   .arg(estimate->second.low, 0, 'f', 3)
                                   .arg(estimate->second.high, 0, 'f', 3);
                if (!std::isnan(estimate->second.threshold))
                    text += tr(" at \u03b8 %1").arg(thresholdText(estimate->second.threshold));
                return text;
            }
        case ReadSeconds:
            return secs(phaseSeconds(*r, "read"));
        case SignatureSeconds:
            return secs(phaseSeconds(*r, "signatures"));
        case BucketSeconds:
            return secs(phaseSeconds(*r, "buckets"));
        case CompareSeconds:
            return secs(phaseSeconds(*r, "compare"));
        case UnionSeconds:
            return secs(phaseSeconds(*r, "union"));
        case TotalSeconds:
            return secs(totalSeconds(*r));
        default:
            return {};
    }
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const names[ColumnCount] = {
        "Run",        "Status",    "Started",   "Parameters", "Documents", "Candidates",
        "Dup. pairs", "Clusters",  "Removed",   "Reference",  "Precision", "Read s",
        "Sign s",     "Buckets s", "Compare s", "Union s",    "Total s"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace neardup::ui
