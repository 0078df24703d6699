// The inputs of the next run: files and folders, the text and id fields chosen from the fields
// the inputs have (Parquet columns with their Arrow types, JSON Lines keys with the JSON types
// seen, listed off the GUI thread), a warning when some input lacks the text field, a preview of
// the first records, and the Run button. It also shows what the reader rejected in the project
// document's working run, and takes that run's inputs when none were added.
// Below the inputs, the run's reference (`neardup run --reference`): files and folders the
// inputs are deduplicated against, read with them, never removed and never written.
#pragma once

#include <QStringList>
#include <QWidget>
#include <string>
#include <vector>

#include "fieldlisting.h"
#include "jobqueue.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace neardup::ui {

class JobQueue;
class ProjectDocument;

// The first records of the first input file, parsed line by line, and the inputs' fields.
struct RecordPreview {
    QStringList files;          // every input file after expanding folders
    quint64 totalBytes = 0;     // on disk
    QStringList fields;         // top-level fields of the records, in order of first appearance
    QList<QStringList> rows;    // one per record, values in `fields` order (shortened)
    int unparsed = 0;           // lines that are not JSON objects
    bool parquetFirst = false;  // the first file is Parquet or Arrow: its rows' id and text
    InputFieldList listing;     // the fields of the first kMaxListedFiles files, nested ones too
    QString error;
};

// Reads up to `maxRecords` lines of the first input with the core reader (decompressing .gz and
// .zst), or of a Parquet or Arrow first input the id and text of its first rows (the columns
// `textField` and `idField` when it has them, else the first listed choices), and lists the
// fields of the inputs (fieldlisting.h). Runs on a worker thread.
RecordPreview previewRecords(const std::vector<std::string>& inputs, int maxRecords,
                             const QString& textField = QStringLiteral("text"),
                             const QString& idField = QStringLiteral("id"));

class DatasetPanel : public QWidget {
    Q_OBJECT
  public:
    explicit DatasetPanel(ProjectDocument* document, QWidget* parent = nullptr);

    QStringList inputs() const;
    void setInputs(const QStringList& paths);
    void addInputs(const QStringList& paths);
    // The reference: files or folders (RunRequest::references).
    QStringList references() const;
    void setReferences(const QStringList& paths);
    void addReferences(const QStringList& paths);
    QListWidget* referenceList() const { return references_; }
    QString textField() const;
    QString idField() const;
    void setFields(const QString& textField, const QString& idField);
    void setRunEnabled(bool enabled, const QString& why = {});

    QPushButton* runButton() const { return run_; }
    QTableWidget* previewTable() const { return preview_; }
    QComboBox* textFieldBox() const { return textField_; }
    QComboBox* idFieldBox() const { return idField_; }
    QTableWidget* fieldsTable() const { return fieldsTable_; }
    // The warning about the text field (hidden when there is none).
    QLabel* fieldWarning() const { return fieldWarning_; }
    const RecordPreview& preview() const { return lastPreview_; }

  signals:
    void runRequested();
    void inputsChanged();
    void previewReady();

  private:
    void observe(ProjectDocument* document);
    // Shown under the inputs: documents and rejected lines of the working run's dataset.
    void setDatasetInfo(const QString& text);
    void addFiles();
    void addFolder();
    void removeSelected();
    void addReferenceFiles();
    void addReferenceFolder();
    void removeSelectedReferences();
    void refreshPreview();
    void showPreview(const RecordPreview& p);
    void fillFieldChoices(const RecordPreview& p);
    void updateFieldWarning();
    QString noInputsText() const;
    QString summaryText(const RecordPreview& p) const;

    JobQueue* jobs_;
    QListWidget* list_;
    QListWidget* references_;
    QLabel* summary_;
    QComboBox* textField_;
    QComboBox* idField_;
    QLabel* fieldWarning_;
    QTableWidget* fieldsTable_;
    QTableWidget* preview_;
    QLabel* datasetInfo_;
    QPushButton* run_;
    RecordPreview lastPreview_;
    LatestRequest latestPreview_;
};

}  // namespace neardup::ui
