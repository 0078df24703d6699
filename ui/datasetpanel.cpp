#include "datasetpanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "jobqueue.h"
#include "jsonl_reader.h"

namespace neardup::ui {

namespace {

QString shorten(const QJsonValue& v) {
    QString s;
    if (v.isString())
        s = v.toString();
    else if (v.isDouble())
        s = QString::number(v.toDouble(), 'g', 15);
    else if (v.isBool())
        s = v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    else if (v.isNull())
        s = QStringLiteral("null");
    else
        s = QString::fromUtf8(v.isObject()
                                  ? QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)
                                  : QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    s.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return s.size() > 120 ? s.left(117) + QStringLiteral("\u2026") : s;
}

}  // namespace

RecordPreview previewRecords(const std::vector<std::string>& inputs, int maxRecords) {
    RecordPreview out;
    if (inputs.empty()) return out;
    try {
        const std::vector<InputFile> files = expandInputs(inputs);
        for (const auto& f : files) {
            out.files << QString::fromStdString(f.path);
            out.totalBytes += f.size;
        }
        if (files.empty()) {
            out.error = QObject::tr("no JSONL files found");
            return out;
        }
        LineChunkSource source({files.front()}, std::size_t{256} << 10);
        LineChunk chunk;
        QList<QJsonObject> records;
        int lines = 0;
        while (lines < maxRecords && source.next(chunk)) {
            std::size_t pos = 0;
            while (lines < maxRecords && pos < chunk.data.size()) {
                std::size_t end = chunk.data.find('\n', pos);
                if (end == std::string::npos) end = chunk.data.size();
                const QByteArray line(chunk.data.data() + pos, qsizetype(end - pos));
                pos = end + 1;
                if (line.trimmed().isEmpty()) continue;
                ++lines;
                const QJsonDocument doc = QJsonDocument::fromJson(line);
                if (!doc.isObject()) {
                    ++out.unparsed;
                    continue;
                }
                const QJsonObject o = doc.object();
                for (auto it = o.begin(); it != o.end(); ++it)
                    if (!out.fields.contains(it.key())) out.fields << it.key();
                records << o;
            }
        }
        for (const QJsonObject& o : records) {
            QStringList row;
            for (const QString& f : out.fields)
                row << (o.contains(f) ? shorten(o.value(f)) : QString());
            out.rows << row;
        }
    } catch (const std::exception& e) {
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

DatasetPanel::DatasetPanel(JobQueue* jobs, QWidget* parent) : QWidget(parent), jobs_(jobs) {
    list_ = new QListWidget;
    list_->setObjectName(QStringLiteral("inputList"));
    list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    list_->setMaximumHeight(90);
    auto* addFilesButton = new QPushButton(tr("Add files\u2026"));
    auto* addFolderButton = new QPushButton(tr("Add folder\u2026"));
    auto* removeButton = new QPushButton(tr("Remove"));
    connect(addFilesButton, &QPushButton::clicked, this, &DatasetPanel::addFiles);
    connect(addFolderButton, &QPushButton::clicked, this, &DatasetPanel::addFolder);
    connect(removeButton, &QPushButton::clicked, this, &DatasetPanel::removeSelected);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(addFilesButton);
    buttons->addWidget(addFolderButton);
    buttons->addWidget(removeButton);
    buttons->addStretch();

    summary_ = new QLabel(tr("No inputs yet: add JSONL files (.jsonl, .gz, .zst) or folders."));
    summary_->setWordWrap(true);
    textField_ = new QComboBox;
    textField_->setObjectName(QStringLiteral("textField"));
    textField_->setEditable(true);
    textField_->addItem(QStringLiteral("text"));
    idField_ = new QComboBox;
    idField_->setObjectName(QStringLiteral("idField"));
    idField_->setEditable(true);
    idField_->addItem(QStringLiteral("id"));
    auto* fields = new QFormLayout;
    fields->addRow(tr("Text field"), textField_);
    fields->addRow(tr("Id field"), idField_);

    preview_ = new QTableWidget;
    preview_->setObjectName(QStringLiteral("previewTable"));
    preview_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    preview_->verticalHeader()->setDefaultSectionSize(20);
    preview_->horizontalHeader()->setStretchLastSection(true);
    datasetInfo_ = new QLabel;
    datasetInfo_->setObjectName(QStringLiteral("datasetInfo"));
    datasetInfo_->setWordWrap(true);
    datasetInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    run_ = new QPushButton(tr("Run"));
    run_->setObjectName(QStringLiteral("runButton"));
    run_->setToolTip(tr("Run the pipeline on these inputs with the current parameters (F5)"));
    connect(run_, &QPushButton::clicked, this, &DatasetPanel::runRequested);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(list_);
    layout->addLayout(buttons);
    layout->addWidget(summary_);
    layout->addLayout(fields);
    layout->addWidget(new QLabel(tr("First records of the first file:")));
    layout->addWidget(preview_, 1);
    layout->addWidget(datasetInfo_);
    layout->addWidget(run_);
}

QStringList DatasetPanel::inputs() const {
    QStringList out;
    for (int i = 0; i < list_->count(); ++i)
        out << list_->item(i)->text();
    return out;
}

void DatasetPanel::setInputs(const QStringList& paths) {
    list_->clear();
    addInputs(paths);
}

void DatasetPanel::addInputs(const QStringList& paths) {
    const QStringList have = inputs();
    for (const QString& p : paths)
        if (!have.contains(p)) list_->addItem(p);
    refreshPreview();
    emit inputsChanged();
}

QString DatasetPanel::textField() const {
    return textField_->currentText().trimmed();
}
QString DatasetPanel::idField() const {
    return idField_->currentText().trimmed();
}

void DatasetPanel::setFields(const QString& textField, const QString& idField) {
    textField_->setCurrentText(textField);
    idField_->setCurrentText(idField);
}

void DatasetPanel::setDatasetInfo(const QString& text) {
    datasetInfo_->setText(text);
}

void DatasetPanel::setRunEnabled(bool enabled, const QString& why) {
    run_->setEnabled(enabled);
    run_->setToolTip(enabled ? tr("Run the pipeline on these inputs with the current parameters "
                                  "(F5)")
                             : why);
}

void DatasetPanel::addFiles() {
    addInputs(QFileDialog::getOpenFileNames(
        this, tr("Add JSONL files"), QString(),
        tr("JSON Lines (*.jsonl *.ndjson *.json *.gz *.zst);;All files (*)")));
}

void DatasetPanel::addFolder() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Add a folder of JSONL files"));
    if (!dir.isEmpty()) addInputs({dir});
}

void DatasetPanel::removeSelected() {
    qDeleteAll(list_->selectedItems());
    refreshPreview();
    emit inputsChanged();
}

void DatasetPanel::refreshPreview() {
    std::vector<std::string> paths;
    for (const QString& p : inputs())
        paths.push_back(p.toStdString());
    jobs_->submit<RecordPreview>(
        this, latestPreview_.next(), [paths](JobContext&) { return previewRecords(paths, 20); },
        [this](RecordPreview p) { showPreview(p); });
}

void DatasetPanel::showPreview(const RecordPreview& p) {
    lastPreview_ = p;
    if (!p.error.isEmpty())
        summary_->setText(tr("Cannot read the inputs: %1").arg(p.error));
    else if (p.files.isEmpty())
        summary_->setText(tr("No inputs yet: add JSONL files (.jsonl, .gz, .zst) or folders."));
    else
        summary_->setText(
            tr("%n file(s), %1 on disk; %2 field(s) in the first records%3", "",
               int(p.files.size()))
                .arg(QLocale().formattedDataSize(qint64(p.totalBytes)))
                .arg(p.fields.size())
                .arg(p.unparsed ? tr(", %1 line(s) not JSON objects").arg(p.unparsed) : QString()));
    const QString text = textField(), id = idField();
    for (QComboBox* box : {textField_, idField_}) {
        const QString keep = box->currentText();
        box->clear();
        box->addItems(p.fields);
        box->setCurrentText(keep);
    }
    // Keep the user's choice, else pick the usual names when present.
    if (!p.fields.contains(text) && p.fields.contains(QStringLiteral("content")))
        textField_->setCurrentText(QStringLiteral("content"));
    else
        textField_->setCurrentText(text);
    idField_->setCurrentText(id);
    preview_->clear();
    preview_->setColumnCount(int(p.fields.size()));
    preview_->setRowCount(int(p.rows.size()));
    preview_->setHorizontalHeaderLabels(p.fields);
    for (int r = 0; r < p.rows.size(); ++r)
        for (int c = 0; c < p.rows[r].size(); ++c)
            preview_->setItem(r, c, new QTableWidgetItem(p.rows[r][c]));
    preview_->resizeColumnsToContents();
    for (int c = 0; c < preview_->columnCount(); ++c)
        preview_->setColumnWidth(c, std::min(preview_->columnWidth(c), 360));
    emit previewReady();
}

}  // namespace neardup::ui
