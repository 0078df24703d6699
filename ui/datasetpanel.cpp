// The dataset panel: inputs, the field choice filled from the inputs' fields, the first records,
// and the working run's dataset as the project document gives it.
#include "datasetpanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
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
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "arrow_ipc_file.h"
#include "jobqueue.h"
#include "jsonl_reader.h"
#include "numbertext.h"
#include "parquet_file.h"
#include "projectdocument.h"

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

// A decoded column's value at `row`, as the preview shows it.
QString columnText(const columnar::ColumnValues& column, uint64_t row) {
    using Kind = columnar::ColumnValues::Kind;
    if (column.kind == Kind::Missing) return {};
    if (row < column.valid.size() && !column.valid[row]) return QStringLiteral("null");
    QString s;
    if ((column.kind == Kind::Strings || column.kind == Kind::Integers) && row < column.text.size())
        s = QString::fromUtf8(column.text[row].data(), qsizetype(column.text[row].size()));
    else if (column.kind == Kind::Floats && row < column.numbers.size())
        s = QString::number(column.numbers[row], 'g', 15);
    else
        s = QStringLiteral("(%1)").arg(QString::fromStdString(column.type));
    s.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return s.size() > 120 ? s.left(117) + QStringLiteral("\u2026") : s;
}

// The id and text of the first `maxRecords` rows of a Parquet or Arrow file, decoded by the
// reader the run uses (a row group or record batch at a time, never the whole file), under the
// panel's fields, or else the listing's first choices.
void previewColumnarRows(const InputFile& file, RecordPreview& out, int maxRecords,
                         QString textField, QString idField) {
    const QStringList texts = out.listing.textChoices(), ids = out.listing.idChoices();
    if (!texts.contains(textField) && !texts.isEmpty()) textField = texts.front();
    if (!ids.contains(idField) && !ids.isEmpty()) idField = ids.front();
    out.fields = {idField, textField};
    const std::vector<columnar::RowGroupSpan> spans = columnar::columnarSpans(file.path, file.size);
    columnar::ColumnarRowReader reader(textField.toStdString(), idField.toStdString(), {});
    for (uint32_t g = 0; g < spans.size() && out.rows.size() < maxRecords; ++g) {
        if (spans[g].rows == 0) continue;
        const columnar::RowGroupColumns& columns = reader.read(file.path, file.size, g);
        for (uint64_t r = 0; r < columns.rows && out.rows.size() < maxRecords; ++r)
            out.rows << QStringList{columnText(columns.id, r), columnText(columns.text, r)};
    }
}

// What the reader made of the working run's dataset: documents, blank and rejected lines, and
// where each kind of rejection first happened.
QString rejectionText(const DatasetRecord& d) {
    uint64_t rejected = 0;
    for (const auto& r : d.rejections)
        rejected += r.count;
    QString text = DatasetPanel::tr("Dataset %1: %2 files, %3 lines, %4 blank, %5 rejected")
                       .arg(d.id)
                       .arg(countText(d.files.size()), countText(d.linesRead),
                            countText(d.blankLines), countText(rejected));
    for (const auto& r : d.rejections)
        text += DatasetPanel::tr("\n  %1 \u00d7 %2, first at %3:%4")
                    .arg(countText(r.count), QString::fromStdString(r.reason))
                    .arg(QFileInfo(QString::fromStdString(r.firstFile)).fileName())
                    .arg(r.firstLine);
    return text;
}

}  // namespace

