// A dataset that shares its first documents with its reference's dataset (a run against a
// reference signed before): only its own document rows are stored, and everything that reads
// documents — the store's load, the workbench's queries, the document_status view — sees the
// shared ones as if they were its own. A base that is not what it claims is refused when saved
// and named as damage when loaded. A large dataset, shared or not, loads the same when its rows
// are read in ranges by several connections, and a damaged row in any range is named.
#include <QTest>

#include <set>

#include "project_queries.h"
#include "project_store_fixtures.h"
#include "test_support.h"

using namespace storefixtures;

namespace {

constexpr std::size_t kReferenceDocs = 12;
constexpr std::size_t kOwnDocs = 8;

// The reference's documents followed by the new ones, which lie in a fourth file.
DocumentTable referenceAndNew() {
    DocumentTable docs = makeDocs(kReferenceDocs);
    for (std::size_t i = 0; i < kOwnDocs; ++i)
        docs.append(3, i + 1, i * 500, 200, 180, kNaN, "new-" + std::to_string(i));
    return docs;
}

DatasetRecord basedOn(int64_t base) {
    DatasetRecord d = makeDataset();
    InputFile fresh;
    fresh.path = "/data/new/crawl.jsonl";
    fresh.size = 1000000;
    fresh.mtimeNs = 7;
    d.files.push_back(fresh);
    d.referenceFiles = 3;
    d.baseDataset = base;
    d.baseDocuments = kReferenceDocs;
    return d;
}

// Reference document 4 and new document 15 (new-3) in one cluster, 15 removed for 4; new
// documents 13 and 14 in another.
RunResult runAgainstTheReference(int64_t datasetId) {
    const std::size_t n = kReferenceDocs + kOwnDocs;
    RunResult r = makeRun(datasetId, n);
    r.pairs = {{4, 15, 60, -1.0f}, {13, 14, 64, 1.0f}};
    r.clusterOf.assign(n, RunResult::kNoCluster);
    r.clusterOf[4] = r.clusterOf[15] = 0;
    r.clusterOf[13] = r.clusterOf[14] = 1;
    r.representative = {4, 13};
    r.removedFor.assign(n, RunResult::kNoDocument);
    r.removedFor[15] = 4;
    r.removedFor[14] = 13;
    r.counts.documents = n;
    r.counts.referenceDocuments = kReferenceDocs;
    r.counts.removedByReference = 1;
    r.counts.clusters = 2;
    r.counts.removed = 2;
    r.counts.kept = kOwnDocs - 2;
    r.counts.storedPairs = r.counts.duplicatePairs = 2;
    r.counts.chainedRemovals = 0;
    return r;
}

}  // namespace

