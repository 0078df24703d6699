// The fields the workbench offers for the text and id field choice: a Parquet file's
// columns with their Arrow types, struct children as dotted paths (a fixture written by Arrow's
// own writer, tests/support/write_parquet.py), and the keys of a JSON Lines file's first lines,
// nested keys as dotted paths, with the JSON types seen, compressed or not.
#include <zlib.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <string>

#include "input_fields.h"
#include "jsonl_reader.h"
#include "parquet_file.h"
#include "test_support.h"

using namespace neardup;
using columnar::FieldInfo;

namespace {

// "path: type" per field, the kind as S, I or O after it: one string to compare whole.
QStringList describe(const std::vector<FieldInfo>& fields) {
    QStringList out;
    for (const FieldInfo& f : fields)
        out << QString::fromStdString(f.path + ": " + f.type + " ") +
                   QLatin1Char(f.kind == FieldInfo::Kind::String    ? 'S'
                               : f.kind == FieldInfo::Kind::Integer ? 'I'
                                                                    : 'O');
    return out;
}

const FieldInfo* find(const FieldListing& listing, const std::string& path) {
    for (const FieldInfo& f : listing.fields)
        if (f.path == path) return &f;
    return nullptr;
}

}  // namespace

class TestInputFields : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    std::string path(const char* name) const {
        return dir_.filePath(QLatin1String(name)).toStdString();
    }

    static InputFile inputFile(const std::string& path) {
        const std::vector<InputFile> files = expandInputs({path});
        return files.at(0);
    }

    static const char* nestedLines() {
        return "{\"id\": 1, \"text\": \"a\", \"meta\": {\"url\": \"https://a\", \"lang\": "
               "{\"code\": \"en\"}}, \"score\": 0.5, \"tags\": [\"x\"]}\n"
               "\n"
               "not json at all\n"
               "[1, 2]\n"
               "{\"id\": \"b2\", \"text\": \"b\", \"meta\": {\"url\": null}, \"extra\": true}\n"
               "{\"id\": 3, \"text\": \"c\", \"late\": 7}";  // no final newline
    }

  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void jsonLinesListsNestedKeysWithTheirTypes() {
        testsupport::writeFile(path("nested.jsonl"), nestedLines());
        const FieldListing listing = jsonlFields(inputFile(path("nested.jsonl")));
        QVERIFY(!listing.parquet);
        QCOMPARE(listing.records, uint64_t{3});
        QCOMPARE(listing.notObjects, uint64_t{2});  // blank lines are not counted
        const QStringList expected{
            QStringLiteral("id: string | integer S"),  // a string id seen: offered as text too
            QStringLiteral("text: string S"),
            QStringLiteral("meta: object O"),
            QStringLiteral("meta.url: string | null S"),
            QStringLiteral("meta.lang: object O"),
            QStringLiteral("meta.lang.code: string S"),
            QStringLiteral("score: float O"),
            QStringLiteral("tags: array O"),
            QStringLiteral("extra: boolean O"),
            QStringLiteral("late: integer I"),
        };
        QCOMPARE(describe(listing.fields), expected);
        QCOMPARE(find(listing, "id")->seen, uint64_t{3});
        QCOMPARE(find(listing, "meta.url")->seen, uint64_t{2});
        QCOMPARE(find(listing, "meta.lang.code")->seen, uint64_t{1});
    }

    void jsonLinesSamplesOnlyTheFirstLines() {
        testsupport::writeFile(path("sampled.jsonl"), nestedLines());
        // Four non-blank lines: the fifth, the only one with "late", is not read.
        const FieldListing listing = jsonlFields(inputFile(path("sampled.jsonl")), 4);
        QCOMPARE(listing.records, uint64_t{2});
        QVERIFY(find(listing, "extra"));
        QVERIFY(!find(listing, "late"));
    }

    void compressedJsonLinesAreDecompressed() {
        const std::string gz = path("nested.jsonl.gz");
        gzFile out = gzopen(gz.c_str(), "wb");
        QVERIFY(out);
        const std::string lines = nestedLines();
        QCOMPARE(gzwrite(out, lines.data(), unsigned(lines.size())), int(lines.size()));
        QCOMPARE(gzclose(out), Z_OK);
        const FieldListing listing = inputFields(inputFile(gz));
        QCOMPARE(listing.records, uint64_t{3});
        QVERIFY(find(listing, "meta.lang.code"));
    }

    void parquetListsColumnsWithArrowTypes() {
        if (!columnar::parquetCompiledIn()) {
            testsupport::writeFile(path("none.parquet"), "PAR1");
            try {
                columnar::parquetFields(path("none.parquet"));
                QFAIL("a build without Arrow listed a Parquet file's columns");
            } catch (const columnar::ColumnarError& e) {
                QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("not compiled in")));
                QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("none.parquet")));
            }
            QSKIP("Parquet support is not compiled in");
        }
        QProcess p;
        p.start(QStringLiteral(NEARDUP_ARROW_PYTHON),
                {QStringLiteral(NEARDUP_SOURCE_DIR "/tests/support/write_parquet.py"),
                 QStringLiteral("features"), QString::fromStdString(path("features.parquet"))});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const FieldListing listing = inputFields(inputFile(path("features.parquet")));
        QVERIFY(listing.parquet);
        QCOMPARE(listing.records, uint64_t{6});
        const QStringList expected{
            QStringLiteral("num: int64 I"),
            QStringLiteral("meta: struct<content: string, lang: string> O"),
            QStringLiteral("meta.content: string S"),
            QStringLiteral("meta.lang: string S"),
            QStringLiteral("dict: dictionary<values=string, indices=int32, ordered=0> S"),
            QStringLiteral("count: int64 I"),
            QStringLiteral("label: large_string S"),
        };
        QCOMPARE(describe(listing.fields), expected);
    }

    // An Arrow IPC file and stream (what `datasets` writes) list their columns like Parquet's,
    // read by Arrow's readers; a workbench given an .arrow input must not sample it as JSON.
    void arrowListsColumnsLikeParquet() {
        if (!columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        QStringList listed;
        for (const char* format : {"file", "stream"}) {
            const std::string file = path((std::string("features-") + format + ".arrow").c_str());
            QProcess p;
            p.start(
                QStringLiteral(NEARDUP_ARROW_PYTHON),
                {QStringLiteral(NEARDUP_SOURCE_DIR "/tests/support/write_arrow.py"),
                 QStringLiteral("features"), QString::fromStdString(file), QLatin1String(format)});
            QVERIFY(p.waitForFinished(120000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            const FieldListing listing = inputFields(inputFile(file));
            QVERIFY(listing.parquet);
            QCOMPARE(listing.records, uint64_t{6});
            QCOMPARE(listing.notObjects, uint64_t{0});
            const QStringList fields = describe(listing.fields);
            if (!listed.isEmpty()) QCOMPARE(fields, listed);  // the two formats alike
            listed = fields;
        }
        QVERIFY(listed.contains(QStringLiteral("meta.content: string S")));
        QVERIFY(listed.contains(QStringLiteral("num: int64 I")));
        QVERIFY(listed.contains(QStringLiteral("label: large_string S")));
        QVERIFY(std::any_of(listed.begin(), listed.end(), [](const QString& f) {
            return f.startsWith(QStringLiteral("dict: dictionary<values=string")) &&
                   f.endsWith(QStringLiteral(" S"));
        }));
        testsupport::writeFile(path("damaged.arrow"), "ARROW1 not an Arrow file ARROW1");
        try {
            columnar::arrowFields(path("damaged.arrow"));
            QFAIL("a damaged Arrow file was listed");
        } catch (const columnar::ColumnarError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("damaged.arrow")),
                     e.what());
        }
    }
    void aDamagedParquetFileIsNamed() {
        if (!columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        testsupport::writeFile(path("damaged.parquet"), "PAR1 this is not a Parquet file PAR1");
        try {
            columnar::parquetFields(path("damaged.parquet"));
            QFAIL("a damaged Parquet file was listed");
        } catch (const columnar::ColumnarError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("damaged.parquet")),
                     e.what());
        }
    }
};

QTEST_MAIN(TestInputFields)
#include "test_input_fields.moc"
