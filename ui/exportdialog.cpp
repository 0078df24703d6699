#include "exportdialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

#include "export_stored_run.h"
#include "jobqueue.h"

namespace neardup::ui {

ExportDialog::ExportDialog(JobQueue* jobs, qint64 runId, QWidget* parent)
    : QDialog(parent), jobs_(jobs), runId_(runId) {
    setWindowTitle(tr("Export run %1").arg(runId));
    dir_ = new QLineEdit(QDir::homePath());
    auto* browse = new QPushButton(tr("Browse\u2026"));
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    auto* dirRow = new QHBoxLayout;
    dirRow->addWidget(dir_, 1);
    dirRow->addWidget(browse);
    autoPrefix_ = QStringLiteral("run-%1").arg(runId);
    prefix_ = new QLineEdit(autoPrefix_);
    kept_ = new QCheckBox(tr("Kept ids (one per line)"));
    removed_ = new QCheckBox(tr("Removed ids (one per line)"));
    clusters_ = new QCheckBox(tr("Clusters (JSONL: id, cluster, representative)"));
    jsonl_ = new QCheckBox(tr("Deduplicated JSONL (kept input lines, byte for byte)"));
    summary_ = new QCheckBox(tr("Run summary (JSON)"));
    for (QCheckBox* c : {kept_, removed_, clusters_, jsonl_, summary_})
        c->setChecked(true);
    dataset_ = new QCheckBox(
        tr("Deduplicated dataset, file by file in the inputs' formats (JSONL, Parquet, Arrow; a "
           "folder)"));
    dataset_->setObjectName(QStringLiteral("exportDataset"));
    annotate_ = new QCheckBox(
        tr("Annotate instead of removing: every document, with cluster_id, cluster_size and "
           "duplicate_removed"));
    annotate_->setObjectName(QStringLiteral("exportAnnotate"));
    result_ = new QLabel;
    result_->setWordWrap(true);
    progress_ = new QProgressBar;
    progress_->setObjectName(QStringLiteral("exportProgress"));
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setVisible(false);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    thetaNote_ = new QLabel;
    thetaNote_->setObjectName(QStringLiteral("exportThetaNote"));
    thetaNote_->setWordWrap(true);

    auto* form = new QFormLayout;
    form->addRow(tr("Folder"), dirRow);
    form->addRow(tr("File name prefix"), prefix_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    export_ = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    cancel_ = buttons->addButton(tr("Cancel Export"), QDialogButtonBox::ActionRole);
    cancel_->setEnabled(false);
    disconnect(buttons, &QDialogButtonBox::accepted, nullptr, nullptr);
    connect(export_, &QPushButton::clicked, this, &ExportDialog::startExport);
    connect(cancel_, &QPushButton::clicked, this, &ExportDialog::cancelExport);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(thetaNote_);
    layout->addLayout(form);
    for (QCheckBox* c : {kept_, removed_, clusters_, jsonl_, summary_, dataset_, annotate_})
        layout->addWidget(c);
    layout->addWidget(
        new QLabel(tr("Each file is written under a temporary name and renamed "
                      "into place when all are complete: an export is complete or absent.")));
    layout->addWidget(progress_);
    layout->addWidget(result_);
    layout->addWidget(buttons);
    resize(560, sizeHint().height());
}

void ExportDialog::setOutputDirectory(const QString& dir) {
    dir_->setText(dir);
}

void ExportDialog::setProjectName(const QString& name) {
    project_ = name;
    updatePrefix();
}

void ExportDialog::updatePrefix() {
    QString prefix = project_.isEmpty() ? QStringLiteral("run-%1").arg(runId_)
                                        : QStringLiteral("%1-run-%2").arg(project_).arg(runId_);
    // Exports at two working thresholds never overwrite each other.
    if (!std::isnan(threshold_)) prefix += QStringLiteral("-theta-%1").arg(threshold_, 0, 'f', 3);
    if (prefix_->text().isEmpty() || prefix_->text() == autoPrefix_) prefix_->setText(prefix);
    autoPrefix_ = prefix;
}
QString ExportDialog::outputDirectory() const {
    return dir_->text();
}

void ExportDialog::browse() {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Export to"), dir_->text());
    if (!d.isEmpty()) dir_->setText(d);
}

QStringList ExportDialog::plannedFiles() const {
    const QDir dir(dir_->text());
    const QString p = prefix_->text();
    QStringList files;
    if (kept_->isChecked()) files << dir.filePath(p + QStringLiteral("-kept.txt"));
    if (removed_->isChecked()) files << dir.filePath(p + QStringLiteral("-removed.txt"));
    if (clusters_->isChecked()) files << dir.filePath(p + QStringLiteral("-clusters.jsonl"));
    if (jsonl_->isChecked()) files << dir.filePath(p + QStringLiteral("-dedup.jsonl"));
    if (summary_->isChecked()) files << dir.filePath(p + QStringLiteral("-summary.json"));
    if (dataset_->isChecked()) files << dir.filePath(p + QStringLiteral("-dataset"));
    return files;
}

QString ExportDialog::resultText() const {
    return result_->text();
}

void ExportDialog::startExport() {
    if (exporting_ || asking_) return;
    const QDir dir(dir_->text());
    if (!dir.exists()) {
        result_->setText(tr("The folder %1 does not exist.").arg(dir_->text()));
        return;
    }
    QStringList existing;
    for (const QString& f : plannedFiles())
        if (QFileInfo::exists(f)) existing << f;
    if (existing.isEmpty())
        runExport();
    else
        askBeforeReplacing(existing);
}

void ExportDialog::askBeforeReplacing(const QStringList& existing) {
    asking_ = true;
    QStringList names;
    for (const QString& f : existing)
        names << QFileInfo(f).fileName();
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Replace files?"),
        tr("%n file(s) of this export already exist in %1. Replace them?", "", int(existing.size()))
            .arg(QDir::toNativeSeparators(dir_->text())),
        QMessageBox::Yes | QMessageBox::No, this);
    box->setObjectName(QStringLiteral("confirmOverwrite"));
    box->setInformativeText(names.join(QLatin1Char('\n')));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box] {
        asking_ = false;
        if (box->clickedButton() == box->button(QMessageBox::Yes))
            runExport();
        else
            result_->setText(
                tr("Not exported: the existing files are left as they are. "
                   "Choose another folder or prefix."));
    });
    box->open();
}

