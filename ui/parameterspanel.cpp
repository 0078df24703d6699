#include "parameterspanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <utility>

#include "backend_factory.h"
#include "jobqueue.h"
#include "lsh_tuning.h"
#include "pair_verifier.h"
#include "projectdocument.h"
#include "scurveplot.h"

namespace neardup::ui {

namespace {

QComboBox* combo(std::initializer_list<const char*> items) {
    auto* c = new QComboBox;
    for (const char* i : items)
        c->addItem(QString::fromLatin1(i));
    return c;
}

QSpinBox* spin(int lo, int hi, int value) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setKeyboardTracking(true);
    return s;
}

// The wheel over a combo or spin box that does not have the focus scrolls the panel instead of
// changing the value under the pointer on its way past.
class WheelGuard : public QObject {
  public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override {
        auto* w = qobject_cast<QWidget*>(watched);
        if (event->type() == QEvent::Wheel && w && !w->hasFocus()) {
            event->ignore();  // goes on to the scroll area around the panel
            return true;
        }
        return QObject::eventFilter(watched, event);
    }
};

void setCombo(QComboBox* c, const char* text) {
    const int i = c->findText(QString::fromLatin1(text));
    if (i >= 0) c->setCurrentIndex(i);
}

}  // namespace

ParametersPanel::ParametersPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), jobs_(document->background()) {
    const RunParams d;
    // The defaults are the choice for the default threshold and hashes (test_lsh_tuning).
    lastChoice_ = {d.compare.threshold, d.signature.hashes, d.lsh.bands, d.lsh.rows};
    shingle_ = combo({"char", "word"});
    ngram_ = spin(1, 64, d.signature.ngram);
    hashes_ = spin(1, 4096, d.signature.hashes);
    hashes_->setObjectName(QStringLiteral("hashes"));
    family_ = combo({"permute", "rolling"});
    family_->setObjectName(QStringLiteral("family"));
    sketch_ = combo({"oph", "classic"});
    sketch_->setObjectName(QStringLiteral("sketch"));
    sketch_->setToolTip(
        tr("oph: one hash per shingle into H bins (the default, as accurate and "
           "several times faster); classic: H hash functions per shingle, the "
           "only sketch of the rolling family"));
    setCombo(sketch_, toString(d.signature.sketch));
    seed_ = new QLineEdit(QString::number(d.signature.seed));
    seed_->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,20}")), seed_));
    // No upper bound tied to H here: b x r > H must show up as a validation message.
    bands_ = spin(1, 4096, d.lsh.bands);
    bands_->setObjectName(QStringLiteral("bands"));
    rows_ = spin(1, 4096, d.lsh.rows);
    rows_->setObjectName(QStringLiteral("rows"));
    threshold_ = new QDoubleSpinBox;
    threshold_->setObjectName(QStringLiteral("threshold"));
    threshold_->setRange(0.01, 1.0);
    threshold_->setDecimals(3);
    threshold_->setSingleStep(0.01);
    threshold_->setValue(d.compare.threshold);
    storeFloor_ = new QDoubleSpinBox;
    storeFloor_->setRange(0.01, 1.0);
    storeFloor_->setDecimals(3);
    storeFloor_->setSingleStep(0.05);
    storeFloor_->setValue(d.compare.storeFloor);
    storeFloor_->setToolTip(
        tr("Pairs at or above this estimated Jaccard are stored, so the "
           "threshold slider can re-cluster down to it without comparing "
           "again."));
    bucketMode_ = combo({"exact", "auto", "number"});
    bucketMode_->setToolTip(
        tr("Buckets per band K: exact keys (classic LSH), auto (2\u221aN, as "
           "FED) or a fixed number"));
    buckets_ = spin(1, std::numeric_limits<int>::max(), 1000);
    buckets_->setEnabled(false);
    scheme_ = combo({"hash", "sum"});
    scheme_->setToolTip(
        tr("Band key: a hash of the r values (classic), or their sum mod K "
           "(FED/SEDD)"));
    verify_ = combo({"none", "borderline", "exact"});
    setCombo(verify_, toString(d.compare.verify));
    keep_ = combo({"first", "longest", "max:FIELD"});
    keepField_ = new QLineEdit;
    keepField_->setPlaceholderText(tr("numeric field"));
    keepField_->setEnabled(false);
    decide_ = combo({"witness", "components"});
    decide_->setToolTip(
        tr("witness: remove a document only when it is a near-duplicate of a document kept "
           "before it in keep order; components: keep one document per connected component "
           "of duplicate pairs (a chain of small edits removes documents that resemble nothing "
           "kept)"));
    threads_ = spin(0, 1024, 0);
    threads_->setSpecialValueText(tr("all cores"));
    backend_ = combo({"auto", "cpu", "cuda"});
    backend_->setToolTip(
        tr("auto: a GPU when one is usable, except for a run with the oph sketch and hash band "
           "keys on %1 or more CPU threads, which the CPU finishes sooner; cpu: the CPU only; "
           "cuda: the GPU, or an error saying why it cannot be used")
            .arg(kCpuOutrunsGpuThreads));
    gpus_ = new QLabel(tr("GPUs: querying\u2026"));
    gpus_->setWordWrap(true);

    auto* sig = new QGroupBox(tr("Shingles and signatures"));
    auto* sf = new QFormLayout(sig);
    auto* shRow = new QHBoxLayout;
    shRow->addWidget(shingle_);
    shRow->addWidget(new QLabel(tr("k")));
    shRow->addWidget(ngram_);
    sf->addRow(tr("Shingles"), shRow);
    auto* hRow = new QHBoxLayout;
    hRow->addWidget(hashes_);
    hRow->addWidget(family_);
    hRow->addWidget(sketch_);
    sf->addRow(tr("Hashes H"), hRow);
    sf->addRow(tr("Seed"), seed_);

    auto* lsh = new QGroupBox(tr("LSH and comparison"));
    auto* lf = new QFormLayout(lsh);
    auto* brRow = new QHBoxLayout;
    brRow->addWidget(bands_);
    brRow->addWidget(new QLabel(QStringLiteral("\u00d7")));
    brRow->addWidget(rows_);
    autoBandsRows_ = new QCheckBox(tr("auto"));
    autoBandsRows_->setObjectName(QStringLiteral("autoBandsRows"));
    // One description of the choice for both controls, in the workbench's words.
    const QString choice =
        tr("the bands \u00d7 rows (b\u00b7r \u2264 H) that balance missed duplicates against "
           "false candidates under the S-curve at \u03b8, a missed duplicate weighing 99 times "
           "a false candidate");
    autoBandsRows_->setToolTip(
        tr("auto: b and r follow \u03b8 and H, set to %1 whenever either changes; a run also "
           "reuses an earlier run's pairs when that run's b \u00d7 r misses no more pairs at "
           "\u03b8.")
            .arg(choice));
    brRow->addWidget(autoBandsRows_);
    suggest_ = new QPushButton(tr("Suggest b, r"));
    suggest_->setObjectName(QStringLiteral("suggestButton"));
    suggest_->setToolTip(
        tr("Suggest: b and r are set once to %1 (the choice auto keeps), then left as they "
           "are.")
            .arg(choice));
    // Never narrower than its text: the row gives way elsewhere, the panel scrolls.
    suggest_->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
    suggest_->setMinimumWidth(suggest_->sizeHint().width());
    brRow->addWidget(suggest_);
    lf->addRow(tr("Bands \u00d7 rows"), brRow);
    auto* tRow = new QHBoxLayout;
    tRow->addWidget(threshold_);
    tRow->addWidget(new QLabel(tr("store \u2265")));
    tRow->addWidget(storeFloor_);
    autoFloor_ = new QCheckBox(tr("auto"));
    autoFloor_->setObjectName(QStringLiteral("autoStoreFloor"));
    autoFloor_->setToolTip(
        tr("auto: pairs are stored down to 0.5, or lower where verification reaches below it "
           "(the bottom of the borderline band, \u03b8 \u2212 3\u03c3)"));
    tRow->addWidget(autoFloor_);
    lf->addRow(tr("Threshold \u03b8"), tRow);
    auto* kRow = new QHBoxLayout;
    kRow->addWidget(bucketMode_);
    kRow->addWidget(buckets_);
    kRow->addWidget(scheme_);
    lf->addRow(tr("Buckets K, key"), kRow);
    lf->addRow(tr("Verify"), verify_);
    auto* keepRow = new QHBoxLayout;
    keepRow->addWidget(keep_);
    keepRow->addWidget(keepField_);
    keepRow->addWidget(decide_);
    lf->addRow(tr("Keep order, rule"), keepRow);
    auto* exRow = new QHBoxLayout;
    exRow->addWidget(threads_);
    exRow->addWidget(backend_);
    lf->addRow(tr("Threads, backend"), exRow);
    lf->addRow(gpus_);

    validation_ = new QLabel;
    validation_->setObjectName(QStringLiteral("validationLabel"));
    validation_->setWordWrap(true);
    suggestion_ = new QLabel;
    suggestion_->setObjectName(QStringLiteral("suggestionLabel"));
    suggestion_->setWordWrap(true);
    plot_ = new SCurvePlot;

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(sig);
    layout->addWidget(lsh);
    layout->addWidget(validation_);
    layout->addWidget(plot_, 1);
    layout->addWidget(suggestion_);

    auto* guard = new WheelGuard(this);
    for (QWidget* w : findChildren<QWidget*>())
        if (qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w)) {
            w->setFocusPolicy(Qt::StrongFocus);
            w->installEventFilter(guard);
        }

    auto onEdit = [this] { refresh(); };
    for (QSpinBox* s : {ngram_, hashes_, bands_, rows_, buckets_, threads_})
        connect(s, &QSpinBox::valueChanged, this, onEdit);
    for (QDoubleSpinBox* s : {threshold_, storeFloor_})
        connect(s, &QDoubleSpinBox::valueChanged, this, onEdit);
    for (QComboBox* c :
         {shingle_, family_, sketch_, bucketMode_, scheme_, verify_, keep_, decide_, backend_})
        connect(c, &QComboBox::currentIndexChanged, this, onEdit);
    // The rolling family has only the classic sketch: choosing it switches the sketch, as the
    // CLI's --hash rolling does when no --sketch is given.
    connect(family_, &QComboBox::currentIndexChanged, this, [this] {
        if (!loading_ && family_->currentText() == QLatin1String("rolling"))
            setCombo(sketch_, toString(SketchKind::Classic));
    });
    for (QLineEdit* e : {seed_, keepField_})
        connect(e, &QLineEdit::textChanged, this, onEdit);
    connect(suggest_, &QPushButton::clicked, this, &ParametersPanel::suggestBandsAndRows);
    // What the choices depend on: the threshold, the hashes and (for the floor) verification.
    connect(threshold_, &QDoubleSpinBox::valueChanged, this, &ParametersPanel::followThreshold);
    connect(hashes_, &QSpinBox::valueChanged, this, &ParametersPanel::followThreshold);
    connect(verify_, &QComboBox::currentIndexChanged, this, &ParametersPanel::followThreshold);
    for (QCheckBox* c : {autoBandsRows_, autoFloor_})
        connect(c, &QCheckBox::toggled, this, [this] {
            followThreshold();
            refresh();
        });
    // New panels start from the CLI's defaults: both chosen.
    autoBandsRows_->setChecked(true);
    autoFloor_->setChecked(true);
    refresh();
    observe(document);
}

