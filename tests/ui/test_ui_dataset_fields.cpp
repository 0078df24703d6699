// The dataset panel's field choice, offscreen with a real window and real files:
// adding a Parquet file (written by Arrow's own writer, tests/support/write_parquet.py) lists
// its columns with their Arrow types, struct children as dotted paths, strings first in the text
// field's choices; a text field some input lacks is warned about before the run; the column
// chosen is the one the run reads; the first rows are previewed (id and text); File > Export Run
// writes the dataset as a Parquet shard.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "datasetpanel.h"
#include "exportdialog.h"
#include "mainwindow.h"
#include "parquet_file.h"
#include "project_queries.h"
#include "project_store.h"
#include "runcontroller.h"
#include "test_support.h"

using namespace neardup;
using namespace neardup::ui;

namespace {

// read_parquet.py MODE FILE's output (tests/support/read_parquet.py), or its error.
QString readParquet(const QString& mode, const QString& file) {
    QProcess p;
    p.start(QStringLiteral(NEARDUP_ARROW_PYTHON),
            {QStringLiteral(NEARDUP_SOURCE_DIR "/tests/support/read_parquet.py"), mode, file});
    if (!p.waitForFinished(120000) || p.exitCode() != 0)
        return QStringLiteral("read_parquet.py failed: ") +
               QString::fromUtf8(p.readAllStandardError());
    return QString::fromUtf8(p.readAllStandardOutput());
}

QStringList items(const QComboBox* box) {
    QStringList out;
    for (int i = 0; i < box->count(); ++i)
        out << box->itemText(i);
    return out;
}

void choose(QComboBox* box, const QString& text) {
    const int index = box->findText(text);
    QVERIFY2(index >= 0, qPrintable(text));
    box->setCurrentIndex(index);
}

}  // namespace

