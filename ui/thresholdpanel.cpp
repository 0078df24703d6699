#include "thresholdpanel.h"

#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>
#include <chrono>
#include <cmath>
#include <string>

#include "clustering.h"
#include "decisions.h"
#include "jobqueue.h"
#include "numbertext.h"
#include "projectdocument.h"

namespace neardup::ui {

// What a worker loaded for one run of one project: the pairs and documents are
// kept between slider moves. A project switch gives the panel a fresh state
// (setRun without a run), and a state is only reused for the very project and
// run it was loaded from.
struct ReclusterState {
    std::string project;
    qint64 runId = 0;
    int hashes = 0;
    KeepPolicy keep = KeepPolicy::First;
    DecideRule decide = DecideRule::Witness;
    std::vector<ScoredPair> pairs;
    DocumentTable docs;
    RunResult scratch;
};

namespace {

constexpr int kSteps = 1000;

double millisecondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ThresholdPanel::ThresholdPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), jobs_(document->background()), state_(std::make_shared<ReclusterState>()) {
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setObjectName(QStringLiteral("thresholdSlider"));
    slider_->setRange(0, kSteps);
    slider_->setEnabled(false);
    slider_->setTickPosition(QSlider::TicksBelow);
    slider_->setTickInterval(kSteps / 10);
    value_ = new QLabel;
    value_->setMinimumWidth(70);
    result_ = new QLabel(tr("Select a run."));
    result_->setObjectName(QStringLiteral("thresholdResult"));
    result_->setWordWrap(true);
    baseline_ = new QLabel;
    baseline_->setWordWrap(true);
    baseline_->setStyleSheet(QStringLiteral("color: #555;"));
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("\u03b8")));
    row->addWidget(slider_, 1);
    row->addWidget(value_);
    save_ = new QPushButton(tr("Save as run"));
    save_->setObjectName(QStringLiteral("thresholdSaveAsRun"));
    save_->setEnabled(false);
    save_->setToolTip(
        tr("Record the run re-clustered at this threshold as a new run: its "
           "stored pairs are reused (nothing is compared again), pairs near the "
           "new threshold are verified as the run's verify mode says, and "
           "removals follow the run's rule, exactly as neardup run would."));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(result_);
    layout->addWidget(baseline_);
    layout->addWidget(save_, 0, Qt::AlignLeft);
    layout->addStretch();
    connect(slider_, &QSlider::valueChanged, this, [this] {
        value_->setText(QString::number(threshold(), 'f', 3));
        save_->setEnabled(false);  // until the result at the new value is shown
        request(threshold());
    });
    connect(save_, &QPushButton::clicked, this, [this] {
        if (last_ && !std::isnan(workingThreshold()))
            emit saveAsRunRequested(last_->runId, last_->threshold);
    });
    observe(document);
}

// The slider re-clusters the document's working run, and its result is the document's working
// threshold. An audit decision changes the counts at every threshold.
void ThresholdPanel::observe(ProjectDocument* document) {
    connect(document, &ProjectDocument::currentRunChanged, this, &ThresholdPanel::setRun);
    connect(document, &ProjectDocument::projectOpened, this, [this] { setRun(RunInfo{}); });
    connect(document, &ProjectDocument::projectClosed, this, [this] { setRun(RunInfo{}); });
    connect(document, &ProjectDocument::decisionsChanged, this, &ThresholdPanel::refresh);
    connect(this, &ThresholdPanel::reclustered, document, [document](const ReclusterResult& r) {
        if (r.runId == document->currentRun().runId) document->setWorkingThreshold(r.threshold);
    });
}

ThresholdPanel::~ThresholdPanel() = default;

void ThresholdPanel::refresh() {
    if (!run_.runId || !slider_->isEnabled()) return;
    if (inFlight_) {
        refreshQueued_ = true;
        return;
    }
    request(threshold());
}

double ThresholdPanel::workingThreshold() const {
    if (!run_.runId || !slider_->isEnabled() || slider_->value() == ownStep_) return std::nan("");
    return threshold();
}

double ThresholdPanel::threshold() const {
    // The run's own threshold need not fall on a step: its step stands for it
    // exactly.
    if (slider_->value() == ownStep_) return run_.params.compare.threshold;
    const double floor = run_.params.compare.storeFloor;
    // Rounded to a millionth, so that a step says 0.85 where the user reads
    // 0.850, as a threshold typed on the command line would.
    return std::round((floor + (1.0 - floor) * double(slider_->value()) / kSteps) * 1e6) / 1e6;
}

void ThresholdPanel::setThreshold(double t) {
    const double floor = run_.params.compare.storeFloor;
    if (!(floor < 1.0)) return;
    const double clamped = std::clamp(t, floor, 1.0);
    slider_->setValue(int(std::lround((clamped - floor) / (1.0 - floor) * kSteps)));
}