// A project opened starts from the parameters of the first run shown, or from the documented
// defaults when it has no run (never the previous project's); θ follows the working threshold.
void ParametersPanel::observe(ProjectDocument* document) {
    connect(document, &ProjectDocument::projectOpened, this, [this] { fromNextRun_ = true; });
    connect(document, &ProjectDocument::runsChanged, this,
            [this](const std::vector<RunSummary>& runs) {
                if (runs.empty() && std::exchange(fromNextRun_, false)) setParams(RunParams{});
            });
    connect(document, &ProjectDocument::currentRunChanged, this, [this](const RunInfo& run) {
        if (run.runId && std::exchange(fromNextRun_, false)) setParams(run.params);
    });
    connect(document, &ProjectDocument::thresholdChanged, threshold_, &QDoubleSpinBox::setValue);
}

RunParams ParametersPanel::params() const {
    RunParams p;
    p.signature.shingle =
        parseShingleKind(shingle_->currentText().toStdString()).value_or(ShingleKind::Char);
    p.signature.ngram = ngram_->value();
    p.signature.hashes = hashes_->value();
    p.signature.family =
        parseHashFamily(family_->currentText().toStdString()).value_or(HashFamily::Permute);
    p.signature.sketch = parseSketchKind(sketch_->currentText().toStdString())
                             .value_or(defaultSketch(p.signature.family));
    p.signature.seed = seed_->text().toULongLong();
    p.lsh.bands = bands_->value();
    p.lsh.rows = rows_->value();
    p.lsh.chosen = autoBandsRows_->isChecked();
    p.lsh.scheme =
        parseBandKeyScheme(scheme_->currentText().toStdString()).value_or(BandKeyScheme::Hash);
    switch (bucketMode_->currentIndex()) {
        case 1:
            p.lsh.bucketMode = BucketMode::Auto;
            break;
        case 2:
            p.lsh.bucketMode = BucketMode::Fixed;
            p.lsh.buckets = static_cast<uint64_t>(buckets_->value());
            break;
        default:
            p.lsh.bucketMode = BucketMode::Exact;
    }
    p.compare.threshold = threshold_->value();
    p.compare.verify =
        parseVerifyMode(verify_->currentText().toStdString()).value_or(VerifyMode::None);
    // The box shows three decimals; the run gets the CLI's floor to the last bit.
    p.compare.storeFloor =
        autoFloor_->isChecked()
            ? defaultStoreFloor(p.compare.threshold, p.signature.hashes, p.compare.verify)
            : storeFloor_->value();
    p.keep = keep_->currentIndex() == 1   ? KeepPolicy::Longest
             : keep_->currentIndex() == 2 ? KeepPolicy::MaxField
                                          : KeepPolicy::First;
    if (p.keep == KeepPolicy::MaxField) p.reader.keepField = keepField_->text().toStdString();
    p.decide = parseDecideRule(decide_->currentText().toStdString()).value_or(DecideRule::Witness);
    p.threads = threads_->value();
    p.backend = backend_->currentText().toStdString();
    return p;
}

