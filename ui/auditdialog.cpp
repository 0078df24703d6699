// The sampled audit's dialog (auditdialog.h).
#include "auditdialog.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "comparisonloader.h"
#include "comparisonview.h"
#include "numbertext.h"
#include "project_store.h"

namespace neardup::ui {

namespace {

QPushButton* button(const QString& text, const QString& toolTip) {
    auto* b = new QPushButton(text);
    b->setToolTip(toolTip);
    return b;
}

QSpinBox* spinBox(const QString& name, const QString& prefix, int min, int max, int value) {
    auto* box = new QSpinBox;
    box->setObjectName(name);
    box->setRange(min, max);
    box->setValue(value);
    box->setPrefix(prefix);
    return box;
}

}  // namespace

QString thresholdText(double threshold) {
    return QString::number(threshold, 'g', 6);
}

QString precisionText(const PrecisionEstimate& e) {
    if (e.judged == 0 || std::isnan(e.precision)) return AuditDialog::tr("no verdict yet");
    QString s = AuditDialog::tr("precision %1 (95 % CI %2\u2013%3)")
                    .arg(e.precision, 0, 'f', 3)
                    .arg(e.low, 0, 'f', 3)
                    .arg(e.high, 0, 'f', 3);
    // A precision is the precision of the run's pairs at a threshold.
    if (!std::isnan(e.threshold))
        s += AuditDialog::tr(" at \u03b8 %1").arg(thresholdText(e.threshold));
    s += AuditDialog::tr(", %1 judged").arg(countText(e.judged));
    if (e.coverage < 1.0)
        s += AuditDialog::tr(", strata holding %1 % of the pairs").arg(e.coverage * 100, 0, 'f', 0);
    return s;
}

AuditDialog::AuditDialog(JobQueue* jobs, const RunInfo& run, QWidget* parent)
    : QDialog(parent), jobs_(jobs), run_(run) {
    setObjectName(QStringLiteral("auditDialog"));
    setWindowTitle(tr("Sampled audit of run %1").arg(run.runId));
    size_ = spinBox(QStringLiteral("auditSize"), tr("pairs: "), 1, 100000, 50);
    seed_ = spinBox(QStringLiteral("auditSeed"), tr("seed: "), 0, 1000000, 1);
    draw_ = button(tr("Draw a new sample"),
                   tr("Draw this many of the run's duplicate pairs at random, spread equally over "
                      "four strata of estimated Jaccard between the working threshold (the "
                      "threshold slider's) and 1 (the same seed draws the same pairs)"));
    draw_->setObjectName(QStringLiteral("auditDraw"));
    position_ = new QLabel;
    estimateLabel_ = new QLabel;
    estimateLabel_->setObjectName(QStringLiteral("auditEstimate"));
    estimateLabel_->setWordWrap(true);
    duplicate_ =
        button(tr("Duplicate (D)"), tr("These two are duplicates: a correct pair of the run (D)"));
    notDuplicate_ = button(tr("Not a duplicate (N)"),
                           tr("These two are not duplicates: a false pair of the run (N)"));
    unsure_ = button(tr("Unsure (U)"), tr("Cannot tell: left out of the estimate (U)"));
    apply_ = button(
        tr("Apply verdicts as decisions"),
        tr("Record each verdict as a review decision, as the comparison view's buttons do: "
           "\"not a duplicate\" cuts the pair in every export, \"duplicate\" confirms it. Pairs "
           "that already have a decision are skipped, never overwritten."));
    apply_->setObjectName(QStringLiteral("auditApply"));
    applied_ = new QLabel;
    applied_->setObjectName(QStringLiteral("auditApplied"));
    applied_->setWordWrap(true);
    previous_ = button(tr("\u25c0 Previous"), tr("Previous pair of the sample (Left)"));
    next_ = button(tr("Next \u25b6"), tr("Next pair of the sample (Right)"));
    comparison_ = new ComparisonView;
    comparison_->setDecisionsVisible(false);

    auto* drawRow = new QHBoxLayout;
    drawRow->addWidget(size_);
    drawRow->addWidget(seed_);
    drawRow->addWidget(draw_);
    drawRow->addStretch(1);
    drawRow->addWidget(apply_);
    auto* verdictRow = new QHBoxLayout;
    verdictRow->addWidget(previous_);
    verdictRow->addWidget(duplicate_);
    verdictRow->addWidget(notDuplicate_);
    verdictRow->addWidget(unsure_);
    verdictRow->addWidget(next_);
    verdictRow->addWidget(position_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(drawRow);
    layout->addWidget(estimateLabel_);
    layout->addWidget(applied_);
    layout->addLayout(verdictRow);
    layout->addWidget(comparison_, 1);

    connect(draw_, &QPushButton::clicked, this, &AuditDialog::drawSample);
    connect(duplicate_, &QPushButton::clicked, this, [this] { judge(AuditVerdict::Duplicate); });
    connect(notDuplicate_, &QPushButton::clicked, this,
            [this] { judge(AuditVerdict::NotDuplicate); });
    connect(unsure_, &QPushButton::clicked, this, [this] { judge(AuditVerdict::Unsure); });
    connect(apply_, &QPushButton::clicked, this, &AuditDialog::applyVerdicts);
    connect(previous_, &QPushButton::clicked, this, [this] { showPairAt(index_ - 1); });
    connect(next_, &QPushButton::clicked, this, [this] { showPairAt(index_ + 1); });
    auto key = [this](QKeySequence keys, auto slot) {
        auto* s = new QShortcut(keys, this);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, this, slot);
    };
    key(QKeySequence(Qt::Key_D), [this] { judge(AuditVerdict::Duplicate); });
    key(QKeySequence(Qt::Key_N), [this] { judge(AuditVerdict::NotDuplicate); });
    key(QKeySequence(Qt::Key_U), [this] { judge(AuditVerdict::Unsure); });
    key(QKeySequence(Qt::Key_Left), [this] { showPairAt(index_ - 1); });
    key(QKeySequence(Qt::Key_Right), [this] { showPairAt(index_ + 1); });
    resize(1100, 700);
    setThreshold(threshold_);
    setSample(std::nullopt);

    // Goes on with the run's latest sample, when it has one.
    const qint64 runId = run.runId;
    jobs_->submit<std::optional<StoredAudit>>(
        this, [runId](JobContext& ctx) { return ctx.queries().latestAudit(runId); },
        [this](std::optional<StoredAudit> s) {
            if (s && !sample_) setSample(std::move(s));
        },
        [this](const QString& e) { estimateLabel_->setText(e); });
}

QString AuditDialog::estimateText() const {
    return estimateLabel_->text();
}

QString AuditDialog::applyText() const {
    return applied_->text();
}

void AuditDialog::setThreshold(double threshold) {
    threshold_ = threshold;
    draw_->setText(tr("Draw a new sample at \u03b8 %1").arg(thresholdText(drawThreshold())));
    if (sample_) updateEstimate();  // says whether the sample shown is at this θ
}

double AuditDialog::drawThreshold() const {
    return std::isnan(threshold_) ? run_.params.compare.threshold : threshold_;
}

void AuditDialog::drawSample() {
    const qint64 runId = run_.runId;
    const uint64_t n = uint64_t(size_->value()), seed = uint64_t(seed_->value());
    const double threshold = drawThreshold();
    draw_->setEnabled(false);
    estimateLabel_->setText(
        tr("Drawing %1 pairs at \u03b8 %2\u2026").arg(n).arg(thresholdText(threshold)));
    jobs_->submit<std::optional<StoredAudit>>(
        this,
        [runId, n, seed, threshold](JobContext& ctx) {
            const int64_t id = ctx.store().createAuditSample(runId, n, seed, threshold);
            return ctx.store().auditSample(id);
        },
        [this](std::optional<StoredAudit> s) {
            draw_->setEnabled(true);
            setSample(std::move(s));
        },
        [this](const QString& e) {
            draw_->setEnabled(true);
            estimateLabel_->setText(tr("Cannot draw a sample: %1").arg(e));
        });
}

void AuditDialog::setSample(std::optional<StoredAudit> sample) {
    sample_ = std::move(sample);
    const bool have = sample_ && !sample_->draw.pairs.empty();
    for (QPushButton* b : {duplicate_, notDuplicate_, unsure_, previous_, next_})
        b->setEnabled(have);
    applied_->clear();
    updateEstimate();
    if (!have) {
        index_ = -1;
        position_->clear();
        comparison_->clear(tr("Draw a sample of the run's pairs to audit."));
        return;
    }
    size_->setValue(int(sample_->requested));
    seed_->setValue(int(sample_->draw.seed));
    const int first = nextUnjudged(0);
    showPairAt(first >= 0 ? first : 0);
    emit sampleLoaded();
}

int AuditDialog::nextUnjudged(int from) const {
    if (!sample_) return -1;
    for (int i = std::max(0, from); i < int(sample_->draw.pairs.size()); ++i)
        if (!sample_->draw.pairs[std::size_t(i)].verdict) return i;
    return -1;
}

void AuditDialog::updateEstimate() {
    if (!sample_) {
        estimate_ = PrecisionEstimate{};
        estimateLabel_->setText(tr("No sample of this run yet."));
        return;
    }
    estimate_ = estimatePrecision(sample_->draw);
    QString text = tr("Sample %1 of %2 pairs at \u03b8 %3 (seed %4): %5; %6 unsure.")
                       .arg(sample_->sampleId)
                       .arg(countText(sample_->draw.pairs.size()))
                       .arg(thresholdText(sample_->draw.threshold))
                       .arg(sample_->draw.seed)
                       .arg(precisionText(estimate_))
                       .arg(countText(estimate_.unsure));
    // A sample of another threshold is shown as it is; the user may draw one at the working θ.
    if (std::abs(sample_->draw.threshold - drawThreshold()) > 1e-9)
        text +=
            QLatin1Char(' ') + tr("The working threshold is %1: draw a new sample to audit at it.")
                                   .arg(thresholdText(drawThreshold()));
    estimateLabel_->setText(text);
    updateApplyButton();
}

void AuditDialog::updateApplyButton() {
    bool judged = false;
    if (sample_)
        for (const AuditPair& p : sample_->draw.pairs)
            judged = judged || (p.verdict && *p.verdict != AuditVerdict::Unsure);
    apply_->setEnabled(judged && !saving_);
}

void AuditDialog::applyVerdicts() {
    if (!sample_ || saving_) return;
    saving_ = true;
    apply_->setEnabled(false);
    const int64_t sampleId = sample_->sampleId;
    jobs_->submit<ProjectStore::AppliedVerdicts>(
        this, [sampleId](JobContext& ctx) { return ctx.store().applyAuditVerdicts(sampleId); },
        [this](ProjectStore::AppliedVerdicts a) {
            saving_ = false;
            updateApplyButton();
            const uint64_t recorded = a.notDuplicate + a.confirmed;
            QString text =
                tr("Recorded %1 decision(s): %2 not a duplicate, %3 confirmed "
                   "duplicate.")
                    .arg(countText(recorded), countText(a.notDuplicate), countText(a.confirmed));
            if (a.skipped > 0)
                text += QLatin1Char(' ') +
                        tr("Skipped %1 pair(s) that already had a decision (%2 of them "
                           "differing from the verdict): undo those in the comparison view to "
                           "change them.")
                            .arg(countText(a.skipped), countText(a.conflicting));
            applied_->setText(text);
            emit verdictsApplied(recorded > 0);
        },
        [this](const QString& e) {
            saving_ = false;
            updateApplyButton();
            applied_->setText(tr("Cannot apply the verdicts: %1").arg(e));
        });
}

void AuditDialog::showPairAt(int index) {
    if (!sample_ || index < 0 || index >= int(sample_->draw.pairs.size())) return;
    index_ = index;
    const AuditPair& p = sample_->draw.pairs[std::size_t(index)];
    const QString verdict =
        p.verdict
            ? QString::fromLatin1(toString(*p.verdict)).replace(QLatin1Char('_'), QLatin1Char(' '))
            : tr("no verdict yet");
    position_->setText(tr("pair %1 of %2 (stratum %3, estimated J %4): %5")
                           .arg(index + 1)
                           .arg(sample_->draw.pairs.size())
                           .arg(p.stratum + 1)
                           .arg(p.estimated, 0, 'f', 3)
                           .arg(verdict));
    const RunInfo run = run_;
    PairRow pair;
    pair.a = p.a;
    pair.b = p.b;
    pair.estimated = p.estimated;
    pair.matches = uint32_t(std::lround(p.estimated * run.params.signature.hashes));
    pair.exact = std::nan("");
    jobs_->submit<ComparisonData>(
        this, latestPair_.next(),
        [run, pair](JobContext& ctx) {
            ComparisonData d = loadComparison(ctx, run, pair, true);
            // Worded as the clusters panel words them, so that the pair judged here is the
            // pair seen there.
            loadStatuses(ctx, run, d);
            return d;
        },
        [this](ComparisonData d) {
            comparison_->setComparison(d);
            emit pairShown();
        },
        [this](const QString& e) { comparison_->clear(e); });
}

void AuditDialog::judge(AuditVerdict verdict) {
    if (!sample_ || index_ < 0 || saving_) return;
    saving_ = true;
    const int64_t sampleId = sample_->sampleId;
    const int ordinal = index_;
    jobs_->submit<bool>(
        this,
        [sampleId, ordinal, verdict](JobContext& ctx) {
            ctx.store().setAuditVerdict(sampleId, ordinal, verdict);
            return true;
        },
        [this, ordinal, verdict](bool) {
            saving_ = false;
            if (!sample_) return;
            sample_->draw.pairs[std::size_t(ordinal)].verdict = verdict;
            updateEstimate();
            emit verdictRecorded();
            const int next = nextUnjudged(ordinal + 1);
            showPairAt(next >= 0 ? next
                                 : std::min(ordinal + 1, int(sample_->draw.pairs.size()) - 1));
        },
        [this](const QString& e) {
            saving_ = false;
            estimateLabel_->setText(tr("Cannot record the verdict: %1").arg(e));
        });
}

}  // namespace neardup::ui