void ExportDialog::runExport() {
    const QDir dir(dir_->text());
    const QString p = prefix_->text();
    ExportOptions o;
    auto path = [&](QCheckBox* box, const char* suffix) {
        return box->isChecked() ? dir.filePath(p + QLatin1String(suffix)).toStdString()
                                : std::string();
    };
    o.kept = path(kept_, "-kept.txt");
    o.removed = path(removed_, "-removed.txt");
    o.clusters = path(clusters_, "-clusters.jsonl");
    o.jsonl = path(jsonl_, "-dedup.jsonl");
    o.summaryJson = path(summary_, "-summary.json");
    o.outDir = path(dataset_, "-dataset");
    o.annotate = annotate_->isChecked();
    if (!o.any()) {
        result_->setText(tr("Choose at least one output."));
        return;
    }
    if (o.annotate && o.jsonl.empty() && o.outDir.empty()) {
        result_->setText(
            tr("Annotating applies to the deduplicated JSONL or dataset: choose "
               "one of them."));
        return;
    }
    exporting_ = true;
    cancelled_ = false;
    export_->setEnabled(false);
    cancel_->setEnabled(true);
    progress_->setValue(0);
    progress_->setVisible(true);
    result_->setText(tr("Exporting\u2026"));
    const qint64 runId = runId_;
    const double threshold = threshold_;
    cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
    auto flag = cancelFlag_;
    QPointer<QProgressBar> bar(progress_);
    jobs_->submit<QString>(
        this,
        [runId, threshold, o, flag, bar](JobContext& ctx) mutable {
            // At most ~20 updates a second reach the GUI thread.
            QElapsedTimer sinceShown;
            sinceShown.start();
            StoredRunExport request;
            request.runId = runId;
            // NaN: the run as `neardup export` writes it; else at the working threshold, the run
            // re-clustered with its rule and the decisions, as the slider and the clusters show.
            request.threshold = threshold;
            request.outputs = std::move(o);
            request.outputs.cancel = flag.get();
            request.outputs.progress = [&](uint64_t done, uint64_t total) {
                if (sinceShown.elapsed() < 50 || total == 0) return;
                sinceShown.restart();
                const int value = int(1000.0 * double(done) / double(total));
                // Posted to the application object, which outlives the dialog; the bar is
                // checked on the GUI thread, where it lives.
                QMetaObject::invokeMethod(
                    qApp,
                    [bar, value] {
                        if (bar) bar->setValue(value);
                    },
                    Qt::QueuedConnection);
            };
            ExportedRun run;
            try {
                run = exportStoredRun(ctx.reader(), std::move(request));
            } catch (const ExportCancelled&) {
                return QString();  // empty: cancelled
            }
            return (std::isnan(threshold)
                        ? tr("Exported run %1: %2 kept, %3 removed.").arg(runId)
                        : tr("Exported run %1 at \u03b8 = %2: %3 kept, %4 removed.")
                              .arg(runId)
                              .arg(threshold, 0, 'f', 3))
                .arg(run.counts.kept)
                .arg(run.counts.removed);
        },
        [this](QString message) {
            if (message.isEmpty()) {
                cancelled_ = true;
                finish(false, tr("Export cancelled; no file was written."));
            } else {
                progress_->setValue(progress_->maximum());
                finish(true, message);
            }
        },
        [this](const QString& error) { finish(false, tr("Export failed: %1").arg(error)); });
}