void ParametersPanel::setParams(const RunParams& p) {
    loading_ = true;
    setCombo(shingle_, toString(p.signature.shingle));
    ngram_->setValue(p.signature.ngram);
    hashes_->setValue(p.signature.hashes);
    setCombo(family_, toString(p.signature.family));
    setCombo(sketch_, toString(p.signature.sketch));
    seed_->setText(QString::number(p.signature.seed));
    bands_->setValue(p.lsh.bands);
    rows_->setValue(p.lsh.rows);
    setCombo(scheme_, toString(p.lsh.scheme));
    bucketMode_->setCurrentIndex(p.lsh.bucketMode == BucketMode::Auto    ? 1
                                 : p.lsh.bucketMode == BucketMode::Fixed ? 2
                                                                         : 0);
    if (p.lsh.bucketMode == BucketMode::Fixed)
        buckets_->setValue(static_cast<int>(std::min<uint64_t>(p.lsh.buckets, INT32_MAX)));
    threshold_->setValue(p.compare.threshold);
    storeFloor_->setValue(p.compare.storeFloor);
    setCombo(verify_, toString(p.compare.verify));
    keep_->setCurrentIndex(p.keep == KeepPolicy::Longest    ? 1
                           : p.keep == KeepPolicy::MaxField ? 2
                                                            : 0);
    keepField_->setText(QString::fromStdString(p.reader.keepField));
    setCombo(decide_, toString(p.decide));
    threads_->setValue(p.threads);
    setCombo(backend_, p.backend.c_str());
    // "auto" where the values are the choices (a run records the b x r and floor it used, not
    // whether they were chosen): exact comparisons, as both sides come from the same functions.
    if (lastChoice_.threshold != p.compare.threshold || lastChoice_.hashes != p.signature.hashes) {
        const LshSuggestion s = chooseBandsRows(p.compare.threshold, p.signature.hashes);
        lastChoice_ = {p.compare.threshold, p.signature.hashes, s.bands, s.rows};
    }
    autoBandsRows_->setChecked(
        p.lsh.chosen || (lastChoice_.bands == p.lsh.bands && lastChoice_.rows == p.lsh.rows));
    autoFloor_->setChecked(p.compare.storeFloor == defaultStoreFloor(p.compare.threshold,
                                                                     p.signature.hashes,
                                                                     p.compare.verify));
    loading_ = false;
    followThreshold();
    refresh();
}