class TestUiDatasetFields : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString project_, parquet_, jsonl_;
    std::unique_ptr<MainWindow> window_;

    QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  private slots:
    void initTestCase() {
        if (!columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("NearDupTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_dataset_fields"));
        QVERIFY(dir_.isValid());
        project_ = path("fields.ndw");
        parquet_ = path("features.parquet");
        jsonl_ = path("other.jsonl");
        // Six rows: num (int64), meta (struct of content and lang; content null in row 3, the
        // whole struct null in row 4), dict (dictionary strings), count (int64), label
        // (large_string).
        QProcess p;
        p.start(QStringLiteral(NEARDUP_ARROW_PYTHON),
                {QStringLiteral(NEARDUP_SOURCE_DIR "/tests/support/write_parquet.py"),
                 QStringLiteral("features"), parquet_});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        // A JSON Lines input whose text is elsewhere: no meta.content.
        testsupport::writeFile(jsonl_.toStdString(),
                               "{\"id\": \"j1\", \"body\": {\"content\": \"some words\"}}\n");
        { ProjectStore store(project_.toStdString()); }  // an empty project
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(window_->openProject(project_, true));
    }

    void cleanupTestCase() { window_.reset(); }

    void addingParquetListsItsColumns() {
        DatasetPanel* d = window_->dataset();
        d->addInputs({parquet_});
        QTRY_VERIFY(d->textFieldBox()->findText(QStringLiteral("meta.content")) >= 0);
        // Strings first (schema order, struct children as dotted paths), then the rest.
        QCOMPARE(
            items(d->textFieldBox()),
            (QStringList{QStringLiteral("meta.content"), QStringLiteral("meta.lang"),
                         QStringLiteral("dict"), QStringLiteral("label"), QStringLiteral("num"),
                         QStringLiteral("meta"), QStringLiteral("count")}));
        QCOMPARE(items(d->idFieldBox()),
                 (QStringList{QStringLiteral("num"), QStringLiteral("meta.content"),
                              QStringLiteral("meta.lang"), QStringLiteral("dict"),
                              QStringLiteral("count"), QStringLiteral("label"),
                              QStringLiteral("meta")}));
        // The Fields tab: every column with its Arrow type.
        QTableWidget* table = d->fieldsTable();
        QCOMPARE(table->rowCount(), 7);
        QStringList rows;
        for (int r = 0; r < table->rowCount(); ++r)
            rows << table->item(r, 0)->text() + QLatin1Char('=') + table->item(r, 1)->text();
        QVERIFY2(rows.contains(QStringLiteral("label=large_string")), qPrintable(rows.join(u',')));
        QVERIFY(rows.contains(QStringLiteral("meta.content=string")));
        QVERIFY(rows.contains(QStringLiteral("num=int64")));
        QCOMPARE(
            d->textFieldBox()
                ->itemData(d->textFieldBox()->findText(QStringLiteral("label")), Qt::ToolTipRole)
                .toString(),
            QStringLiteral("large_string"));
        // First records: the file's first rows, id and text, read by the run's column reader
        // (no "text" or "id" column: the first string and id choices); nulls shown as such.
        QTRY_COMPARE(d->previewTable()->rowCount(), 6);
        QCOMPARE(d->preview().fields,
                 (QStringList{QStringLiteral("num"), QStringLiteral("meta.content")}));
        QCOMPARE(d->previewTable()->item(0, 0)->text(), QStringLiteral("10"));
        QVERIFY(d->previewTable()->item(0, 1)->text().startsWith(
            QStringLiteral("the quick brown fox")));
        QCOMPARE(d->previewTable()->item(2, 1)->text(), QStringLiteral("null"));
        QCOMPARE(d->previewTable()->item(4, 0)->text(), QStringLiteral("null"));
        QCOMPARE(d->previewTable()->item(5, 0)->text(), QStringLiteral("15"));
    }

    void aMissingTextFieldIsWarnedAbout() {
        DatasetPanel* d = window_->dataset();
        // The default "text" is no column of the file: a warning naming it and the file.
        d->textFieldBox()->setCurrentText(QStringLiteral("text"));
        QVERIFY(!d->fieldWarning()->isHidden());
        QVERIFY2(d->fieldWarning()->text().contains(QStringLiteral("features.parquet")),
                 qPrintable(d->fieldWarning()->text()));
        QVERIFY(d->fieldWarning()->text().contains(QStringLiteral("missing_text")));
        // An integer column is no text either.
        choose(d->textFieldBox(), QStringLiteral("num"));
        QVERIFY(d->fieldWarning()->text().contains(QStringLiteral("int64")));
        QVERIFY(d->fieldWarning()->text().contains(QStringLiteral("text_not_string")));
        choose(d->textFieldBox(), QStringLiteral("meta.content"));
        QVERIFY(d->fieldWarning()->isHidden());
        // A second input without that column: the warning names it, and only it.
        d->addInputs({jsonl_});
        QTRY_COMPARE(d->preview().listing.files.size(), 2);
        QCOMPARE(d->textField(), QStringLiteral("meta.content"));  // the choice is kept
        QVERIFY(!d->fieldWarning()->isHidden());
        QVERIFY2(d->fieldWarning()->text().contains(QStringLiteral("1 of 2")),
                 qPrintable(d->fieldWarning()->text()));
        QVERIFY(d->fieldWarning()->text().contains(QStringLiteral("other.jsonl")));
        QVERIFY(!d->fieldWarning()->text().contains(QStringLiteral("features.parquet")));
        // Its nested key is listed too, as a string.
        QVERIFY(d->preview().listing.textChoices().contains(QStringLiteral("body.content")));
        d->setInputs({parquet_});
        QTRY_COMPARE(d->preview().listing.files.size(), 1);
        QVERIFY(d->fieldWarning()->isHidden());
    }

    void theChosenColumnIsTheOneTheRunReads() {
        MainWindow& w = *window_;
        DatasetPanel* d = w.dataset();
        choose(d->textFieldBox(), QStringLiteral("meta.content"));
        choose(d->idFieldBox(), QStringLiteral("label"));
        QSignalSpy finished(w.runController(), &RunController::finished);
        QTRY_VERIFY(d->runButton()->isEnabled());
        QTest::mouseClick(d->runButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(finished.front().at(0).toString(), QStringLiteral("ok"));
        const qint64 runId = finished.front().at(1).toLongLong();
        QTRY_COMPARE(w.currentRun().runId, runId);
        QCOMPARE(w.currentRun().params.reader.textField, std::string("meta.content"));
        QCOMPARE(w.currentRun().params.reader.idField, std::string("label"));
        // Rows 0, 1, 4 and 5 have a meta.content; row 2's is null and row 3's struct is null.
        const RunInfo info = ProjectQueries(project_.toStdString()).runInfo(runId);
        QCOMPARE(info.documents, uint64_t{4});
    }

    // File > Export Run: the deduplicated dataset as a folder of shards in the inputs' formats
    // (the same core function as `neardup export --out-dir`): the Parquet input's shard has its
    // schema and the kept rows; with --annotate every row and the cluster columns; asked first
    // when the folder exists.
    void exportWritesTheDatasetAsParquet() {
        MainWindow& w = *window_;
        QTemporaryDir out;
        ExportDialog* d = w.openExportDialog();
        QVERIFY(d);
        d->setOutputDirectory(out.path());
        QVERIFY(!d->datasetBox()->isChecked());  // off by default
        d->datasetBox()->setChecked(true);
        const QString folder = d->plannedFiles().back();
        QVERIFY2(folder.endsWith(QStringLiteral("-dataset")), qPrintable(folder));
        QSignalSpy done(d, &ExportDialog::exported);
        d->startExport();
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 60000);
        QVERIFY2(done.front().at(0).toBool(), qPrintable(d->resultText()));
        const QString shard = folder + QStringLiteral("/features.parquet");
        QCOMPARE(readParquet(QStringLiteral("schema"), shard),
                 readParquet(QStringLiteral("schema"), parquet_));
        const QStringList rows =
            readParquet(QStringLiteral("rows"), shard).split(u'\n', Qt::SkipEmptyParts);
        const QStringList all =
            readParquet(QStringLiteral("rows"), parquet_).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(rows, (QStringList{all[0], all[1], all[4], all[5]}));
        // Again, annotated: the folder exists, so the dialog asks before replacing it.
        d->annotateBox()->setChecked(true);
        d->startExport();
        QMessageBox* ask = nullptr;
        QTRY_VERIFY((ask = d->findChild<QMessageBox*>(QStringLiteral("confirmOverwrite"))));
        ask->button(QMessageBox::Yes)->click();
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 60000);
        QVERIFY2(done.back().at(0).toBool(), qPrintable(d->resultText()));
        const QString annotated = readParquet(QStringLiteral("rows"), shard);
        QCOMPARE(annotated.count(QStringLiteral("\"duplicate_removed\": false")), 4);
        QVERIFY(readParquet(QStringLiteral("schema"), shard)
                    .contains(QStringLiteral("cluster_size: int64")));
        d->close();
    }
};

#else  // built without the GUI

#include <QTest>

class TestUiDatasetFields : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};

#endif

QTEST_MAIN(TestUiDatasetFields)
#include "test_ui_dataset_fields.moc"