void ThresholdPanel::setRun(const RunInfo& run) {
    // No run: a project is closing or another opening; nothing loaded so far may
    // be reused.
    if (!run.runId) state_ = std::make_shared<ReclusterState>();
    run_ = run;
    ownStep_ = -1;
    last_.reset();
    save_->setEnabled(false);
    queued_.reset();
    refreshQueued_ = false;
    const bool usable = run.runId != 0 && run.status == "ok" && run.params.compare.storeFloor < 1.0;
    slider_->setEnabled(usable);
    if (usable) {
        // The steps span [storeFloor, 1]: the arrows move θ by 0.01 and Page Up/Down by 0.05,
        // so that 0.80 to 0.70 is two key presses.
        const double span = 1.0 - run.params.compare.storeFloor;
        slider_->setSingleStep(std::max(1, int(std::lround(0.01 / span * kSteps))));
        slider_->setPageStep(std::max(1, int(std::lround(0.05 / span * kSteps))));
    }
    if (!usable) {
        result_->setText(run.runId ? tr("Run %1 is %2: nothing to re-cluster.")
                                         .arg(run.runId)
                                         .arg(QString::fromStdString(run.status))
                                   : tr("Select a run."));
        baseline_->clear();
        return;
    }
    baseline_->setText(tr("Run %1 at \u03b8 = %2: %3 clusters, %4 removed. The "
                          "slider covers the "
                          "run's stored pairs (\u2265 %5).")
                           .arg(run.runId)
                           .arg(run.params.compare.threshold, 0, 'f', 3)
                           .arg(countText(run.clusters), countText(run.removed))
                           .arg(run.params.compare.storeFloor, 0, 'f', 3));
    result_->setText(tr("Loading the stored pairs\u2026"));
    {
        const QSignalBlocker block(slider_);
        ownStep_ = -1;
        setThreshold(run.params.compare.threshold);
        ownStep_ = slider_->value();
    }
    value_->setText(QString::number(threshold(), 'f', 3));
    // Loads the pairs now, so that the first move of the slider is as quick as
    // the next ones.
    request(threshold());
}

void ThresholdPanel::request(double t) {
    if (!run_.runId) return;
    if (inFlight_) {
        queued_ = t;
        return;
    }
    inFlight_ = true;
    const RunInfo run = run_;
    auto state = state_;
    jobs_->submit<ReclusterResult>(
        this,
        [run, state, t](JobContext& ctx) {
            ReclusterResult r;
            r.runId = run.runId;
            r.threshold = t;
            if (state->runId != run.runId || state->project != ctx.projectPath()) {
                const auto t0 = std::chrono::steady_clock::now();
                state->runId = 0;
                state->project = ctx.projectPath();
                state->pairs = ctx.reader().loadPairs(run.runId);
                ctx.reader().loadDataset(run.datasetId, &state->docs);
                state->hashes = run.params.signature.hashes;
                state->keep = run.params.keep;
                state->decide = run.params.decide;
                state->runId = run.runId;
                r.loadMilliseconds = millisecondsSince(t0);
            }
            // The dataset's audit decisions apply at every threshold (a few rows:
            // read each time, so that a decision just recorded counts).
            const std::vector<Decision> decisions = listDecisions(ctx.reader(), run.datasetId);
            const auto t0 = std::chrono::steady_clock::now();
            state->scratch = RunResult{};
            clusterWithDecisions(state->pairs, state->hashes, t, state->keep, state->decide,
                                 state->docs, decisions, state->scratch);
            r.milliseconds = millisecondsSince(t0);
            r.decisionsApplied = state->scratch.decisionsApplied;
            const RunCounts& c = state->scratch.counts;
            r.clusters = c.clusters;
            r.removed = c.removed;
            r.chainedRemovals = c.chainedRemovals;
            r.forReference = c.removedByReference;
            r.witnessRule = state->decide == DecideRule::Witness;
            r.verified = run.params.compare.verify != VerifyMode::None &&
                         std::abs(t - run.params.compare.threshold) >= 1e-9;
            r.duplicatePairs = c.duplicatePairs;
            r.pairs = state->pairs.size();
            return r;
        },
        [this, state](ReclusterResult r) {
            inFlight_ = false;
            if (refreshQueued_ && !queued_) queued_ = r.threshold;
            refreshQueued_ = false;
            // A result for another project (same run number) or run is not shown.
            if (state == state_ && r.runId == run_.runId) show(r);
            if (queued_) {
                const double next = *queued_;
                queued_.reset();
                request(next);
            }
        },
        [this](const QString& e) {
            inFlight_ = false;
            queued_.reset();
            result_->setText(tr("Cannot re-cluster: %1").arg(e));
        });
}

void ThresholdPanel::show(const ReclusterResult& r) {
    last_ = r;
    result_->setText(resultText());
    save_->setEnabled(!std::isnan(workingThreshold()));
    emit reclustered(r);
}

QString ThresholdPanel::resultText() const {
    if (!last_) return {};
    const ReclusterResult& r = *last_;
    QString text = tr("At \u03b8 = %1: <b>%2 clusters, %3 removed</b> (%4 "
                      "duplicate pairs of %5 "
                      "stored), re-clustered in %6 ms")
                       .arg(r.threshold, 0, 'f', 3)
                       .arg(countText(r.clusters), countText(r.removed),
                            countText(r.duplicatePairs), countText(r.pairs))
                       .arg(r.milliseconds, 0, 'f', 1);
    if (r.forReference > 0)
        text += tr("; %1 of the removals for a reference document").arg(countText(r.forReference));
    if (r.chainedRemovals > 0)
        text += r.witnessRule ? tr("; every removal has a witness (the components rule would "
                                   "remove %1 "
                                   "without one)")
                                    .arg(countText(r.chainedRemovals))
                              : tr("; <b>%1 removals without a witness</b> (chained)")
                                    .arg(countText(r.chainedRemovals));
    if (r.decisionsApplied > 0)
        text += tr("; %n audit decision(s) applied", "", int(r.decisionsApplied));
    if (r.verified)
        text +=
            tr("; verified pairs are judged by the exact Jaccard the run "
               "stored (Save as run "
               "verifies those near this threshold)");
    if (r.loadMilliseconds > 0)
        text += tr(" (pairs and documents loaded in %1 ms)").arg(r.loadMilliseconds, 0, 'f', 0);
    return text;
}

}  // namespace neardup::ui