ParameterNames ParametersPanel::parameterNames() {
    auto name = [](const QString& label) { return label.toStdString(); };
    ParameterNames n;
    n.ngram = name(tr("Shingle size k"));
    n.hashes = name(tr("Hashes H"));
    n.sketchOph = name(tr("The oph sketch"));
    n.hashPermute = name(tr("the permute hash family"));
    n.bands = name(tr("Bands"));
    n.rows = name(tr("rows"));
    n.buckets = name(tr("Buckets K"));
    n.threshold = name(tr("Threshold \u03b8"));
    n.storeFloor = name(tr("The store floor"));
    n.keepMaxField = name(tr("Keeping the largest value of a field"));
    n.textField = name(tr("The text field"));
    n.threads = name(tr("Threads"));
    n.backend = name(tr("The backend"));
    n.workers = name(tr("Workers"));
    n.devices = name(tr("Devices"));
    n.backendCudaOrAuto = name(tr("the cuda or auto backend"));
    return n;
}

QString ParametersPanel::validationMessage() const {
    if (choosing_)
        return tr("Choosing bands \u00d7 rows for \u03b8 = %1 and H = %2\u2026")
            .arg(threshold_->value(), 0, 'f', 3)
            .arg(hashes_->value());
    return QString::fromStdString(validate(params(), parameterNames()));
}