RecordPreview previewRecords(const std::vector<std::string>& inputs, int maxRecords,
                             const QString& textField, const QString& idField) {
    RecordPreview out;
    if (inputs.empty()) return out;
    try {
        const std::vector<InputFile> files = expandInputs(inputs);
        for (const auto& f : files) {
            out.files << QString::fromStdString(f.path);
            out.totalBytes += f.size;
        }
        if (files.empty()) {
            out.error = QObject::tr("no JSONL, Parquet or Arrow files found");
            return out;
        }
        out.listing = listInputFields(files, kMaxListedFiles);
        // A Parquet or Arrow file's records are rows: the first ones of its first row groups.
        if (columnar::isColumnarName(files.front().path)) {
            out.parquetFirst = true;
            try {
                previewColumnarRows(files.front(), out, maxRecords, textField, idField);
            } catch (const std::exception& e) {
                // Its fields may still be listed: the file is named by the reader's message.
                out.rows.clear();
                out.listing.errors << QString::fromUtf8(e.what());
            }
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

DatasetPanel::DatasetPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), jobs_(document->background()) {
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

    // The reference: what the inputs are deduplicated against.
    references_ = new QListWidget;
    references_->setObjectName(QStringLiteral("referenceList"));
    references_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    references_->setMaximumHeight(60);
    references_->setToolTip(
        tr("Files or folders the inputs are deduplicated against: read with them, never removed "
           "and never written. A new document that duplicates one of them is removed."));
    auto* referenceLabel = new QLabel(tr("Reference (optional): deduplicate the inputs against"));
    auto* addReferenceFilesButton = new QPushButton(tr("Add files\u2026"));
    addReferenceFilesButton->setObjectName(QStringLiteral("addReferenceFiles"));
    auto* addReferenceFolderButton = new QPushButton(tr("Add folder\u2026"));
    addReferenceFolderButton->setObjectName(QStringLiteral("addReferenceFolder"));
    auto* removeReferenceButton = new QPushButton(tr("Remove"));
    removeReferenceButton->setObjectName(QStringLiteral("removeReference"));
    connect(addReferenceFilesButton, &QPushButton::clicked, this, &DatasetPanel::addReferenceFiles);
    connect(addReferenceFolderButton, &QPushButton::clicked, this,
            &DatasetPanel::addReferenceFolder);
    connect(removeReferenceButton, &QPushButton::clicked, this,
            &DatasetPanel::removeSelectedReferences);
    auto* referenceButtons = new QHBoxLayout;
    referenceButtons->addWidget(addReferenceFilesButton);
    referenceButtons->addWidget(addReferenceFolderButton);
    referenceButtons->addWidget(removeReferenceButton);
    referenceButtons->addStretch();

    summary_ = new QLabel(noInputsText());
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
    fieldWarning_ = new QLabel;
    fieldWarning_->setObjectName(QStringLiteral("fieldWarning"));
    fieldWarning_->setWordWrap(true);
    fieldWarning_->setStyleSheet(QStringLiteral("color: #b35900;"));
    fieldWarning_->hide();
    connect(textField_, &QComboBox::currentTextChanged, this, &DatasetPanel::updateFieldWarning);

    fieldsTable_ = new QTableWidget(0, 3);
    fieldsTable_->setObjectName(QStringLiteral("fieldsTable"));
    fieldsTable_->setHorizontalHeaderLabels({tr("Field"), tr("Type"), tr("Files")});
    fieldsTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    fieldsTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    fieldsTable_->verticalHeader()->hide();
    fieldsTable_->verticalHeader()->setDefaultSectionSize(20);
    fieldsTable_->horizontalHeader()->setStretchLastSection(true);
    fieldsTable_->setToolTip(tr("Double-click a field to make it the text field"));
    connect(fieldsTable_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (const QTableWidgetItem* item = fieldsTable_->item(row, 0))
            textField_->setCurrentText(item->text());
    });

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
    layout->addWidget(referenceLabel);
    layout->addWidget(references_);
    layout->addLayout(referenceButtons);
    layout->addWidget(summary_);
    layout->addLayout(fields);
    layout->addWidget(fieldWarning_);
    auto* tabs = new QTabWidget;
    tabs->setObjectName(QStringLiteral("datasetTabs"));
    tabs->addTab(preview_, tr("First records"));
    tabs->addTab(fieldsTable_, tr("Fields"));
    tabs->setTabToolTip(0, tr("The first records of the first file"));
    tabs->setTabToolTip(1, tr("The fields of the inputs, nested ones as dotted paths, with their "
                              "types"));
    layout->addWidget(tabs, 1);
    layout->addWidget(datasetInfo_);
    layout->addWidget(run_);
    observe(document);
}

// Another project starts with no inputs; the working run fills them from its dataset when the
// user has not added any, and says what the reader made of it.
void DatasetPanel::observe(ProjectDocument* document) {
    const auto clear = [this] {
        setInputs({});
        setReferences({});
        setDatasetInfo(QString());
    };
    connect(document, &ProjectDocument::projectOpened, this, clear);
    connect(document, &ProjectDocument::projectClosed, this, clear);
    connect(document, &ProjectDocument::currentRunChanged, this,
            [this, document](const RunInfo& run) {
                if (!run.runId) return;
                const DatasetRecord& dataset = document->currentDataset();
                setDatasetInfo(rejectionText(dataset));
                if (!inputs().isEmpty()) return;
                // The dataset's first files are its reference, when the run had one.
                QStringList files, references;
                for (const auto& f : dataset.files)
                    (f.reference ? references : files) << QString::fromStdString(f.path);
                setInputs(files);
                setReferences(references);
                setFields(QString::fromStdString(dataset.reader.textField),
                          QString::fromStdString(dataset.reader.idField));
            });
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

QStringList DatasetPanel::references() const {
    QStringList out;
    for (int i = 0; i < references_->count(); ++i)
        out << references_->item(i)->text();
    return out;
}

void DatasetPanel::setReferences(const QStringList& paths) {
    references_->clear();
    addReferences(paths);
}

void DatasetPanel::addReferences(const QStringList& paths) {
    const QStringList have = references();
    for (const QString& p : paths)
        if (!have.contains(p)) references_->addItem(p);
}

void DatasetPanel::addReferenceFiles() {
    addReferences(QFileDialog::getOpenFileNames(
        this, tr("Add reference files"), QString(),
        tr("Datasets (*.jsonl *.ndjson *.json *.gz *.zst *.parquet *.arrow);;All files (*)")));
}

void DatasetPanel::addReferenceFolder() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Add a reference folder"));
    if (!dir.isEmpty()) addReferences({dir});
}

void DatasetPanel::removeSelectedReferences() {
    qDeleteAll(references_->selectedItems());
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
        this, tr("Add input files"), QString(),
        tr("Datasets (*.jsonl *.ndjson *.json *.gz *.zst *.parquet *.arrow);;JSON Lines (*.jsonl "
           "*.ndjson *.json *.gz *.zst);;Parquet (*.parquet);;Arrow (*.arrow);;All files (*)")));
}