class TestSharedDocuments : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string project_;
    int64_t base_ = 0, shared_ = 0, runId_ = 0;

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = dir_.filePath(QStringLiteral("shared.ndw")).toStdString();
        ProjectStore store(project_);
        base_ = store.saveDataset(makeDataset(), makeDocs(kReferenceDocs));
        shared_ = store.saveDataset(basedOn(base_), referenceAndNew());
        RunResult run = runAgainstTheReference(shared_);
        run.runId = runId_ = store.beginRun(run);
        store.finishRun(run);
    }

    void onlyTheNewDocumentsAreStored() {
        sql::Database db(project_, false);
        QCOMPARE(countRows(db, "SELECT count(*) FROM documents WHERE dataset_id = " +
                                   std::to_string(shared_)),
                 int64_t(kOwnDocs));
        QCOMPARE(countRows(db, "SELECT count(*) FROM documents WHERE dataset_id = " +
                                   std::to_string(shared_) + " AND doc_index < " +
                                   std::to_string(kReferenceDocs)),
                 int64_t{0});
        QCOMPARE(countRows(
                     db, "SELECT base_dataset FROM datasets WHERE id = " + std::to_string(shared_)),
                 base_);
    }

    void theStoreLoadsEveryDocument() {
        ProjectStore store(project_);
        DocumentTable docs;
        const DatasetRecord rec = store.loadDataset(shared_, &docs);
        checkDocs(referenceAndNew(), docs);
        QCOMPARE(rec.baseDataset.value(), base_);
        QCOMPARE(rec.baseDocuments, uint64_t{kReferenceDocs});
        QCOMPARE(docs.referenceDocuments, uint32_t{kReferenceDocs});
    }

    void theQueriesSeeTheSharedDocuments() {
        ProjectQueries q(project_);
        const DocumentTable expected = referenceAndNew();
        COMPARE_STR(q.documentId(shared_, 4), std::string(expected.id(4)));
        COMPARE_STR(q.documentId(shared_, 15), std::string(expected.id(15)));
        const DocumentLocation at = q.documentLocation(shared_, 4);
        QCOMPARE(at.file, expected.file[4]);
        QCOMPARE(at.offset, expected.offset[4]);
        std::set<std::string> ids;
        for (const ClusterMember& m : q.clusterMembers(runId_, 0, 0)) {
            ids.insert(m.docId);
            QCOMPARE(m.reference, m.docIndex < kReferenceDocs);
        }
        QCOMPARE(ids, (std::set<std::string>{std::string(expected.id(4)), "new-3"}));
        // The cluster's representative is a shared document: listed, and found by its id.
        ClusterFilter byId;
        byId.idSearch = std::string(expected.id(4));
        const auto found = q.clusters(runId_, byId, ClusterSort::Cluster, false, 0, 10);
        QCOMPARE(found.size(), std::size_t{1});
        QCOMPARE(found[0].representative, uint32_t{4});
        COMPARE_STR(found[0].representativeId, std::string(expected.id(4)));
    }

    void documentStatusListsEveryDocument() {
        sql::Database db(project_, false);
        const std::string run = std::to_string(runId_);
        QCOMPARE(countRows(db, "SELECT count(*) FROM document_status WHERE run_id = " + run),
                 int64_t(kReferenceDocs + kOwnDocs));
        QCOMPARE(countRows(db, "SELECT count(*) FROM document_status WHERE run_id = " + run +
                                   " AND status = 'reference'"),
                 int64_t(kReferenceDocs));
        QCOMPARE(countRows(db, "SELECT removed_for FROM document_status WHERE run_id = " + run +
                                   " AND doc_id = 'new-3'"),
                 int64_t{4});
    }

    void aBaseThatDoesNotMatchIsRefused() {
        ProjectStore store(project_);
        const auto refused = [&](const DatasetRecord& dataset, const char* why) {
            try {
                store.saveDataset(dataset, referenceAndNew());
            } catch (const StoreError& e) {
                const QString message = QString::fromUtf8(e.what());
                return message.contains(QStringLiteral("cannot share documents")) &&
                       message.contains(QLatin1String(why));
            }
            return false;
        };
        DatasetRecord wrongCount = basedOn(base_);
        wrongCount.baseDocuments = kReferenceDocs - 1;
        QVERIFY(refused(wrongCount, "documents, not the"));
        // A base sharing its own documents: a chain the store does not write.
        QVERIFY(refused(basedOn(shared_), "shares documents itself"));
        DatasetRecord otherFiles = basedOn(base_);
        otherFiles.files[0].size += 1;  // another first file: other content, whatever its path
        QVERIFY(refused(otherFiles, "does not list this dataset's first files"));
        // Nothing of the refused datasets was kept.
        sql::Database db(project_, false);
        QCOMPARE(countRows(db, "SELECT count(*) FROM datasets"), int64_t{2});
    }

    void aDamagedBaseIsNamed() {
        const std::string copy = dir_.filePath(QStringLiteral("damaged.ndw")).toStdString();
        fs::copy_file(project_, copy);
        QVERIFY(testsupport::sqlExec(
            copy, ("UPDATE datasets SET base_dataset = " + std::to_string(shared_ + 5) +
                   " WHERE id = " + std::to_string(shared_))
                      .c_str()));
        ProjectStore store(copy);
        DocumentTable docs;
        try {
            store.loadDataset(shared_, &docs);
            QFAIL("a base that is not an earlier dataset was followed");
        } catch (const StoreError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(
                         QStringLiteral("dataset %1 is damaged").arg(shared_)),
                     e.what());
        }
    }

    // A base of the right size that is not the dataset's reference (other files), or that
    // shares documents itself, is damage, named by every reader: the store's load, the keep
    // policy's inputs and the workbench's queries. Nothing is read from it.
    void anUnrelatedBaseIsNamed() {
        const std::string copy = dir_.filePath(QStringLiteral("unrelated.ndw")).toStdString();
        int64_t unrelated = 0;
        {
            fs::copy_file(project_, copy);
            ProjectStore store(copy);
            DatasetRecord other = makeDataset();
            other.files[0].size += 1;  // another first file
            unrelated = store.saveDataset(other, makeDocs(kReferenceDocs));
        }
        QVERIFY(testsupport::sqlExec(
            copy, ("UPDATE datasets SET base_dataset = " + std::to_string(unrelated) +
                   " WHERE id = " + std::to_string(shared_))
                      .c_str()));
        // The unrelated dataset came after: moved before the shared one's id, it is earlier.
        const std::string later = std::to_string(shared_ + 100);
        QVERIFY(testsupport::sqlExec(
            copy, ("PRAGMA foreign_keys = OFF; UPDATE datasets SET id = " + later + " WHERE id = " +
                   std::to_string(shared_) + "; UPDATE dataset_files SET dataset_id = " + later +
                   " WHERE dataset_id = " + std::to_string(shared_) +
                   "; UPDATE documents SET dataset_id = " + later + " WHERE dataset_id = " +
                   std::to_string(shared_) + "; UPDATE runs SET dataset_id = " + later +
                   " WHERE dataset_id = " + std::to_string(shared_))
                      .c_str()));
        const auto named = [](const std::exception& e) {
            return QString::fromUtf8(e.what()).contains(
                QStringLiteral("does not list this dataset's first files"));
        };
        ProjectStore store(copy);
        DocumentTable docs;
        try {
            store.loadDataset(shared_ + 100, &docs);
            QFAIL("an unrelated base was followed");
        } catch (const StoreError& e) {
            QVERIFY2(named(e), e.what());
        }
        ProjectQueries q(copy);
        try {
            q.clusterMembers(runId_, 0, 0);
            QFAIL("an unrelated base was followed by the queries");
        } catch (const std::exception& e) {
            QVERIFY2(named(e), e.what());
        }
    }

    void aLargeDatasetLoadsInParts() {
        const std::string project = dir_.filePath(QStringLiteral("large.ndw")).toStdString();
        constexpr std::size_t kBase = 400000, kTotal = 600000;
        DocumentTable all = makeDocs(kBase);
        for (std::size_t i = kBase; i < kTotal; ++i)
            all.append(3, i + 1, i - kBase, 200, 180, kNaN, "new-" + std::to_string(i));
        int64_t base = 0, shared = 0;
        {
            ProjectStore store(project);
            base = store.saveDataset(makeDataset(), makeDocs(kBase));
            DatasetRecord rec = basedOn(base);
            rec.baseDocuments = kBase;
            shared = store.saveDataset(rec, all);
        }
        ProjectStore store(project);
        DocumentTable loaded;
        store.loadDataset(shared, &loaded);
        checkDocs(all, loaded);
        store.loadDataset(base, &loaded);
        checkDocs(makeDocs(kBase), loaded);
        store.setThreads(1);  // one connection, one thread: the same table
        store.loadDataset(shared, &loaded);
        checkDocs(all, loaded);
        store.setThreads(0);
        // A row missing from the last range: named, whichever connection read it.
        QVERIFY(testsupport::sqlExec(project, ("DELETE FROM documents WHERE dataset_id = " +
                                               std::to_string(shared) + " AND doc_index = 599000")
                                                  .c_str()));
        try {
            store.loadDataset(shared, &loaded);
            QFAIL("a missing document was not noticed");
        } catch (const StoreError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("#599000")), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestSharedDocuments)
#include "test_shared_documents.moc"