void ParametersPanel::setGpuInventory(const QString& summary, bool usable) {
    gpus_->setText(summary);
    // "cuda" stays selectable only where it can work.
    if (auto* model = qobject_cast<QStandardItemModel*>(backend_->model()))
        if (QStandardItem* item = model->item(2)) item->setEnabled(usable);
}

void ParametersPanel::followThreshold() {
    if (loading_) return;
    bands_->setEnabled(!autoBandsRows_->isChecked());
    rows_->setEnabled(!autoBandsRows_->isChecked());
    storeFloor_->setEnabled(!autoFloor_->isChecked());
    if (autoFloor_->isChecked()) storeFloor_->setValue(params().compare.storeFloor);
    if (autoBandsRows_->isChecked())
        chooseForThreshold();
    else if (choosing_) {
        choice_.forget();
        choosing_ = false;
    }
}

void ParametersPanel::chooseForThreshold() {
    const double threshold = threshold_->value();
    const int hashes = hashes_->value();
    const LatestRequest::Ticket ticket = choice_.next();
    const auto apply = [this](int bands, int rows) {
        choosing_ = false;
        if (bands > 0) {
            loading_ = true;  // one refresh for both values
            bands_->setValue(bands);
            rows_->setValue(rows);
            loading_ = false;
        }
        refresh();
    };
    if (lastChoice_.threshold == threshold && lastChoice_.hashes == hashes) {
        apply(lastChoice_.bands, lastChoice_.rows);
        return;
    }
    choosing_ = true;
    jobs_->submit<LshSuggestion>(
        this, ticket,
        [threshold, hashes](JobContext&) { return chooseBandsRows(threshold, hashes); },
        [this, threshold, hashes, apply](LshSuggestion s) {
            lastChoice_ = {threshold, hashes, s.bands, s.rows};
            apply(s.bands, s.rows);
        },
        [this](const QString& error) {
            choosing_ = false;
            suggestion_->setText(error);
            refresh();
        });
    refresh();
}

void ParametersPanel::refresh() {
    buckets_->setEnabled(bucketMode_->currentIndex() == 2);
    keepField_->setEnabled(keep_->currentIndex() == 2);
    const QString problem = validationMessage();
    if (problem.isEmpty()) {
        validation_->setText(tr("\u2714 Parameters are valid (b\u00b7r = %1 of H = %2 hashes)")
                                 .arg(bands_->value() * rows_->value())
                                 .arg(hashes_->value()));
        validation_->setStyleSheet(QStringLiteral("color: #1b6e20;"));
    } else {
        validation_->setText(QStringLiteral("\u2716 ") + problem);
        validation_->setStyleSheet(QStringLiteral("color: #b71c1c; font-weight: bold;"));
    }
    plot_->setCurve(bands_->value(), rows_->value(), threshold_->value());
    if (!loading_) emit changed();
}

void ParametersPanel::suggestBandsAndRows() {
    const double threshold = threshold_->value();
    const int hashes = hashes_->value();
    suggest_->setEnabled(false);
    suggestion_->setText(tr("Searching b\u00b7r \u2264 %1\u2026").arg(hashes));
    jobs_->submit<LshSuggestion>(
        this, [threshold, hashes](JobContext&) { return chooseBandsRows(threshold, hashes); },
        [this, threshold, hashes](LshSuggestion s) {
            suggest_->setEnabled(true);
            if (s.bands == 0) {
                suggestion_->setText(tr("No suggestion for these values."));
                return;
            }
            const int oldB = bands_->value(), oldR = rows_->value();
            bands_->setValue(s.bands);
            rows_->setValue(s.rows);
            suggestion_->setText(
                tr("Suggested for \u03b8 = %1, H = %2: b = %3, r = %4 (was %5\u00d7%6). "
                   "Miss rate at \u03b8 %9 %; false-positive area %7, false-negative area %8.")
                    .arg(threshold, 0, 'f', 3)
                    .arg(hashes)
                    .arg(s.bands)
                    .arg(s.rows)
                    .arg(oldB)
                    .arg(oldR)
                    .arg(s.falsePositiveArea, 0, 'f', 4)
                    .arg(s.falseNegativeArea, 0, 'f', 4)
                    .arg(s.missRate * 100, 0, 'f', 1));
            emit suggestionApplied(s.bands, s.rows);
        },
        [this](const QString& error) {
            suggest_->setEnabled(true);
            suggestion_->setText(error);
        });
}

}  // namespace neardup::ui
