// The counts behind the run's id warnings (core/output/input_warnings.h), on document tables
// built by hand: which ids are a document's own <file>:<line>, which repeat an earlier one, and
// that the reference's documents (never written) count for neither.
#include <QTest>
#include <cmath>
#include <limits>
#include <string>

#include "input_warnings.h"

using namespace neardup;

namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

struct Table {
    DocumentTable docs;
    std::vector<InputFile> files;

    Table() {
        files.resize(2);
        files[0].path = "/data/a.jsonl";
        files[1].path = "/data/b.jsonl";
    }
    void add(uint32_t file, uint64_t line, const std::string& id, double keep = kNoValue) {
        docs.append(file, line, 0, 0, 10, keep, id);
    }
};

}  // namespace

class TestIdCounts : public QObject {
    Q_OBJECT

  private slots:
    // A default id is exactly the document's own file and line: another line's, another
    // file's, or a longer number is an id the input gave.
    void fileLineIdsAreTheDocumentsOwnPlace() {
        Table t;
        t.add(0, 1, "/data/a.jsonl:1");   // its own place
        t.add(0, 2, "/data/a.jsonl:20");  // a longer number
        t.add(0, 3, "/data/b.jsonl:3");   // another file's
        t.add(1, 4, "/data/b.jsonl:4");   // its own place
        t.add(1, 5, "x:5");
        t.add(1, 6, "/data/b.jsonl6");  // no colon
        const FieldCounts counts = countFields(t.docs, t.files, 2);
        QCOMPARE(counts.documents, uint64_t{6});
        QCOMPARE(counts.fileLineIds, uint64_t{2});
        QCOMPARE(counts.keepValues, uint64_t{0});
    }

    void repeatedIdsAreCountedAfterTheirFirst() {
        Table t;
        t.add(0, 1, "x", 1.0);
        t.add(0, 2, "y");
        t.add(0, 3, "x", 2.0);
        t.add(1, 1, "y");
        t.add(1, 2, "x");
        t.add(1, 3, "z");
        const DuplicateIds d = countDuplicateIds(t.docs, 2);
        QCOMPARE(d.count, uint64_t{3});
        QCOMPARE(d.first, 2u);
        QCOMPARE(d.earlier, 0u);
        QCOMPARE(countFields(t.docs, t.files, 1).keepValues, uint64_t{2});
        const std::string warning = duplicateIdWarning(t.docs, t.files, d);
        QVERIFY2(
            warning.find("'x' at /data/a.jsonl:3, first at /data/a.jsonl:1") != std::string::npos,
            warning.c_str());
    }

    // The reference's documents are never written to an id list: an id a new document shares
    // with one of them is not counted, nor the reference's own ids.
    void theReferenceIsLeftOut() {
        Table t;
        t.add(0, 1, "x");
        t.add(0, 2, "x");
        t.add(0, 3, "/data/a.jsonl:3");
        t.add(1, 1, "x");
        t.add(1, 2, "w");
        t.docs.markReference(1);
        QCOMPARE(t.docs.referenceDocuments, 3u);
        QCOMPARE(countDuplicateIds(t.docs, 2).count, uint64_t{0});
        QCOMPARE(countFields(t.docs, t.files, 2).fileLineIds, uint64_t{0});
        QCOMPARE(countFields(t.docs, t.files, 2).documents, uint64_t{2});
    }

    // Fewer bands or more rows miss more pairs: the warning starts beyond one pair in two.
    void bandsAndRowsWarnBeyondHalfTheirPairs() {
        RunParams params;
        params.compare.threshold = 0.8;
        params.lsh.bands = 18;
        params.lsh.rows = 7;
        QVERIFY(fieldWarnings(params, FieldCounts{}).empty());
        params.lsh.bands = 1;
        params.lsh.rows = 3;  // misses 48.8 %
        QVERIFY(fieldWarnings(params, FieldCounts{}).empty());
        params.lsh.rows = 4;  // misses 59.0 %
        const auto warnings = fieldWarnings(params, FieldCounts{});
        QCOMPARE(warnings.size(), std::size_t{1});
        QVERIFY2(warnings[0].find("--bands 1 --rows 4 miss 59.0 %") != std::string::npos,
                 warnings[0].c_str());
    }
};

QTEST_GUILESS_MAIN(TestIdCounts)
#include "test_id_counts.moc"
