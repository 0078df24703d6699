#include "projectdocument.h"

#include <cmath>
#include <limits>
#include <utility>

namespace neardup::ui {

namespace {

// The run loaded for the panels: its summary and the dataset it read.
struct RunView {
    RunInfo info;
    DatasetRecord dataset;
};

// A project's runs and the unfinished one Resume would run again.
struct RunListing {
    std::vector<RunSummary> runs;
    std::optional<ResumeRecord> resumable;
};

// The run a project opens on: the latest that finished, else the latest (0: none). An
// interrupted latest run has no clusters or timings to show.
qint64 runToShowFirst(const std::vector<RunSummary>& runs) {
    for (auto it = runs.rbegin(); it != runs.rend(); ++it)
        if (it->status == "ok") return it->runId;
    return runs.empty() ? 0 : runs.back().runId;
}

constexpr double kOwnThreshold = std::numeric_limits<double>::quiet_NaN();

}  // namespace

ProjectDocument::ProjectDocument(QObject* parent)
    : QObject(parent),
      queries_(new JobQueue(QStringLiteral("neardup-queries"), this)),
      background_(new JobQueue(QStringLiteral("neardup-background"), this)),
      threshold_(kOwnThreshold) {}

void ProjectDocument::forgetProject() {
    latestRun_.forget();  // a run of the previous project still being read is not shown
    path_.clear();
    queries_->setProject(QString());
    background_->setProject(QString());
    runs_.clear();
    resumable_.reset();
    run_ = RunInfo{};
    dataset_ = DatasetRecord{};
    threshold_ = kOwnThreshold;
}

void ProjectDocument::open(const QString& path, qint64 select) {
    forgetProject();
    path_ = path;
    queries_->setProject(path_);
    background_->setProject(path_);
    listedOnce_ = false;
    emit projectOpened(path_);
    reloadRuns(select);
}

void ProjectDocument::close() {
    if (!isOpen()) return;
    forgetProject();
    emit projectClosed();
}

void ProjectDocument::reloadRuns(qint64 select) {
    const QString project = path_;
    queries_->submit<RunListing>(
        this,
        [](JobContext& c) {
            // Runs of processes that died since the last look show as interrupted.
            c.store().recoverStaleRuns();
            RunListing listing;
            listing.runs = c.reader().listRuns();
            listing.resumable = findResumable(c.store());
            return listing;
        },
        [this, select, project](RunListing listing) {
            if (project != path_) return;
            qint64 target = select;
            if (!std::exchange(listedOnce_, true) && !target) target = runToShowFirst(listing.runs);
            runs_ = std::move(listing.runs);
            resumable_ = std::move(listing.resumable);
            emit runsChanged(runs_, target);
        },
        [this, project](const QString& e) {
            if (project != path_) return;
            if (listedOnce_) {
                emit readFailed(e);
                return;
            }
            forgetProject();
            emit openFailed(project, e);
        });
}

void ProjectDocument::selectRun(qint64 runId) {
    const LatestRequest::Ticket ticket = latestRun_.next();
    if (!runId) {
        run_ = RunInfo{};
        threshold_ = kOwnThreshold;
        emit currentRunChanged(run_);
        return;
    }
    queries_->submit<RunView>(
        this, ticket,
        [runId](JobContext& c) {
            RunView v;
            v.info = c.queries().runInfo(runId);
            v.dataset = c.reader().loadDataset(v.info.datasetId, nullptr);
            return v;
        },
        [this](RunView v) {
            run_ = std::move(v.info);
            dataset_ = std::move(v.dataset);
            threshold_ = kOwnThreshold;
            emit currentRunChanged(run_);
        });
}

void ProjectDocument::setWorkingThreshold(double threshold) {
    if (!run_.runId) return;
    // Only a move of the slider changes the working threshold; the counts of a run just shown
    // or refreshed after a decision leave it as the user left it.
    const bool own = std::abs(threshold - run_.params.compare.threshold) < 1e-9;
    if (own ? std::isnan(threshold_) : threshold_ == threshold) return;
    threshold_ = own ? kOwnThreshold : threshold;
    emit thresholdChanged(threshold);
}

void ProjectDocument::noteDecisionsChanged() {
    emit decisionsChanged();
}

void ProjectDocument::noteAuditChanged() {
    emit auditChanged();
}

}  // namespace neardup::ui
