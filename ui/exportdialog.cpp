#include "exportdialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "exporter.h"
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
    prefix_ = new QLineEdit(QStringLiteral("run-%1").arg(runId));
    kept_ = new QCheckBox(tr("Kept ids (one per line)"));
    removed_ = new QCheckBox(tr("Removed ids (one per line)"));
    clusters_ = new QCheckBox(tr("Clusters (JSONL: id, cluster, representative)"));
    jsonl_ = new QCheckBox(tr("Deduplicated JSONL (kept input lines, byte for byte)"));
    summary_ = new QCheckBox(tr("Run summary (JSON)"));
    for (QCheckBox* c : {kept_, removed_, clusters_, jsonl_, summary_})
        c->setChecked(true);
    result_ = new QLabel;
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Folder"), dirRow);
    form->addRow(tr("File name prefix"), prefix_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    export_ = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    disconnect(buttons, &QDialogButtonBox::accepted, nullptr, nullptr);
    connect(export_, &QPushButton::clicked, this, &ExportDialog::startExport);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    for (QCheckBox* c : {kept_, removed_, clusters_, jsonl_, summary_})
        layout->addWidget(c);
    layout->addWidget(
        new QLabel(tr("Each file is written under a temporary name and renamed "
                      "into place, so it is either complete or absent.")));
    layout->addWidget(result_);
    layout->addWidget(buttons);
    resize(560, sizeHint().height());
}

void ExportDialog::setOutputDirectory(const QString& dir) {
    dir_->setText(dir);
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
    return files;
}

QString ExportDialog::resultText() const {
    return result_->text();
}

void ExportDialog::startExport() {
    if (exporting_) return;
    const QDir dir(dir_->text());
    if (!dir.exists()) {
        result_->setText(tr("The folder %1 does not exist.").arg(dir_->text()));
        return;
    }
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
    if (!o.any()) {
        result_->setText(tr("Choose at least one output."));
        return;
    }
    exporting_ = true;
    export_->setEnabled(false);
    result_->setText(tr("Exporting\u2026"));
    const qint64 runId = runId_;
    jobs_->submit<QString>(
        this,
        [runId, o](JobContext& ctx) {
            ProjectStore& store = ctx.store();
            const RunResult run = store.loadRun(runId);
            if (run.status != "ok")
                throw std::runtime_error("run " + std::to_string(runId) + " is " + run.status +
                                         ", not exportable");
            DocumentTable docs;
            const DatasetRecord dataset = store.loadDataset(run.datasetId, &docs);
            exportRun(run, dataset.files, docs, o);
            return tr("Exported run %1: %2 kept, %3 removed.")
                .arg(runId)
                .arg(run.counts.kept)
                .arg(run.counts.removed);
        },
        [this](QString message) {
            exporting_ = false;
            export_->setEnabled(true);
            result_->setText(message);
            emit exported(true, message);
        },
        [this](const QString& error) {
            exporting_ = false;
            export_->setEnabled(true);
            result_->setText(tr("Export failed: %1").arg(error));
            emit exported(false, error);
        });
}

}  // namespace neardup::ui