void DatasetPanel::addFolder() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Add a folder of JSONL or Parquet files"));
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
        this, latestPreview_.next(),
        [paths, text = textField(), id = idField()](JobContext&) {
            return previewRecords(paths, 20, text, id);
        },
        [this](RecordPreview p) { showPreview(p); });
}

void DatasetPanel::showPreview(const RecordPreview& p) {
    lastPreview_ = p;
    if (!p.error.isEmpty())
        summary_->setText(tr("Cannot read the inputs: %1").arg(p.error));
    else if (p.files.isEmpty())
        summary_->setText(noInputsText());
    else
        summary_->setText(summaryText(p));
    fillFieldChoices(p);
    fieldsTable_->setRowCount(int(p.listing.fields.size()));
    for (int r = 0; r < p.listing.fields.size(); ++r) {
        const ListedField& f = p.listing.fields[r];
        fieldsTable_->setItem(r, 0, new QTableWidgetItem(f.path));
        fieldsTable_->setItem(r, 1, new QTableWidgetItem(f.types.join(QStringLiteral(" | "))));
        fieldsTable_->setItem(
            r, 2,
            new QTableWidgetItem(QStringLiteral("%1/%2").arg(f.files).arg(p.listing.files.size())));
    }
    fieldsTable_->resizeColumnsToContents();
    for (int c = 0; c < fieldsTable_->columnCount(); ++c)
        fieldsTable_->setColumnWidth(c, std::min(fieldsTable_->columnWidth(c), 360));
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

QString DatasetPanel::noInputsText() const {
    return tr("No inputs yet: add JSONL files (.jsonl, .gz, .zst), Parquet files or folders.");
}

QString DatasetPanel::summaryText(const RecordPreview& p) const {
    const InputFieldList& l = p.listing;
    QString text = tr("%n file(s), %1 on disk; %2 field(s) listed", "", int(p.files.size()))
                       .arg(numberLocale().formattedDataSize(qint64(p.totalBytes)))
                       .arg(countText(l.fields.size()));
    if (l.unlisted) text += tr(" (from the first %n file(s))", "", int(l.files.size()));
    if (p.unparsed) text += tr(", %1 line(s) not JSON objects").arg(countText(p.unparsed));
    if (p.parquetFirst)
        text += tr("; the first file is columnar: its first rows' %1 and %2 are shown")
                    .arg(p.fields.value(0), p.fields.value(1));
    for (const QString& e : l.errors)
        text += QLatin1Char('\n') + tr("Cannot list fields: %1").arg(e);
    return text;
}

void DatasetPanel::fillFieldChoices(const RecordPreview& p) {
    // The listing's fields (nested ones too) when there is one, else the records' top-level ones.
    const bool listed = !p.listing.fields.isEmpty();
    const QStringList textChoices = listed ? p.listing.textChoices() : p.fields;
    const QStringList idChoices = listed ? p.listing.idChoices() : p.fields;
    const QString text = textField(), id = idField();
    auto fill = [&](QComboBox* box, const QStringList& choices, const QString& keep) {
        const QSignalBlocker quiet(box);
        box->clear();
        for (const QString& choice : choices) {
            box->addItem(choice);
            if (const ListedField* f = p.listing.find(choice))
                box->setItemData(box->count() - 1, f->types.join(QStringLiteral(" | ")),
                                 Qt::ToolTipRole);
        }
        box->setCurrentText(keep);
    };
    // Keep the user's choice, else pick the usual name for the text when present.
    fill(textField_, textChoices,
         !textChoices.contains(text) && textChoices.contains(QStringLiteral("content"))
             ? QStringLiteral("content")
             : text);
    fill(idField_, idChoices, id);
    updateFieldWarning();
}

void DatasetPanel::updateFieldWarning() {
    const QString warning = textFieldWarning(lastPreview_.listing, textField());
    fieldWarning_->setText(warning);
    fieldWarning_->setVisible(!warning.isEmpty());
}

}  // namespace neardup::ui