QString thresholdNote(double runTheta, double working, bool forReport) {
    const auto theta = [](double t) { return QString::number(t, 'f', 3); };
    const bool moved =
        !std::isnan(working) && !(std::abs(working - runTheta) < 0.0005);  // as shown
    if (std::isnan(runTheta))
        return moved ? ExportDialog::tr("Exported at the working \u03b8 = %1 (the slider).")
                           .arg(theta(working))
                     : QString();
    if (forReport)
        return moved ? ExportDialog::tr(
                           "The report shows the run at its own \u03b8 = %1; the "
                           "workbench's working \u03b8 is %2 (the slider), which "
                           "Export Run uses.")
                           .arg(theta(runTheta), theta(working))
                     : ExportDialog::tr(
                           "The report shows the run at its own \u03b8 = %1, as the "
                           "workbench shows it now.")
                           .arg(theta(runTheta));
    return moved ? ExportDialog::tr(
                       "Exported at the working \u03b8 = %1 (the slider); the run's "
                       "own \u03b8 = %2 is the one Export Report shows.")
                       .arg(theta(working), theta(runTheta))
                 : ExportDialog::tr(
                       "Exported at the run's own \u03b8 = %1, as Export Report "
                       "shows it.")
                       .arg(theta(runTheta));
}

void ExportDialog::setRunThreshold(double threshold) {
    runThreshold_ = threshold;
    thetaNote_->setText(thresholdNote(runThreshold_, threshold_, false));
}

QString ExportDialog::thresholdText() const {
    return thetaNote_->text();
}

void ExportDialog::setThreshold(double threshold) {
    threshold_ = threshold;
    thetaNote_->setText(thresholdNote(runThreshold_, threshold_, false));
    setWindowTitle(std::isnan(threshold)
                       ? tr("Export run %1").arg(runId_)
                       : tr("Export run %1 at \u03b8 = %2").arg(runId_).arg(threshold, 0, 'f', 3));
    updatePrefix();
}

void ExportDialog::cancelExport() {
    if (!exporting_ || !cancelFlag_) return;
    cancelFlag_->store(true);
    cancel_->setEnabled(false);
    result_->setText(tr("Cancelling\u2026"));
}

void ExportDialog::finish(bool ok, const QString& message) {
    exporting_ = false;
    export_->setEnabled(true);
    cancel_->setEnabled(false);
    if (!ok) progress_->setVisible(false);
    result_->setText(message);
    emit exported(ok, message);
}

void ExportDialog::reject() {
    // Closing the dialog stops its export; the job's result then goes nowhere.
    if (exporting_ && cancelFlag_) cancelFlag_->store(true);
    QDialog::reject();
}

}  // namespace neardup::ui
